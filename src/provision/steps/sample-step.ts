/**
 * Sampled messages of the topic held against the schema before the table is sent (issue
 * #34): a column no message carries, or values the store cannot read as the column's type,
 * would leave the column empty forever without any error from the store. `dpgw table
 * create` and both provision modes use it; read-only, as `schema infer --dataset` reads.
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { MessageFit, type FitReport } from '../../schema-inference/message-fit.js';
import { observeTopic } from '../../schema-inference/sample-messages.js';
import { EmptyTopic } from '../../stream/read-topic.js';
import type { StreamConnection } from '../../stream/stream-connection.js';
import { plural } from '../../text/plural.js';
// The messages' field names and values are the producers' words: escaped before they join a line.
import { serverText } from '../../text/terminal-text.js';
import type { StepRecord } from './step-record.js';

/** How to run the check; undefined when it is off (`--no-sample-check`, `--stream-check off`). */
export interface SampleCheck {
  stream: StreamConnection;
  /** Messages read (`--sample`). */
  limit: number;
  timeoutMs: number;
  /** As the stream pre-flight's: under auto, brokers out of reach skip the check with a warning; under require they fail it. */
  mode: 'auto' | 'require';
}

export type SampleOutcome = { kind: 'fit'; report: FitReport } | { kind: 'misfit'; report: FitReport; error: DpgwError } | { kind: 'skipped'; why: string };

/** Reads the sample and holds it against the schema; a refusal of the brokers (not their absence) is thrown. */
export async function checkSample(check: SampleCheck, topic: string, schema: AnalyticsSchema, table: RealtimeTableDefinition, where?: string): Promise<SampleOutcome> {
  const derived = new Set((table.ingestionConfig?.transformConfigs ?? []).map((transform) => transform.columnName));
  const fit = new MessageFit(schema, derived);
  try {
    // The latest messages: what the producers send now, not what they sent when the topic began.
    await observeTopic({ ...check.stream, topic, limit: check.limit, timeoutMs: check.timeoutMs, from: 'latest' }, fit);
  } catch (error) {
    if (error instanceof EmptyTopic) return { kind: 'skipped', why: error.message };
    if (check.mode === 'auto' && error instanceof DpgwError && error.errorCode === 'STREAM_UNREACHABLE') return { kind: 'skipped', why: error.toLine() };
    throw error;
  }
  const report = fit.result();
  if (report.messages === 0) return { kind: 'skipped', why: `none of the first messages of topic ${topic} is a JSON object` };
  if (report.missing.length === 0 && report.mistyped.length === 0) return { kind: 'fit', report };
  return { kind: 'misfit', report, error: misfitError(report, topic, schema.schemaName, table.tableName, where) };
}

function misfitError(report: FitReport, topic: string, schemaName: string, tableName: string, where: string | undefined): DpgwError {
  const problems = [
    ...report.missing.map((m) => `column ${m.column}: no sampled message carries it${m.likely !== undefined ? ` (did you mean ${serverText(m.likely)}?)` : ''}`),
    ...report.mistyped.map((m) => `column ${m.column} is ${m.dataType}, and the messages hold ${serverText(m.example)} (${m.where})`),
  ];
  return new DpgwError('input', `schema ${schemaName} does not fit the messages of topic ${topic}: ${problems.join('; ')}; table ${tableName} would leave ${problems.length === 1 ? 'that column' : 'those columns'} empty`, {
    code: 'MESSAGES_DO_NOT_FIT',
    where,
    hint: `fix the schema (dpgw schema infer --check <schema file> --dataset <data set> lists every difference); nothing of the table was sent`,
    details: { messages: report.messages, missing: report.missing, mistyped: report.mistyped, extra: report.extra },
  });
}

/** The reason of a check that held: how many messages fit, and the fields not stored. */
function fitReason(report: FitReport, topic: string, schemaName: string): string {
  const extra = report.extra.length ? `; not stored (the schema lacks them): ${report.extra.map(serverText).join(', ')}` : '';
  return `${plural(report.messages, 'sampled message')} of topic ${topic} fit schema ${schemaName}${extra}`;
}

/** The one line a skipped check leaves: it could not run, and why; the run goes on. */
export function sampleCheckSkipped(why: string): string {
  return `messages not held against the schema: ${why}; the table is sent unchecked (--no-sample-check turns the check off)`;
}

/** Runs the check for a run's step: passed, skipped (with the reason), or the refusal thrown. */
export async function applySample(check: SampleCheck | undefined, topic: string, schema: AnalyticsSchema, table: RealtimeTableDefinition, off: string, where?: string): Promise<{ record: StepRecord; skippedBecause?: string }> {
  if (!check) return { record: { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked (${off})` } };
  const outcome = await checkSample(check, topic, schema, table, where);
  if (outcome.kind === 'misfit') throw outcome.error;
  if (outcome.kind === 'skipped') return { skippedBecause: outcome.why, record: { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked: ${outcome.why}` } };
  return { record: { step: 'sample', action: 'check', status: 'passed', reason: fitReason(outcome.report, topic, schema.schemaName), facts: { messages: outcome.report.messages } } };
}

/** The plan's step: the check itself runs (it only reads); a misfit is refused, and blocks the schema and table. */
export async function planSample(check: SampleCheck | undefined, off: string, topic: string | undefined, schema: AnalyticsSchema | undefined, table: RealtimeTableDefinition): Promise<StepRecord> {
  if (!check) return { step: 'sample', action: 'skipped', reason: `not checked (${off})` };
  if (schema === undefined) return { step: 'sample', action: 'skipped', reason: 'the schema is inferred from the same messages' };
  if (topic === undefined) return { step: 'sample', action: 'check', reason: `read ${plural(check.limit, 'message')} of the topic once it exists and hold them against schema ${schema.schemaName}` };
  const outcome = await checkSample(check, topic, schema, table);
  if (outcome.kind === 'misfit') return { step: 'sample', action: 'refused', reason: outcome.error.message };
  if (outcome.kind === 'skipped') return { step: 'sample', action: 'skipped', reason: `would be skipped: ${outcome.why}` };
  return { step: 'sample', action: 'check', reason: fitReason(outcome.report, topic, schema.schemaName), facts: { messages: outcome.report.messages } };
}
