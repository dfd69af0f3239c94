/**
 * The diff against what the store reads back, on the answers measured on the real
 * Pinot 0.11 (test/fixtures/pinot-0.11-reads.json): the table and schema dpgw sent come
 * back with strings for numbers, a type suffix, defaults and no notNull, and still
 * compare equal; a real change, a secret change and a removed column do not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../src/contract/types.js';
import { diffSchema, diffTable, isCompatible, schemaDiffLines, tableDiffLines } from '../../src/olap/live-diff.js';
import { ROOT } from '../helpers/run-dpgw.js';
import { trackSchema, trackTable } from '../helpers/track.js';

const measured = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/pinot-0.11-reads.json'), 'utf8')) as { table: Record<string, unknown>; schema: Record<string, unknown> };

/** The table that was POSTed before the measurement, as dpgw fills it. */
function sentTable(change: (table: RealtimeTableDefinition) => void = () => undefined): RealtimeTableDefinition {
  const held = (measured.table.REALTIME as { tableIndexConfig: { streamConfigs: Record<string, string> } }).tableIndexConfig.streamConfigs;
  return trackTable(held['stream.kafka.topic.name']!, 'kafka', (table) => {
    table.tableName = 'measure';
    table.segmentsConfig.schemaName = 'measure';
    table.segmentsConfig.retentionTimeValue = 30;
    table.tableIndexConfig.streamConfigs = { ...held };
    change(table);
  });
}

describe('diffTable against Pinot 0.11', () => {
  it('what was sent compares equal to what the store holds, defaults and all', () => {
    expect(diffTable(sentTable(), measured.table)).toEqual([]);
  });

  it('retention 30 → 60 is one change, shown as the user wrote it', () => {
    const changes = diffTable(sentTable((t) => (t.segmentsConfig.retentionTimeValue = 60)), measured.table);
    expect(changes).toEqual([{ path: 'segmentsConfig.retentionTimeValue', keys: ['segmentsConfig', 'retentionTimeValue'], change: '~', from: '30', to: 60 }]);
    expect(tableDiffLines(changes)).toEqual(['~ segmentsConfig.retentionTimeValue: "30" → 60']);
  });

  it('a different stream password is a difference, and never printed', () => {
    const changes = diffTable(sentTable((t) => (t.tableIndexConfig.streamConfigs['sasl.jaas.config'] = t.tableIndexConfig.streamConfigs['sasl.jaas.config']!.replace('stream-password-1', 'stream-password-2'))), measured.table);
    expect(changes).toHaveLength(1);
    const [line] = tableDiffLines(changes);
    expect(line).toMatch(/^~ tableIndexConfig\.streamConfigs\["sasl\.jaas\.config"\]: .*password=\\"\*\*\*\\".* \(sensitive value differs\)$/);
    expect(line).not.toContain('stream-password');
  });

  it("a store's JAAS line with a client secret besides its password shows neither", () => {
    const live = structuredClone(measured.table) as { REALTIME: { tableIndexConfig: { streamConfigs: Record<string, string> } } };
    live.REALTIME.tableIndexConfig.streamConfigs['sasl.jaas.config'] = 'x required username="u" password="old" clientSecret="TOPSECRET";';
    const lines = tableDiffLines(diffTable(sentTable(), live));
    expect(lines.join('\n')).toContain('clientSecret=\\"***\\"');
    expect(lines.join('\n')).not.toMatch(/TOPSECRET|old/);
  });
});

describe('diffSchema against Pinot 0.11', () => {
  const sent = (): AnalyticsSchema => ({ ...trackSchema(), schemaName: 'measure' });

  it('the schema that was sent (notNull and all) compares equal', () => {
    const diff = diffSchema(sent(), measured.schema);
    expect(schemaDiffLines(diff)).toEqual([]);
    expect(isCompatible(diff)).toBe(true);
  });

  it('a column added is compatible; one removed or retyped is not', () => {
    const added = sent();
    added.dimensionFieldSpecs = [...added.dimensionFieldSpecs!, { name: 'speed', dataType: 'DOUBLE' }];
    expect(schemaDiffLines(diffSchema(added, measured.schema))).toEqual(['+ speed: DOUBLE (dimension)']);
    expect(isCompatible(diffSchema(added, measured.schema))).toBe(true);

    const removed = sent();
    removed.metricFieldSpecs = removed.metricFieldSpecs!.filter((c) => c.name !== 'alt');
    expect(schemaDiffLines(diffSchema(removed, measured.schema))).toEqual(['- alt: DOUBLE (metric)']);
    expect(isCompatible(diffSchema(removed, measured.schema))).toBe(false);

    const retyped = sent();
    retyped.dimensionFieldSpecs = retyped.dimensionFieldSpecs!.map((c) => (c.name === 'asset' ? { ...c, dataType: 'LONG' } : c));
    expect(schemaDiffLines(diffSchema(retyped, measured.schema))).toEqual(['~ asset: INT (dimension) → LONG (dimension)']);
    expect(isCompatible(diffSchema(retyped, measured.schema))).toBe(false);
  });
});

describe("the store's side of a difference is shown as text", () => {
  it('a column name, type or table value with a line break, C1 or U+2028 is one escaped line, compared as sent', () => {
    const held = { ...trackSchema(), dimensionFieldSpecs: [...(trackSchema().dimensionFieldSpecs ?? []), { name: 'zz\n::error::x', dataType: 'STRING\u2028' }] };
    expect(schemaDiffLines(diffSchema(trackSchema(), held))).toEqual(['- zz\\n::error::x: STRING\\u2028 (dimension)']);
    const lines = tableDiffLines(diffTable(sentTable(), { ...measured.table, REALTIME: { ...(measured.table.REALTIME as object), tableName: 'x\u2028\u009by' } }));
    expect(lines).toEqual(['~ tableName: "x\\u2028\\u009by" → "measure"']);
  });
});
