/**
 * The analytics schema from the messages themselves, as an expert of the store writes it:
 * each column's type from the values seen (numbers as written), lists of values as
 * multi-value columns, dimensions and metrics, and the date-time column with the unit or
 * date pattern its values show. Messages are observed one at a time, so the input can be
 * streamed; only per-column tallies are kept.
 *
 * The rules follow the store's own inference from a JSON document (pinot-spi's
 * JsonUtils.inferPinotSchemaFromJsonNode and JsonUtils.valueOf): a value node's type from
 * Jackson's node type (int, long, double, boolean, else string); a list of value nodes a
 * multi-value column of their type; a list of objects one JSON column. Where the store
 * flattens an object into `a.b` columns, dpgw keeps it one JSON column (see
 * docs/schema-infer.md, "Nested objects"): flattening needs the table's complexTypeConfig.
 */
import { DATE_TIME_DEFAULTS } from '../contract/constants.js';
import type { AnalyticsSchema, DateTimeFieldSpec, FieldSpec } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { columnNameProblem } from '../olap/schema-validation.js';
import { commonPattern, dateTextForm, type DateTextForm } from './date-text-forms.js';

export type InferredType = 'STRING' | 'INT' | 'LONG' | 'DOUBLE' | 'BOOLEAN' | 'JSON';
type Seen = InferredType;

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** Java's long: an integer beyond it is no LONG (Jackson reads it as a BigInteger); dpgw makes it DOUBLE. */
const LONG_LIMIT = 2 ** 63;
/** The column the table template fills with now() when the messages have none. */
export const FILLED_TIME_COLUMN = 'time';

const DAY_MS = 86_400_000;
/**
 * The plausible range of a time column's values: from 1990-01-01 to a day after now. A unit or
 * pattern is chosen only when it puts every value in it; a declared column it does not fit is warned about.
 */
const PLAUSIBLE_FROM_MS = Date.UTC(1990, 0, 1);

/** Epoch units by how many milliseconds one is, tried in this order (their plausible ranges do not overlap). */
const EPOCH_UNITS = [
  { unit: 'MILLISECONDS', ms: 1, name: 'epoch milliseconds' },
  { unit: 'SECONDS', ms: 1000, name: 'epoch seconds' },
  { unit: 'MICROSECONDS', ms: 1e-3, name: 'epoch microseconds' },
  { unit: 'NANOSECONDS', ms: 1e-6, name: 'epoch nanoseconds' },
  { unit: 'DAYS', ms: DAY_MS, name: 'epoch days' },
] as const;
type EpochUnit = (typeof EPOCH_UNITS)[number];
/** Day numbers (near 7,300 to 20,000) look like many counts and ids; they are taken for time only under a name that says so, or when declared. */
const DAY_NAME = /day|date/i;

interface Column {
  /** Messages that carried the column (null included). */
  present: number;
  nulls: number;
  /** The types of its single values, each with where it was first seen. */
  seen: Map<Seen, string>;
  /** The types of the elements of its lists (JSON for an object or a list in a list). */
  elements: Map<Seen, string>;
  lists: number;
  objects: number;
  /** Its integers' range (single values), for epoch units. */
  min: number;
  max: number;
  /** Every text value is a date of one pattern (undefined: no text yet; null: not so). */
  date: { pattern: string; unit: DateTextForm['unit']; min: number; max: number } | null | undefined;
  /** Every text value is a JSON object or list written as text (undefined: no text yet). */
  jsonText: boolean | undefined;
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
  /** Each column's type as the messages show it (before the date-time choice); a multi-value column's is its elements' type. */
  types: Map<string, InferredType>;
  /** The columns made multi-value (lists of values). */
  multiValue: ReadonlySet<string>;
  notes: string[];
  warnings: string[];
  messages: number;
}

/** A dimension as inferred: `singleValueField: false` for a list column, as the store's FieldSpec writes it. */
export type InferredFieldSpec = FieldSpec & { singleValueField?: boolean };

/** A column's type as inferred: its type, and whether it holds lists of values. */
interface Typed {
  type: InferredType;
  multiValue: boolean;
}

/** How a column holds time: an epoch unit, or a date pattern; with its values' first and last instant. */
type TimeForm = ({ kind: 'epoch'; epoch: EpochUnit } | { kind: 'text'; pattern: string; unit: DateTextForm['unit'] }) & { fromMs: number; toMs: number };

export class SchemaInference {
  private readonly columns = new Map<string, Column>();
  private count = 0;

  get messages(): number {
    return this.count;
  }

  /**
   * One message (a JSON object) and where it came from, for the warnings. `decimals` names the
   * fields whose number was written with a fraction or exponent (read-messages.ts): `1500.00`
   * is a DOUBLE, as the store's Jackson reads it, though JSON.parse made it 1500.
   */
  observe(message: Record<string, unknown>, where: string, decimals?: ReadonlySet<string>): void {
    this.count++;
    for (const [name, value] of Object.entries(message)) {
      let column = this.columns.get(name);
      if (!column) this.columns.set(name, (column = { present: 0, nulls: 0, seen: new Map(), elements: new Map(), lists: 0, objects: 0, min: Infinity, max: -Infinity, date: undefined, jsonText: undefined }));
      column.present++;
      if (value === null || value === undefined) {
        column.nulls++;
        continue;
      }
      const writtenDecimal = decimals?.has(name) === true;
      if (Array.isArray(value)) {
        column.lists++;
        for (const element of value) {
          if (element === null || element === undefined) continue;
          const kind = typeof element === 'object' ? 'JSON' : kindOf(element, writtenDecimal);
          if (!column.elements.has(kind)) column.elements.set(kind, where);
        }
        continue;
      }
      if (typeof value === 'object') column.objects++;
      const kind = kindOf(value, writtenDecimal);
      if (!column.seen.has(kind)) column.seen.set(kind, where);
      if (kind === 'INT' || kind === 'LONG') {
        column.min = Math.min(column.min, value as number);
        column.max = Math.max(column.max, value as number);
      } else if (typeof value === 'string') observeText(column, value);
    }
  }

  /** Each column's type as the messages show it, before a time column or metrics are chosen (`dpgw init` lists them). */
  columnTypes(): Map<string, InferredType> {
    const ignored: string[] = [];
    return new Map([...this.columns].map(([name, column]) => [name, typeOf(name, column, ignored, ignored).type]));
  }

  result(options: InferOptions): Inferred {
    const notes: string[] = [];
    const warnings: string[] = [];
    const typed = new Map<string, Typed>();
    // A field the store cannot take as a column stops here, named escaped and where a message has it — before
    // any warning or note shows the raw name, and before the schema text, whose position would be no help.
    for (const [name, column] of this.columns) {
      const problem = columnNameProblem(name);
      if (problem === undefined) continue;
      throw new DpgwError('MESSAGE_FIELD_INVALID', `a message field cannot be a column: ${problem}`, {
        where: firstWhere(column),
        hint: 'rename the field where the messages are produced, or infer from messages without it; nothing was written',
      });
    }
    for (const [name, column] of this.columns) {
      typed.set(name, typeOf(name, column, notes, warnings));
      if (column.seen.size === 0 && column.lists === 0) warnings.push(`column ${name} is null in every message (${column.nulls}); typed STRING — check it`);
      if (column.present < this.count) notes.push(`column ${name} is in ${column.present} of ${this.count} messages (${percent(column.present, this.count)})`);
    }
    const types = new Map([...typed].map(([name, { type }]) => [name, type]));
    const multiValue = new Set([...typed].filter(([, { multiValue }]) => multiValue).map(([name]) => name));

    const time = this.chooseTimeColumn(options, typed, notes, warnings);
    const metrics = new Set(options.metrics ?? []);
    for (const metric of metrics) {
      const column = typed.get(metric);
      if (column === undefined) throw new InferenceError('metrics', `${metric}: no such column in the messages (they have ${[...types.keys()].join(', ')})`);
      if (column.type !== 'INT' && column.type !== 'LONG' && column.type !== 'DOUBLE') throw new InferenceError('metrics', `${metric}: a metric must be numeric, and the messages make it ${column.type}`);
      // MetricFieldSpec is single-valued (the store's JsonUtils.addFieldToPinotSchema: "Metric field … cannot be multi-valued").
      if (column.multiValue) throw new InferenceError('metrics', `${metric}: the messages hold lists in it, and a metric holds one value`);
    }
    const dimensions: InferredFieldSpec[] = [];
    const metricSpecs: FieldSpec[] = [];
    for (const [name, { type: dataType, multiValue: multi }] of typed) {
      if (name === time.name) continue;
      if (multi) dimensions.push({ name, dataType, singleValueField: false });
      else if (dataType === 'DOUBLE' || metrics.has(name)) metricSpecs.push({ name, dataType });
      else dimensions.push({ name, dataType });
    }
    const schema: AnalyticsSchema = {
      schemaName: options.name,
      ...(dimensions.length ? { dimensionFieldSpecs: dimensions } : {}),
      ...(metricSpecs.length ? { metricFieldSpecs: metricSpecs } : {}),
      dateTimeFieldSpecs: [time.spec],
    };
    return { schema, types, multiValue, notes, warnings, messages: this.count };
  }

  /** The columns whose values all read as plausible times in one form, best first: what `dpgw init` offers as the time column. */
  timeColumnChoices(now = Date.now()): Array<{ name: string; holds: string }> {
    const ignored: string[] = [];
    const typed = new Map([...this.columns].map(([name, column]) => [name, typeOf(name, column, ignored, ignored)]));
    return this.timeCandidates(typed, { fromMs: PLAUSIBLE_FROM_MS, toMs: now + DAY_MS }).map(({ name, form }) => ({ name, holds: `${formName(form)}, ${day(form.fromMs)} to ${day(form.toMs)}` }));
  }

  /** The undeclared time columns, ranked: the column the template would fill, then epoch integers (which the store compares as numbers), then dates as text. */
  private timeCandidates(typed: Map<string, Typed>, plausible: { fromMs: number; toMs: number }): Array<{ name: string; form: TimeForm; type: InferredType }> {
    const candidates: Array<{ name: string; form: TimeForm; type: InferredType }> = [];
    for (const [name, column] of this.columns) {
      const type = typed.get(name)!;
      if (type.multiValue) continue;
      const form = timeFormOf(name, column, type.type, plausible, { declared: false });
      if (form !== undefined && form.fromMs >= plausible.fromMs && form.toMs <= plausible.toMs) candidates.push({ name, form, type: type.type });
    }
    return candidates.sort((a, b) => rank(a) - rank(b));
  }

  private chooseTimeColumn(options: InferOptions, typed: Map<string, Typed>, notes: string[], warnings: string[]): { name: string; spec: DateTimeFieldSpec } {
    const now = options.now ?? Date.now();
    const plausible = { fromMs: PLAUSIBLE_FROM_MS, toMs: now + DAY_MS };
    const declared = options.timeColumn;
    if (declared !== undefined) {
      const column = this.columns.get(declared);
      const type = typed.get(declared);
      if (column === undefined || type === undefined) throw new InferenceError('timeColumn', `${declared}: no such column in the messages (they have ${[...typed.keys()].join(', ')})`);
      if (type.multiValue) throw new InferenceError('timeColumn', `${declared}: the messages hold lists in it, and a date-time column holds one value`);
      const form = timeFormOf(declared, column, type.type, plausible, { declared: true });
      if (form === undefined) {
        throw new InferenceError('timeColumn', `${declared}: the messages make it ${type.type}; a date-time column holds epoch integers (milliseconds, seconds, microseconds, nanoseconds or days) or dates as text (such as 2024-05-01 or 2024-05-01T12:00:00Z)`);
      }
      if (form.fromMs < plausible.fromMs || form.toMs > plausible.toMs) {
        warnings.push(`column ${declared}, read as ${formName(form)}, runs from ${day(form.fromMs)} to ${day(form.toMs)}, outside ${day(plausible.fromMs)} to ${day(plausible.toMs)}: check that it is the time column and its unit`);
      } else notes.push(`column ${declared} holds ${formName(form)} (${day(form.fromMs)} to ${day(form.toMs)}): the date-time column, ${formatOf(form)}`);
      return { name: declared, spec: specOf(declared, type.type, form) };
    }
    const candidates = this.timeCandidates(typed, plausible);
    const chosen = candidates[0];
    if (chosen !== undefined) {
      const held = `${formName(chosen.form)} (${day(chosen.form.fromMs)} to ${day(chosen.form.toMs)})`;
      if (candidates.length === 1) notes.push(`column ${chosen.name} holds ${held}: the date-time column, ${formatOf(chosen.form)}`);
      else warnings.push(`columns ${candidates.map((c) => c.name).join(', ')} all hold times; ${chosen.name}, which holds ${held}, is the date-time column, ${formatOf(chosen.form)} (choose with --time-column)`);
      return { name: chosen.name, spec: specOf(chosen.name, chosen.type, chosen.form) };
    }
    if (typed.has(FILLED_TIME_COLUMN)) {
      throw new InferenceError('timeColumn', `column ${FILLED_TIME_COLUMN} is ${typed.get(FILLED_TIME_COLUMN)!.type} in the messages, and neither it nor any other column holds times from ${day(plausible.fromMs)} to ${day(plausible.toMs)}: name the date-time column`);
    }
    notes.push(`the messages have no column of times (epoch integers or dates as text, from ${day(plausible.fromMs)} to ${day(plausible.toMs)}): added ${FILLED_TIME_COLUMN}, which the table template fills with now() at ingestion`);
    return { name: FILLED_TIME_COLUMN, spec: { name: FILLED_TIME_COLUMN, ...DATE_TIME_DEFAULTS } };
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

/** A single value's type: a number as written (a fraction or exponent makes a DOUBLE), an integer by its size. */
function kindOf(value: unknown, writtenDecimal: boolean): Seen {
  if (typeof value === 'number') {
    if (writtenDecimal || !Number.isInteger(value) || Math.abs(value) >= LONG_LIMIT) return 'DOUBLE';
    return value >= INT_MIN && value <= INT_MAX ? 'INT' : 'LONG';
  }
  if (typeof value === 'string') return 'STRING';
  // JsonUtils.valueOf: a boolean node is BOOLEAN.
  if (typeof value === 'boolean') return 'BOOLEAN';
  return 'JSON';
}

/** Keeps what a column's texts have in common: one date pattern, or JSON text. */
function observeText(column: Column, text: string): void {
  if (column.date !== null) {
    const form = dateTextForm(text);
    const pattern = form && (column.date === undefined ? form.pattern : commonPattern(column.date.pattern, form.pattern));
    if (form === undefined || pattern === undefined) column.date = null;
    else if (column.date === undefined) column.date = { pattern, unit: form.unit, min: form.epochMs, max: form.epochMs };
    else column.date = { pattern, unit: column.date.unit, min: Math.min(column.date.min, form.epochMs), max: Math.max(column.date.max, form.epochMs) };
  }
  if (column.jsonText !== false) column.jsonText = isJsonText(text);
}

/** An object or a list written as text (the store's batch githubEvents schema takes such fields as JSON columns). */
function isJsonText(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first !== 0x7b && first !== 0x5b) return false;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object';
  } catch {
    return false;
  }
}

/** A column's type: the narrowest that holds every value seen, lists as multi-value columns; a real conflict is a warning. */
function typeOf(name: string, column: Column, notes: string[], warnings: string[]): Typed {
  if (column.lists > 0) {
    // JsonUtils.inferPinotSchemaFromJsonNode: a list of objects (or lists) is one JSON column, a list of values a multi-value column.
    if (column.elements.has('JSON') || column.seen.has('JSON')) {
      notes.push(`column ${name} holds lists of objects: one JSON column`);
      return { type: 'JSON', multiValue: false };
    }
    const kinds = new Map([...column.elements, ...[...column.seen].filter(([kind]) => !column.elements.has(kind))]);
    if (kinds.size === 0) {
      warnings.push(`column ${name} holds only empty lists (${column.lists}); typed STRING, multi-value — check it`);
      return { type: 'STRING', multiValue: true };
    }
    if (column.seen.size > 0) notes.push(`column ${name} holds lists in ${column.lists} messages and single values in others: multi-value (the store reads a single value as a list of one)`);
    return { type: widen(name, kinds, warnings), multiValue: true };
  }
  if (column.objects > 0 && column.seen.size === 1) notes.push(`column ${name} holds objects: kept as one JSON column, not flattened (see docs/schema-infer.md, "Nested objects")`);
  const type = widen(name, column.seen, warnings);
  if (type === 'STRING' && column.jsonText === true && column.date == null) {
    notes.push(`column ${name} holds JSON objects written as text: one JSON column`);
    return { type: 'JSON', multiValue: false };
  }
  return { type, multiValue: false };
}

/** The narrowest type that holds every kind seen; a real conflict is a warning naming where each kind was first seen. */
function widen(name: string, seen: Map<Seen, string>, warnings: string[]): InferredType {
  if (seen.size === 0) return 'STRING';
  const numeric = ['INT', 'LONG', 'DOUBLE'].filter((k) => seen.has(k as Seen));
  if (numeric.length === seen.size) return seen.has('DOUBLE') ? 'DOUBLE' : seen.has('LONG') ? 'LONG' : 'INT';
  if (seen.size === 1) return [...seen.keys()][0]!;
  const samples = [...seen].map(([kind, where]) => `${kind === 'BOOLEAN' ? 'true/false' : kind.toLowerCase()} at ${where}`).join(', ');
  const to: InferredType = seen.has('JSON') ? 'JSON' : 'STRING';
  warnings.push(`column ${name} mixes types (${samples}): widened to ${to}`);
  return to;
}

/**
 * How a column holds time, if it can: integers in the epoch unit that puts them all in the
 * plausible range (day numbers only under a name with "day" or "date", or declared; declared
 * integers no unit fits are read as milliseconds, and warned about); text dates of one pattern.
 */
function timeFormOf(name: string, column: Column, type: InferredType, plausible: { fromMs: number; toMs: number }, { declared }: { declared: boolean }): TimeForm | undefined {
  if ((type === 'INT' || type === 'LONG') && column.min <= column.max) {
    const fits = EPOCH_UNITS.find((epoch) => (epoch.unit !== 'DAYS' || declared || DAY_NAME.test(name)) && column.min * epoch.ms >= plausible.fromMs && column.max * epoch.ms <= plausible.toMs);
    const epoch = fits ?? (declared ? EPOCH_UNITS[0] : undefined);
    return epoch && { kind: 'epoch', epoch, fromMs: column.min * epoch.ms, toMs: column.max * epoch.ms };
  }
  if (type === 'STRING' && column.date) return { kind: 'text', pattern: column.date.pattern, unit: column.date.unit, fromMs: column.date.min, toMs: column.date.max };
  return undefined;
}

function rank(candidate: { name: string; form: TimeForm }): number {
  if (candidate.name === FILLED_TIME_COLUMN) return 0;
  return candidate.form.kind === 'epoch' ? 1 : 2;
}

function formName(form: TimeForm): string {
  return form.kind === 'epoch' ? form.epoch.name : `dates as text (${form.pattern})`;
}

/** The store's colon form: `1:<unit>:EPOCH`, or `1:<unit>:SIMPLE_DATE_FORMAT:<pattern>` (DateTimeFormatSpec splits at most four parts, so the pattern keeps its colons). */
function formatOf(form: TimeForm): string {
  return form.kind === 'epoch' ? `1:${form.epoch.unit}:EPOCH` : `1:${form.unit}:SIMPLE_DATE_FORMAT:${form.pattern}`;
}

function specOf(name: string, type: InferredType, form: TimeForm): DateTimeFieldSpec {
  // Epoch milliseconds as the contract writes them; day numbers keep their INT (the store's airlineStats: DaysSinceEpoch INT 1:DAYS:EPOCH).
  if (form.kind === 'epoch' && form.epoch.unit === 'MILLISECONDS') return { name, ...DATE_TIME_DEFAULTS };
  const dataType = form.kind === 'text' ? 'STRING' : form.epoch.unit === 'DAYS' && type === 'INT' ? 'INT' : 'LONG';
  const unit = form.kind === 'epoch' ? form.epoch.unit : form.unit;
  return { name, dataType, notNull: false, format: formatOf(form), granularity: `1:${unit}` };
}

function day(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString().slice(0, 10);
}

function firstWhere(column: Column): string | undefined {
  return column.seen.values().next().value ?? column.elements.values().next().value;
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
