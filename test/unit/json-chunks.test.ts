/** The --json document written in pieces is JSON.stringify(value, null, 2), byte for byte. */
import { describe, expect, it } from 'vitest';
import { jsonChunks } from '../../src/output/json-chunks.js';

const same = (value: unknown) => expect([...jsonChunks(value)].join('')).toBe(JSON.stringify(value, null, 2));

describe('jsonChunks', () => {
  it('writes a summary-shaped object like JSON.stringify, an element of each array at a time', () => {
    const summary = {
      manifest: 'm.yaml',
      ok: true,
      skipped: undefined,
      dataSets: Array.from({ length: 3 }, (_, i) => ({ dataset: `ds${i}`, steps: [{ step: 'enable', detail: 'a\nb "quoted"' }], error: undefined, nested: { empty: [], none: {} } })),
      empty: [],
      nothing: null,
      health: { status: 'UP', components: { gateway: { status: 'UP' } } },
      holes: [1, undefined, () => 0, 'x'],
    };
    same(summary);
    const chunks = [...jsonChunks(summary)];
    expect(chunks.filter((chunk) => chunk.includes('"dataset"'))).toHaveLength(3);
  });

  it('matches JSON.stringify for anything else too', () => {
    for (const value of [{}, [], [1, 2], 'text', 42, null, { a: [] }, { a: { b: [1, { c: 2 }] } }, { d: new Date(0) }, Object.create(null)]) same(value);
  });
});
