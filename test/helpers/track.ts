/** The contract's track schema (from examples/) and a REALTIME table definition for it, field for field as the contract's tables give them. */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../src/contract/types.js';
import { ROOT } from './run-dpgw.js';

/** The contract's track schema file in examples/. */
export const TRACK_SCHEMA_FILE = join(ROOT, 'examples/track/schema.yaml');

export function trackSchema(): AnalyticsSchema {
  return parse(readFileSync(TRACK_SCHEMA_FILE, 'utf8')) as AnalyticsSchema;
}

/** The track schema copied next to a manifest (which reads files of its own folder only); returns its name there. */
export function trackSchemaBeside(folder: string): string {
  copyFileSync(TRACK_SCHEMA_FILE, join(folder, 'track-schema.yaml'));
  return 'track-schema.yaml';
}

export function trackTable(topic: string, streamType = 'mq', overrides: (table: RealtimeTableDefinition) => void = () => undefined): RealtimeTableDefinition {
  const s = `stream.${streamType}`;
  const table: RealtimeTableDefinition = {
    tableName: 'track',
    tableType: 'REALTIME',
    segmentsConfig: { timeColumnName: 'time', timeType: 'MILLISECONDS', retentionTimeUnit: 'DAYS', retentionTimeValue: 7, replication: 1, replicasPerPartition: 1, schemaName: 'track' },
    tableIndexConfig: {
      loadMode: 'MMAP',
      streamConfigs: {
        streamType,
        [`${s}.consumer.type`]: 'lowLevel',
        [`${s}.topic.name`]: topic,
        [`${s}.decoder.class.name`]: 'org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder',
        [`${s}.consumer.factory.class.name`]: 'org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory',
        [`${s}.broker.list`]: 'localhost:9092',
        'key.serializer': 'org.apache.kafka.common.serialization.StringDeserializer',
        'value.serializer': 'org.apache.kafka.common.serialization.StringDeserializer',
        [`${s}.consumer.prop.auto.offset.reset`]: 'smallest',
        'security.protocol': 'SASL_PLAINTEXT',
        'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="stream" password="stream-secret-pw";',
        'sasl.mechanism': 'SCRAM-SHA-512',
        [`${s}.decoder.prop.format`]: 'JSON',
        [`${s}.decoder.prop.schema.registry.rest.url`]: 'http://localhost:8081',
      },
    },
    ingestionConfig: { transformConfigs: [{ columnName: 'time', transformFunction: 'now()' }] },
    tenants: { broker: 'DefaultTenant', server: 'DefaultTenant' },
    metadata: { customConfigs: {} },
  };
  overrides(table);
  return table;
}
