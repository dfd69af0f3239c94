import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LISTING_SHAPES } from '../../src/gateway/answer-shapes.js';
import { checkedListing, LISTING_CHECKS, type ListingKind } from '../../src/gateway/listing-check.js';

// The quick checks stand in for zod on the listings: each may accept only what its zod shape accepts.
const link = { rel: 'self', href: '/datasources/a/enablements/b/datasets/c' };
const samples: unknown[] = [
  { name: 'n' },
  { name: 'n', id: 'i', storage: [{ name: 'default', id: 's' }], links: [link], labels: { 'x/dataset': 't' }, metadata: { labels: { a: 'b' } }, extra: [1, null] },
  { id: 'i', name: 'n', groups: ['g'], links: [link] },
  { id: 'i', name: 'n', groups: [] },
  { id: 'i', name: 'n', links: [] },
  null,
  [],
  'text',
  { name: 1 },
  { name: 'n', id: null },
  { name: 'n', storage: [{ name: 'default' }] },
  { name: 'n', storage: {} },
  { name: 'n', links: [{ rel: 'self' }] },
  { name: 'n', links: [null] },
  { name: 'n', labels: { a: 1 } },
  { name: 'n', labels: [] },
  { name: 'n', metadata: { labels: null } },
  { name: 'n', metadata: [] },
  { id: 'i', name: 'n', groups: [1] },
  { id: 'i', name: 'n', groups: 'g' },
  { id: 1, name: 'n' },
  JSON.parse('{ "name": "n", "__proto__": { "x": 1 }, "labels": { "__proto__": "y" } }'),
];

describe('listing checks without zod', () => {
  for (const kind of Object.keys(LISTING_CHECKS) as ListingKind[]) {
    it(`${kind}: accepts only what zod accepts`, () => {
      for (const sample of samples) {
        if (LISTING_CHECKS[kind](sample)) expect(z.array(LISTING_SHAPES[kind] as z.ZodType).safeParse([sample]).success, JSON.stringify(sample)).toBe(true);
      }
    });
  }

  it('accepts a valid listing as answered, and refuses a wrong one with zod\'s words', async () => {
    const records = [{ name: 'a', links: [link] }, { name: 'b' }];
    await expect(checkedListing(records, 'dataSets', 'GET', 'http://gw/api/v2/catalog/x')).resolves.toBe(records);
    await expect(checkedListing([{ name: 'a' }, { name: 'b', links: [{ rel: 'self', href: 3 }] }], 'dataSets', 'GET', 'http://gw/api/v2/catalog/x')).rejects.toThrow(
      /^GET \/api\/v2\/catalog\/x answered a record dpgw cannot use: \[1\]\.links\[0\]\.href: /,
    );
  });
});
