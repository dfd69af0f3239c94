/**
 * Sampled messages held against a schema before its table is made: the costliest failure
 * of a realtime table is silent — it consumes, and a column stays empty forever because the
 * schema says `objtype` where the messages say `objType`, or a value the store cannot read
 * as the column's type is dropped. The store raises no error for either.
 *
 * What fits follows the analytics store's own conversion of a JSON value to a column's type
 * (docs/tables.md, "Messages held against the schema"): numbers and numeric text fit number
 * columns, anything scalar fits a STRING column, anything fits JSON; null is a missing value,
 * never a misfit.
 */
import type { AnalyticsSchema } from '../contract/types.js';
import { schemaColumns } from '../olap/schema-validation.js';
import { closestMatch } from '../text/closest-match.js';

export interface MissingColumn {
  column: string;
  /** A field of the messages that differs only in case or by a small edit. */
  likely?: string;
}

export interface MistypedColumn {
  column: string;
  dataType: string;
  /** One value that does not fit, as JSON (shortened). */
  example: string;
  /** Where that value is: topic/partition@offset. */
  where: string;
}

export interface FitReport {
  messages: number;
  missing: MissingColumn[];
  mistyped: MistypedColumn[];
  /** Fields the messages carry that the schema lacks: not stored. */
  extra: string[];
}

const EXAMPLE_LENGTH = 40;

export class MessageFit {
  private readonly columns: Map<string, string>;
  private readonly carried = new Set<string>();
  private readonly misfits = new Map<string, MistypedColumn>();
  private readonly extra = new Set<string>();
  private count = 0;

  /**
   * `derived`: columns the table fills itself (its ingestion transforms, such as the time
   * column filled with now()), which no message needs to carry.
   */
  constructor(
    schema: AnalyticsSchema,
    private readonly derived: ReadonlySet<string>,
  ) {
    this.columns = new Map([...schemaColumns(schema)].map(([name, { dataType }]) => [name, dataType]));
  }

  get messages(): number {
    return this.count;
  }

  observe(message: Record<string, unknown>, where: string): void {
    this.count++;
    for (const [field, value] of Object.entries(message)) {
      const dataType = this.columns.get(field);
      if (dataType === undefined) {
        this.extra.add(field);
        continue;
      }
      this.carried.add(field);
      if (value === null || value === undefined || this.misfits.has(field)) continue;
      if (!fitsColumn(value, dataType)) this.misfits.set(field, { column: field, dataType, example: exampleOf(value), where });
    }
  }

  result(): FitReport {
    const fields = [...this.extra];
    const missing = [...this.columns.keys()]
      .filter((column) => !this.carried.has(column) && !this.derived.has(column))
      .map((column) => {
        const likely = closestMatch(column, fields);
        return likely === undefined ? { column } : { column, likely };
      });
    // A field that a missing column likely meant is named there, not again as an extra.
    const meant = new Set(missing.map((m) => m.likely).filter((field) => field !== undefined));
    return { messages: this.count, missing, mistyped: [...this.misfits.values()], extra: fields.filter((field) => !meant.has(field)) };
  }
}

/** Whether the store reads a JSON value as a column of `dataType`. */
export function fitsColumn(value: unknown, dataType: string): boolean {
  // An array is a multi-value column's value: each of its values must fit.
  if (Array.isArray(value) && dataType !== 'JSON') return value.every((item) => item === null || (!Array.isArray(item) && fitsColumn(item, dataType)));
  switch (dataType) {
    case 'JSON':
      return true;
    case 'STRING':
      return typeof value !== 'object';
    case 'INT':
    case 'LONG':
      return typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value));
    case 'FLOAT':
    case 'DOUBLE':
    case 'BIG_DECIMAL':
      return typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    case 'BOOLEAN':
      return typeof value === 'boolean' || typeof value === 'number' || (typeof value === 'string' && /^\s*(true|false|0|1)\s*$/i.test(value));
    case 'TIMESTAMP':
      return typeof value === 'number' || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
    default:
      // A type dpgw has no rule for (BYTES, …): not judged.
      return true;
  }
}

function exampleOf(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > EXAMPLE_LENGTH ? `${text.slice(0, EXAMPLE_LENGTH - 1)}…` : text;
}
