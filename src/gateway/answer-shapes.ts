/**
 * The shapes of the gateway's answers dpgw acts on, checked before anything reads them:
 * a record whose `links` is no list, a number where a name belongs or a null label ends
 * in one line naming the endpoint and the field, never in a type error deep inside a
 * step. Tolerant as docs/gateway-api.md promises: fields dpgw does not read may be
 * anything, and fields the contract does not show may be missing; a field dpgw reads has
 * the type it reads.
 */
import { z } from 'zod';
import type { CatalogDataSet, CatalogDataSource, Enablement, HealthRecord, OfferedDataSet } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { MAX_LISTING_RECORDS } from '../net/answer-bounds.js';
import { serverText } from '../text/terminal-text.js';

const link = z.looseObject({ rel: z.string(), href: z.string() });
const labels = z.record(z.string(), z.string());

export const catalogDataSetShape = z.looseObject({
  name: z.string(),
  id: z.string().optional(),
  storage: z.array(z.looseObject({ name: z.string(), id: z.string() })).optional(),
  links: z.array(link).optional(),
  labels: labels.optional(),
  metadata: z.looseObject({ labels: labels.optional() }).optional(),
});

export const catalogDataSourceShape = z.looseObject({ id: z.string(), name: z.string(), links: z.array(link).optional() });
export const offeredDataSetShape = z.looseObject({ id: z.string(), name: z.string() });
export const enablementShape = z.looseObject({ id: z.string(), name: z.string(), groups: z.array(z.string()).optional(), links: z.array(link).optional() });

const healthShape: z.ZodType<HealthRecord> = z.lazy(() =>
  z.looseObject({
    status: z.string(),
    components: z.record(z.string(), healthShape).optional(),
    groups: z.array(z.string()).optional(),
  }),
);

/** What a listing holds, by endpoint kind. */
export const LISTING_SHAPES = {
  dataSets: catalogDataSetShape as unknown as z.ZodType<CatalogDataSet>,
  dataSources: catalogDataSourceShape as unknown as z.ZodType<CatalogDataSource>,
  offeredDataSets: offeredDataSetShape as unknown as z.ZodType<OfferedDataSet>,
  enablements: enablementShape as unknown as z.ZodType<Enablement>,
};

/** The records of a listing, each checked; more than MAX_LISTING_RECORDS are refused, not kept. */
export function checkedListing<T>(records: unknown[], shape: z.ZodType<T>, method: string, url: string): T[] {
  if (records.length > MAX_LISTING_RECORDS) {
    throw new DpgwError('ANSWER_TOO_LARGE', `${method} ${pathOf(url)} answered ${records.length} records, more than the ${MAX_LISTING_RECORDS} dpgw keeps of one listing`, {
      hint: 'the gateway is not the one dpgw expects, or the catalog is larger than dpgw is built for (docs/secrets.md, "Answers")',
      details: { url, records: records.length, limit: MAX_LISTING_RECORDS },
    });
  }
  const parsed = z.array(shape).safeParse(records);
  if (!parsed.success) throw unusable(method, url, 'a record', parsed.error);
  // The records as answered (the check's copies are garbage at once): a listing is kept once, not twice.
  return records as T[];
}

/** A health record, checked. */
export function checkedHealth(record: object, method: string, url: string): HealthRecord {
  const parsed = healthShape.safeParse(record);
  if (!parsed.success) throw unusable(method, url, 'a health record', parsed.error);
  return parsed.data;
}

function unusable(method: string, url: string, what: string, error: z.ZodError): DpgwError {
  const issue = error.issues[0]!;
  const field = fieldOf(issue.path.filter((part): part is string | number => typeof part !== 'symbol'));
  return new DpgwError('ANSWER_UNUSABLE', `${method} ${pathOf(url)} answered ${what} dpgw cannot use: ${field || '(the answer)'}: ${serverText(issue.message)}`, {
    hint: 'the gateway is not the one dpgw expects there, or its answers changed; nothing was sent on the strength of it — check --gateway, or ask the platform\'s operators',
    details: { url, field },
  });
}

/** `[0].labels["catalog.example/dataset"]`: the path of a field as a reader writes it. */
export function fieldOf(path: ReadonlyArray<string | number>): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `${index === 0 ? '' : '.'}${part}` : `[${serverText(JSON.stringify(part))}]`))
    .join('');
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}
