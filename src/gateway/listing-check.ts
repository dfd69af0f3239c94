/**
 * The listings' shapes (answer-shapes.ts) checked without zod: a catalog listing of 10,000
 * data sets took zod about 30 ms and a copy of every record, and loading zod (450 KB of the
 * bundle) every command that lists the catalog paid for at start-up (docs/benchmarks.md,
 * "Catalog listing"). Each predicate accepts only what its zod shape accepts; a record it
 * does not accept is checked again by zod, which names the field in the error, word for
 * word as before — so zod is loaded only when an answer is wrong.
 */
import type { ZodType } from 'zod';
import { MAX_LISTING_RECORDS } from '../net/answer-bounds.js';

type Check = (value: unknown) => boolean;

/** A JSON object (never an array): what zod's looseObject and record take. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
const isString: Check = (value) => typeof value === 'string';
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const arrayOf =
  (check: Check): Check =>
  (value) =>
    Array.isArray(value) && value.every(check);
const isLink: Check = (value) => isObject(value) && isString(value.rel) && isString(value.href);
const isLabels: Check = (value) => isObject(value) && Object.values(value).every(isString);

const isCatalogDataSet: Check = (value) =>
  isObject(value) &&
  isString(value.name) &&
  optional(isString)(value.id) &&
  optional(arrayOf((s) => isObject(s) && isString(s.name) && isString(s.id)))(value.storage) &&
  optional(arrayOf(isLink))(value.links) &&
  optional(isLabels)(value.labels) &&
  optional((m) => isObject(m) && optional(isLabels)(m.labels))(value.metadata);

/** The same kinds as answer-shapes.ts's LISTING_SHAPES. */
export const LISTING_CHECKS = {
  dataSets: isCatalogDataSet,
  dataSources: (value: unknown) => isObject(value) && isString(value.id) && isString(value.name) && optional(arrayOf(isLink))(value.links),
  offeredDataSets: (value: unknown) => isObject(value) && isString(value.id) && isString(value.name),
  enablements: (value: unknown) => isObject(value) && isString(value.id) && isString(value.name) && optional(arrayOf(isString))(value.groups) && optional(arrayOf(isLink))(value.links),
} satisfies Record<string, Check>;

export type ListingKind = keyof typeof LISTING_CHECKS;

/** The records of a listing, each checked; anything the quick checks do not accept (or too many records) goes to zod, which refuses it in one line. */
export async function checkedListing<T>(records: unknown[], kind: ListingKind, method: string, url: string): Promise<T[]> {
  const check = LISTING_CHECKS[kind];
  if (records.length <= MAX_LISTING_RECORDS && records.every(check)) return records as T[];
  const shapes = await import('./answer-shapes.js');
  return shapes.checkedListing<unknown>(records, shapes.LISTING_SHAPES[kind] as ZodType<unknown>, method, url) as T[];
}
