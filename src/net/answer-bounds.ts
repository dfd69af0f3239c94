/**
 * How much of a server's answers dpgw keeps, in one place (docs/secrets.md, "Answers"):
 * far above what any gateway, identity provider, query engine or dashboard tool needs to
 * send, far below what exhausts a CI runner's memory. Past a bound an answer is refused in
 * one line (exit 3), never half read.
 */

/** The most of one answer dpgw reads, after decompression; a JSON text this size parses to a few hundred MB at most. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The most one client (the gateway's, the identity provider's, …) reads in all in one run: 2,000 data sets
 * provisioned read well under 50 MB of answers; a server answering 500 KB to each request stops here instead of
 * filling the runner's memory.
 */
export const MAX_RUN_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * The most records dpgw keeps of one catalog listing (data sources, enablements, offered
 * or enabled data sets). Each data source of a listing may cost a request of its own
 * (its enablements), so the bound is on requests as much as on memory.
 */
export const MAX_LISTING_RECORDS = 20_000;

/** How many requests a fan-out over a listing (one per data source) keeps in flight. */
export const LISTING_FAN_OUT = 8;

/**
 * How deep an answer's JSON may nest. Nothing dpgw reads nests past a dozen levels; an answer 20,000 levels deep
 * parses (JSON.parse does not recurse) but overflows the stack of whatever walks it next (a schema's rendering,
 * JSON.stringify of `--json`), so it is refused on arrival instead.
 */
export const MAX_ANSWER_DEPTH = 100;

/** Whether a parsed JSON value nests deeper than `limit` levels (a scalar is 0, `{}` and `[]` are 1); walked without recursion. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const at = values.pop();
    const depth = depths.pop()! + 1;
    if (at === null || typeof at !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(at) ? at : Object.values(at)) {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth);
      }
    }
  }
  return false;
}
