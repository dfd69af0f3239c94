/**
 * The sample the no-rows diagnosis reads when a table's offsets moved past its rows: the
 * topic's latest messages, read as the sample check reads them before a table is sent
 * (observeTopic: read-only, nothing committed; a message that is not a JSON object, or that
 * carries a schema registry's framing, is kept with its reason), held against the schema and
 * the table the store holds (MessageFit: the columns no message carries, the fields the schema
 * lacks).
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { MessageFit } from '../schema-inference/message-fit.js';
import { observeTopic } from '../schema-inference/sample-messages.js';
import type { StreamConnection } from '../stream/stream-connection.js';
import type { TopicSample } from './no-rows-diagnosis.js';

export interface DiagnosisSampleOptions {
  stream: StreamConnection;
  table: string;
  topic: string;
  /** Messages read, at most. */
  limit: number;
  timeoutMs: number;
}

export async function sampleForDiagnosis(client: GatewayClient, options: DiagnosisSampleOptions): Promise<TopicSample> {
  const held = await client.getTable(options.table);
  if (held.kind !== 'found') return { unknown: `the table's definition was not read (GET ${held.url}: ${held.kind === 'not-exposed' ? held.why : held.message})` };
  const table = (held.body.REALTIME ?? held.body) as RealtimeTableDefinition;
  // The schema is the one named as the table, unless the table names another (segmentsConfig.schemaName, deprecated).
  const named = (table as { segmentsConfig?: { schemaName?: unknown } }).segmentsConfig?.schemaName;
  const schemaName = typeof named === 'string' && named !== '' ? named : options.table.replace(/_REALTIME$/, '');
  const schema = await client.getSchema(schemaName);
  if (schema.kind !== 'found') return { unknown: `schema ${schemaName} was not read (GET ${schema.url}: ${schema.kind === 'not-exposed' ? schema.why : schema.message})` };
  const fit = new MessageFit(schema.body as unknown as AnalyticsSchema, table);
  try {
    const unreadable = await observeTopic({ ...options.stream, topic: options.topic, limit: options.limit, timeoutMs: options.timeoutMs, from: 'latest' }, fit);
    const report = fit.result();
    return { read: report.messages + unreadable.length, unreadable, missing: report.missing.map((m) => m.column), extra: report.extra };
  } catch (error) {
    if (error instanceof DpgwError) return { unknown: error.toLine() };
    throw error;
  }
}
