/** The --json document written in pieces is JSON.stringify(value, null, 2), byte for byte. */
import { describe, expect, it } from 'vitest';
import { jsonChunks } from '../../src/output/json-chunks.js';
import { redactedJson, redactingReplacer, registerSecret } from '../../src/secrets/redaction.js';

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

  it('masked as it writes (redactedJson): what JSON.stringify writes with the redacting replacer; values and keys redacted as values, the JSON whole', () => {
    const jaas = 'x required username="u" password="p\\"w";';
    const summary = { plan: [{ difference: [`~ sasl: ${JSON.stringify(jaas)} → ${JSON.stringify('x password=ab"cd;')}`], live: jaas }], top: 'Bearer abc.def', 'password=k': 1 };
    const text = [...jsonChunks(summary, redactedJson)].join('');
    expect(text).toBe(JSON.stringify(summary, redactingReplacer, 2));
    const parsed = JSON.parse(text);
    expect(parsed.plan[0].live).toBe('x required username="u" password="***";');
    expect(parsed.plan[0].difference[0]).not.toMatch(/p\\\\"w|ab/);
    expect(parsed.top).toBe('Bearer ***');
    expect(Object.keys(parsed)).toContain('password=***');
  });

  it('a document without the word password is masked on its text: registered secrets (in their JSON-escaped form too) and bearer tokens, the JSON whole', () => {
    registerSecret('s3cr"et\\x');
    const records = [{ name: 'track', note: 'token s3cr"et\\x here', auth: 'Bearer abc.def' }];
    const text = [...jsonChunks({ records }, redactedJson)].join('');
    expect(JSON.parse(text)).toEqual({ records: [{ name: 'track', note: 'token *** here', auth: 'Bearer ***' }] });
  });
});
