/**
 * Sampled messages of the topic held against the schema before the table is sent (issue
 * #34): a column no message carries, or values the store cannot read as the column's type,
 * would leave the column empty forever without any error from the store. `dpgw table
 * create` and both provision modes use it; read-only, as `schema infer --dataset` reads.
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { Where } from '../../errors/source-location.js';
import { judgedText, MessageFit, notJudgedWarning, type FitReport, type MissingColumn } from '../../schema-inference/message-fit.js';
import { schemaColumns } from '../../olap/schema-validation.js';
import { closestMatch } from '../../text/closest-match.js';
import { observeTopic, topicSampleText } from '../../schema-inference/sample-messages.js';
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

/** Columns of one table the user knows better about (`--sample-ignore`, a manifest entry's `sampleCheck.ignore`), and where they were named. */
export interface SampleIgnore {
  columns: readonly string[];
  where: Where;
}

/** `pending`: columns added to the store's schema that no sampled message carries yet (a warning, not a refusal). */
export type SampleOutcome = { kind: 'fit'; report: FitReport; pending: string[]; described: string } | { kind: 'misfit'; report: FitReport; error: DpgwError } | { kind: 'skipped'; why: string };

/**
 * Reads the sample and holds it against the schema; a refusal of the brokers (not their absence) is thrown.
 * `adding`: the columns this run adds to a schema the store holds. Producers send a new field only
 * once the schema has it, so one of those no sampled message carries yet is a warning: the table's
 * rows hold its default until they do (the reload step shows it in the rows stored before).
 */
export async function checkSample(check: SampleCheck, topic: string, schema: AnalyticsSchema, table: RealtimeTableDefinition, where?: string, ignore?: SampleIgnore, adding: readonly string[] = []): Promise<SampleOutcome> {
  checkIgnored(ignore, schema);
  // Each column judged as the store fills it for this table: its stream config and ingestion (complex types, transforms, aggregations).
  const fit = new MessageFit(schema, table, { ignore: ignore?.columns });
  let skipped: number;
  try {
    // The latest messages: what the producers send now, not what they sent when the topic began.
    skipped = (await observeTopic({ ...check.stream, topic, limit: check.limit, timeoutMs: check.timeoutMs, from: 'latest' }, fit)).length;
  } catch (error) {
    if (error instanceof EmptyTopic) return { kind: 'skipped', why: error.message };
    if (check.mode === 'auto' && error instanceof DpgwError && error.errorCode === 'STREAM_UNREACHABLE') return { kind: 'skipped', why: error.toLine() };
    throw error;
  }
  const whole = fit.result();
  if (whole.messages === 0) return { kind: 'skipped', why: `none of the first messages of topic ${topic} is a JSON object` };
  const pending = whole.missing.filter((m) => adding.includes(m.column) && m.because === undefined).map((m) => m.column);
  const report = { ...whole, missing: whole.missing.filter((m) => !pending.includes(m.column)) };
  if (report.missing.length === 0 && report.mistyped.length === 0) return { kind: 'fit', report, pending, described: topicSampleText(topic, whole.messages, skipped, check.limit) };
  return { kind: 'misfit', report, error: misfitError(report, topic, schema.schemaName, table.tableName, where) };
}

/** An ignored column the schema does not have is a typo: refused before any message is read. */
export function checkIgnored(ignore: SampleIgnore | undefined, schema: AnalyticsSchema): void {
  if (!ignore) return;
  const columns = [...schemaColumns(schema).keys(), ...((schema as { complexFieldSpecs?: Array<{ name: string }> }).complexFieldSpecs ?? []).map((spec) => spec.name)];
  const unknown = ignore.columns.filter((column) => !columns.includes(column));
  if (unknown.length === 0) return;
  const near = unknown.map((column) => closestMatch(column, columns)).filter((column) => column !== undefined);
  throw new DpgwError('INVALID_ARGUMENT', `schema ${schema.schemaName} has no column ${unknown.map(serverText).join(', ')} to pass unjudged`, {
    where: ignore.where,
    hint: near.length ? `did you mean ${near.join(', ')}? nothing was sent` : `name columns of schema ${schema.schemaName}; nothing was sent`,
  });
}

function missingText(m: MissingColumn): string {
  if (m.because !== undefined) return `column ${m.column}: ${m.because}`;
  if (m.input !== undefined) return `column ${m.column}: no sampled message carries ${m.input}, the input of ${m.expression}${m.likely !== undefined ? ` (did you mean ${serverText(m.likely)}?)` : ''}`;
  return `column ${m.column}: no sampled message carries it${m.likely !== undefined ? ` (did you mean ${serverText(m.likely)}?)` : ''}`;
}

/** How many misfit columns the one-line refusal names. */
const SHOWN_PROBLEMS = 5;

function misfitError(report: FitReport, topic: string, schemaName: string, tableName: string, where: string | undefined): DpgwError {
  const problems = [
    ...report.missing.map(missingText),
    ...report.mistyped.map((m) => `column ${m.column} is ${m.dataType}, and the messages hold ${serverText(m.example)} (${m.where})`),
  ];
  // A schema held against another topic's messages misses every column: the first few say so, details keep them all.
  const shown = problems.length > SHOWN_PROBLEMS ? [...problems.slice(0, SHOWN_PROBLEMS), `and ${problems.length - SHOWN_PROBLEMS} more (--json lists every one)`] : problems;
  return new DpgwError('MESSAGES_DO_NOT_FIT', `schema ${schemaName} does not fit the messages of topic ${topic}: ${shown.join('; ')}; table ${tableName} would leave ${problems.length === 1 ? 'that column' : 'those columns'} empty`, {
    where,
    hint: `fix the schema (dpgw schema infer --check <schema file> --dataset <data set> lists every difference), or pass --sample-ignore <column> for a column you know the store fills; nothing of the table was sent`,
    details: { messages: report.messages, missing: report.missing, mistyped: report.mistyped, extra: report.extra },
  });
}

/** The warning for added columns no sampled message carries yet; undefined when there are none. */
function pendingWarning(pending: readonly string[], schemaName: string): string | undefined {
  if (pending.length === 0) return undefined;
  const columns = pending.map(serverText).join(', ');
  return `no sampled message carries ${pending.length === 1 ? 'column' : 'columns'} ${columns} yet, added to schema ${schemaName}: ${pending.length === 1 ? 'it holds its' : 'they hold their'} default until the producers send ${pending.length === 1 ? 'it' : 'them'} (check the name against the messages' fields)`;
}

/** The reason of a check that held: the sample (told as `init` and `schema infer` tell it), and the fields not stored. */
function fitReason(report: FitReport, described: string, schemaName: string): string {
  const judged = judgedText(report.judged);
  const extra = report.extra.length ? `; not stored (the schema lacks them): ${report.extra.map(serverText).join(', ')}` : '';
  return `${described} fit schema ${schemaName}${judged ? `; ${judged}` : ''}${extra}`;
}

/** What a sample step says when the check is off and no reason was given. */
export const SAMPLE_CHECK_OFF = '--no-sample-check';

/**
 * The sample is read only where the stream step read the brokers: with the stream check skipped
 * (brokers out of reach under auto), the sample check is skipped with it, in a plan as in a run —
 * provision's data sets and `table create` alike. Undefined when the check goes ahead (or is off).
 */
export function sampleSkippedWithStream(streamSkipped: string | undefined, check: SampleCheck | undefined, mode: 'plan' | 'apply'): StepRecord | undefined {
  if (streamSkipped === undefined || !check) return undefined;
  return mode === 'plan' ? { step: 'sample', action: 'skipped', reason: `would be skipped as the stream step is: ${streamSkipped}` } : { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked: ${streamSkipped}` };
}

/** The one line a skipped check leaves: it could not run, and why; the run goes on. */
export function sampleCheckSkipped(why: string): string {
  return `messages not held against the schema: ${why}; the table is sent unchecked (--no-sample-check turns the check off)`;
}

/**
 * Runs the check for a run's step: passed, skipped (with the reason), or the refusal thrown.
 * `warning`: the columns passed unjudged, one line for the caller to show.
 */
export async function applySample(check: SampleCheck | undefined, topic: string, schema: AnalyticsSchema, table: RealtimeTableDefinition, off: string, where?: string, ignore?: SampleIgnore, adding: readonly string[] = []): Promise<{ record: StepRecord; skippedBecause?: string; warning?: string }> {
  if (!check) return { record: { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked (${off})` } };
  const outcome = await checkSample(check, topic, schema, table, where, ignore, adding);
  if (outcome.kind === 'misfit') throw outcome.error;
  if (outcome.kind === 'skipped') return { skippedBecause: outcome.why, record: { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked: ${outcome.why}` } };
  const warnings = [notJudgedWarning(outcome.report.judged), pendingWarning(outcome.pending, schema.schemaName)].filter((w) => w !== undefined);
  return { ...(warnings.length ? { warning: `${schema.schemaName}: ${warnings.join('; ')}` } : {}), record: { step: 'sample', action: 'check', status: 'passed', reason: fitReason(outcome.report, outcome.described, schema.schemaName), facts: { messages: outcome.report.messages } } };
}

/** The plan's step: the check itself runs (it only reads); a misfit is refused, and blocks the schema and table. */
export async function planSample(check: SampleCheck | undefined, off: string, topic: string | undefined, schema: AnalyticsSchema | undefined, table: RealtimeTableDefinition, ignore?: SampleIgnore, adding: readonly string[] = []): Promise<StepRecord> {
  try {
    if (schema !== undefined) checkIgnored(ignore, schema);
  } catch (error) {
    if (error instanceof DpgwError) return { step: 'sample', action: 'refused', reason: `${ignore!.where}: ${error.message}` };
    throw error;
  }
  if (!check) return { step: 'sample', action: 'skipped', reason: `not checked (${off})` };
  if (schema === undefined) return { step: 'sample', action: 'skipped', reason: 'the schema is inferred from the same messages' };
  if (topic === undefined) return { step: 'sample', action: 'check', reason: `read ${plural(check.limit, 'message')} of the topic once it exists and hold them against schema ${schema.schemaName}` };
  const outcome = await checkSample(check, topic, schema, table, undefined, ignore, adding);
  if (outcome.kind === 'misfit') return { step: 'sample', action: 'refused', reason: outcome.error.message };
  if (outcome.kind === 'skipped') return { step: 'sample', action: 'skipped', reason: `would be skipped: ${outcome.why}` };
  const warnings = [notJudgedWarning(outcome.report.judged), pendingWarning(outcome.pending, schema.schemaName)].filter((w) => w !== undefined);
  return { step: 'sample', action: 'check', reason: [fitReason(outcome.report, outcome.described, schema.schemaName), ...warnings].join('; '), facts: { messages: outcome.report.messages } };
}
