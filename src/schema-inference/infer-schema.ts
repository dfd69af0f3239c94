/**
 * The analytics schema from the messages themselves: each column's type from the
 * values seen (within the contract's STRING, INT, LONG, DOUBLE and JSON), dimensions
 * and metrics, and the date-time column. Messages are observed one at a time, so the
 * input can be streamed; only per-column tallies are kept.
 */
import { DATE_TIME_DEFAULTS, type CONTRACT_DATA_TYPES } from '../contract/constants.js';
import type { AnalyticsSchema, DateTimeFieldSpec, FieldSpec } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { columnNameProblem } from '../olap/schema-validation.js';

export type InferredType = (typeof CONTRACT_DATA_TYPES)[number];
type Seen = 'INT' | 'LONG' | 'DOUBLE' | 'STRING' | 'BOOLEAN' | 'JSON';

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** Epoch milliseconds "near now": within 20 years back and a day ahead. */
const EPOCH_WINDOW_MS = { back: 20 * 365 * 86_400_000, ahead: 86_400_000 };
/** The column the table template fills with now() when the messages have none. */
export const FILLED_TIME_COLUMN = 'time';

interface Column {
  /** Messages that carried the column (null included). */
  present: number;
  nulls: number;
  seen: Map<Seen, string>;
  min: number;
  max: number;
}

export interface InferOptions {
  name: string;
  timeColumn?: string;
  /** Integer columns to make metrics (integers are dimensions otherwise). */
  metrics?: string[];
  now?: number;
}

export interface Inferred {
  schema: AnalyticsSchema;
  /** Each column's type as the messages show it (before the date-time choice). */
  types: Map<string, InferredType>;
  notes: string[];
  warnings: string[];
  messages: number;
}

export class SchemaInference {
  private readonly columns = new Map<string, Column>();
  private count = 0;

  get messages(): number {
    return this.count;
  }

  /** One message (a JSON object) and where it came from, for the warnings. */
  observe(message: Record<string, unknown>, where: string): void {
    this.count++;
    for (const [name, value] of Object.entries(message)) {
      let column = this.columns.get(name);
      if (!column) this.columns.set(name, (column = { present: 0, nulls: 0, seen: new Map(), min: Infinity, max: -Infinity }));
      column.present++;
      if (value === null || value === undefined) {
        column.nulls++;
        continue;
      }
      const kind = kindOf(value);
      if (!column.seen.has(kind)) column.seen.set(kind, where);
      if (typeof value === 'number') {
        column.min = Math.min(column.min, value);
        column.max = Math.max(column.max, value);
      }
    }
  }

  /** Each column's type as the messages show it, before a time column or metrics are chosen (`dpgw init` lists them). */
  columnTypes(): Map<string, InferredType> {
    const warnings: string[] = [];
    return new Map([...this.columns].map(([name, column]) => [name, widen(name, column, warnings)]));
  }

  result(options: InferOptions): Inferred {
    const notes: string[] = [];
    const warnings: string[] = [];
    const types = new Map<string, InferredType>();
    // A field the store cannot take as a column stops here, named escaped and where a message has it — before
    // any warning or note shows the raw name, and before the schema text, whose position would be no help.
    for (const [name, column] of this.columns) {
      const problem = columnNameProblem(name);
      if (problem === undefined) continue;
      throw new DpgwError('input', `a message field cannot be a column: ${problem}`, {
        code: 'MESSAGE_FIELD_INVALID',
        where: column.seen.values().next().value,
        hint: 'rename the field where the messages are produced, or infer from messages without it; nothing was written',
      });
    }
    for (const [name, column] of this.columns) {
      types.set(name, widen(name, column, warnings));
      if (column.seen.size === 0) warnings.push(`column ${name} is null in every message (${column.nulls}); typed STRING — check it`);
      if (column.present < this.count) notes.push(`column ${name} is in ${column.present} of ${this.count} messages (${percent(column.present, this.count)})`);
    }

    const timeColumn = this.chooseTimeColumn(options, types, notes, warnings);
    const metrics = new Set(options.metrics ?? []);
    for (const metric of metrics) {
      const type = types.get(metric);
      if (type === undefined) throw new InferenceError('metrics', `${metric}: no such column in the messages (they have ${[...types.keys()].join(', ')})`);
      if (type !== 'INT' && type !== 'LONG' && type !== 'DOUBLE') throw new InferenceError('metrics', `${metric}: a metric must be numeric, and the messages make it ${type}`);
    }
    const dimensions: FieldSpec[] = [];
    const metricSpecs: FieldSpec[] = [];
    for (const [name, dataType] of types) {
      if (name === timeColumn) continue;
      if (dataType === 'DOUBLE' || metrics.has(name)) metricSpecs.push({ name, dataType });
      else dimensions.push({ name, dataType });
    }
    const dateTime: DateTimeFieldSpec[] = [];
    if (timeColumn) dateTime.push({ name: timeColumn, ...DATE_TIME_DEFAULTS });
    const schema: AnalyticsSchema = {
      schemaName: options.name,
      ...(dimensions.length ? { dimensionFieldSpecs: dimensions } : {}),
      ...(metricSpecs.length ? { metricFieldSpecs: metricSpecs } : {}),
      dateTimeFieldSpecs: dateTime,
    };
    return { schema, types, notes, warnings, messages: this.count };
  }

  private chooseTimeColumn(options: InferOptions, types: Map<string, InferredType>, notes: string[], warnings: string[]): string {
    if (options.timeColumn !== undefined) {
      const type = types.get(options.timeColumn);
      if (type === undefined) throw new InferenceError('timeColumn', `${options.timeColumn}: no such column in the messages (they have ${[...types.keys()].join(', ')})`);
      if (type !== 'INT' && type !== 'LONG') throw new InferenceError('timeColumn', `${options.timeColumn}: the messages make it ${type}, and the contract's date-time column is epoch milliseconds (LONG)`);
      return options.timeColumn;
    }
    const now = options.now ?? Date.now();
    const candidates = [...this.columns].filter(([name, column]) => types.get(name) === 'LONG' && column.min >= now - EPOCH_WINDOW_MS.back && column.max <= now + EPOCH_WINDOW_MS.ahead).map(([name]) => name);
    if (candidates.length === 1) {
      notes.push(`column ${candidates[0]} holds epoch milliseconds near now: it is the date-time column`);
      return candidates[0]!;
    }
    if (candidates.length > 1) {
      const chosen = candidates.includes(FILLED_TIME_COLUMN) ? FILLED_TIME_COLUMN : candidates[0]!;
      warnings.push(`columns ${candidates.join(', ')} all hold epoch milliseconds near now; ${chosen} is the date-time column (choose with --time-column)`);
      return chosen;
    }
    if (types.has(FILLED_TIME_COLUMN)) {
      throw new InferenceError('timeColumn', `column ${FILLED_TIME_COLUMN} is ${types.get(FILLED_TIME_COLUMN)} in the messages, not epoch milliseconds, and no other column is: name the date-time column`);
    }
    notes.push(`the messages have no epoch-milliseconds column: added ${FILLED_TIME_COLUMN}, which the table template fills with now() at ingestion`);
    return FILLED_TIME_COLUMN;
  }
}

/** A problem with the request itself (a time column or metric the messages lack); `option` says which. */
export class InferenceError extends Error {
  constructor(
    readonly option: 'timeColumn' | 'metrics',
    message: string,
  ) {
    super(message);
  }
}

function kindOf(value: unknown): Seen {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'DOUBLE';
    return value >= INT_MIN && value <= INT_MAX ? 'INT' : 'LONG';
  }
  if (typeof value === 'string') return 'STRING';
  if (typeof value === 'boolean') return 'BOOLEAN';
  return 'JSON';
}

/** The narrowest contract type that holds every value seen; a real conflict is a warning. */
function widen(name: string, column: Column, warnings: string[]): InferredType {
  const seen = column.seen;
  if (seen.size === 0) return 'STRING';
  const numeric = ['INT', 'LONG', 'DOUBLE'].filter((k) => seen.has(k as Seen));
  if (numeric.length === seen.size) return seen.has('DOUBLE') ? 'DOUBLE' : seen.has('LONG') ? 'LONG' : 'INT';
  if (seen.size === 1 && seen.has('STRING')) return 'STRING';
  if (seen.size === 1 && seen.has('JSON')) return 'JSON';
  if (seen.size === 1 && seen.has('BOOLEAN')) {
    warnings.push(`column ${name} is true/false, which the contract's types do not have: typed STRING ("true"/"false")`);
    return 'STRING';
  }
  const samples = [...seen].map(([kind, where]) => `${kind.toLowerCase()} at ${where}`).join(', ');
  const to: InferredType = seen.has('JSON') ? 'JSON' : 'STRING';
  warnings.push(`column ${name} mixes types (${samples}): widened to ${to}`);
  return to;
}

function percent(part: number, whole: number): string {
  return `${Math.round((part / whole) * 100)} %`;
}

/** Whether messages of type `seen` fit a column declared `declared` (for --check). */
export function fits(seen: InferredType, declared: string): boolean {
  if (seen === declared) return true;
  if (declared === 'LONG') return seen === 'INT';
  if (declared === 'DOUBLE' || declared === 'FLOAT') return seen === 'INT' || seen === 'LONG';
  if (declared === 'STRING') return seen !== 'JSON';
  if (declared === 'JSON') return true;
  return false;
}
