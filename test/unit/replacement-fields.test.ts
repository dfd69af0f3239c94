/** The fields that force a replacement (olap/replacement-fields.ts), matched on a table's differences as live-diff.ts finds them. */
import { describe, expect, it } from 'vitest';
import { diffTable } from '../../src/olap/live-diff.js';
import { replacementFields } from '../../src/olap/replacement-fields.js';
import type { RealtimeTableDefinition } from '../../src/contract/types.js';

const stream = (topic: string, decoder = 'org.apache.pinot.plugin.stream.kafka.KafkaJSONMessageDecoder') => ({
  'streamType': 'kafka',
  'stream.kafka.topic.name': topic,
  'stream.kafka.decoder.class.name': decoder,
  'stream.kafka.broker.list': 'broker:9092',
});

/** The fields these tests set, each free to change. */
interface TableShape {
  tableName: string;
  tableType: string;
  segmentsConfig: Record<string, string>;
  tableIndexConfig: { streamConfigs?: Record<string, string>; segmentPartitionConfig?: unknown };
  ingestionConfig?: unknown;
  instanceAssignmentConfigMap?: unknown;
  upsertConfig?: unknown;
  dedupConfig?: unknown;
}

function table(change: (t: TableShape) => void = () => undefined): RealtimeTableDefinition {
  const t: TableShape = {
    tableName: 'track',
    tableType: 'REALTIME',
    segmentsConfig: { schemaName: 'track', timeColumnName: 'ts', retentionTimeValue: '30' },
    tableIndexConfig: { streamConfigs: stream('a') },
  };
  change(t);
  return t as unknown as RealtimeTableDefinition;
}

const live = { REALTIME: table() };
const forced = (change: (t: TableShape) => void) => replacementFields(diffTable(table(change), live)).map((f) => `${f.field}: ${f.paths.join(', ')}`);

describe('fields that force a replacement', () => {
  it('the topic, the decoder, the time column and the type', () => {
    expect(forced((t) => (t.tableIndexConfig.streamConfigs!['stream.kafka.topic.name'] = 'b'))).toEqual(['the stream topic: tableIndexConfig.streamConfigs["stream.kafka.topic.name"]']);
    expect(forced((t) => (t.tableIndexConfig.streamConfigs!['stream.kafka.decoder.class.name'] = 'x.AvroDecoder'))).toEqual(['the stream decoder and format: tableIndexConfig.streamConfigs["stream.kafka.decoder.class.name"]']);
    expect(forced((t) => (t.segmentsConfig.timeColumnName = 'eventTime'))).toEqual(['the time column: segmentsConfig.timeColumnName']);
    expect(forced((t) => (t.tableType = 'OFFLINE'))).toEqual(['the table type: tableType']);
  });

  it('partitioning, replica groups, upsert and dedup, added or changed anywhere under them', () => {
    expect(forced((t) => (t.tableIndexConfig.segmentPartitionConfig = { columnPartitionMap: { asset: { functionName: 'Murmur', numPartitions: 4 } } }))).toEqual([
      'partitioning: tableIndexConfig.segmentPartitionConfig.columnPartitionMap.asset.functionName, tableIndexConfig.segmentPartitionConfig.columnPartitionMap.asset.numPartitions',
    ]);
    expect(forced((t) => (t.instanceAssignmentConfigMap = { CONSUMING: { replicaGroupPartitionConfig: { replicaGroupBased: true } } }))).toEqual(['replica groups: instanceAssignmentConfigMap.CONSUMING.replicaGroupPartitionConfig.replicaGroupBased']);
    expect(forced((t) => (t.upsertConfig = { mode: 'FULL' }))).toEqual(['upsert: upsertConfig.mode']);
    expect(forced((t) => (t.dedupConfig = { dedupEnabled: true }))).toEqual(['dedup: dedupConfig.dedupEnabled']);
  });

  it('the stream config in its newer place (ingestionConfig.streamIngestionConfig.streamConfigMaps[0]) too', () => {
    const newer = (topic: string) =>
      table((t) => {
        delete t.tableIndexConfig.streamConfigs;
        t.ingestionConfig = { streamIngestionConfig: { streamConfigMaps: [stream(topic)] } };
      });
    expect(replacementFields(diffTable(newer('b'), { REALTIME: newer('a') })).map((f) => f.field)).toEqual(['the stream topic']);
  });

  it('what the store changes in place is no replacement: retention, the broker list, a stream key of another name', () => {
    expect(
      forced((t) => {
        t.segmentsConfig.retentionTimeValue = '60';
        t.tableIndexConfig.streamConfigs!['stream.kafka.broker.list'] = 'other:9092';
        t.tableIndexConfig.streamConfigs!['stream.kafka.topic.name.note'] = 'x';
      }),
    ).toEqual([]);
  });
});
