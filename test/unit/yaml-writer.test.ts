/**
 * Every YAML file dpgw writes reads back as the values written (issue 46 §3): names and values
 * made of what YAML readers take another way — YAML 1.1 words, indicators, number look-alikes,
 * line breaks, controls, bidirectional controls, astral characters — go through each writer
 * (schema file, `dpgw export`'s manifest, `dpgw init`'s manifest, `dpgw table template`'s
 * config, whose keys are the config's own) and are read back with the
 * parser dpgw reads manifests and schemas with (olap/located-document.ts), and with a YAML 1.1
 * reader (what other tools may open the files with): the same values, every time.
 * A small seeded generator, not a library: the same cases on every run, a failing seed named.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { AnalyticsSchema } from '../../src/contract/types.js';
import { manifestText, type ExportedTable } from '../../src/export/export-tables.js';
import { initManifestText, type InitManifest } from '../../src/init/init-manifest.js';
import { yamlFileDocument, yamlFileText } from '../../src/output/yaml-file.js';
import { parseLocatedDocument } from '../../src/olap/located-document.js';
import { schemaYaml } from '../../src/schema-inference/schema-text.js';
import { seededRandom } from '../../src/sandbox/http-kit.js';

const CASES = 2_000;

/** mulberry32 (the sandbox's seeded generator): values in [0, 1). */
const prng = seededRandom;

/** Pieces a YAML reader may take for something other than text, alone or inside a value. */
const ATOMS = [
  // YAML 1.1 and 1.2 words
  ...['yes', 'no', 'on', 'off', 'y', 'n', 'Y', 'N', 'Yes', 'NO', 'On', 'OFF', 'null', 'Null', 'NULL', '~', 'true', 'True', 'TRUE', 'false', 'False', '=', '<<'],
  // numbers as text
  ...['010', '0o17', '0b101', '0x1F', '1e3', '1E-3', '.5', '-.inf', '.inf', '.Inf', '.NaN', '.nan', '+1', '-0', '1_000', '1:20', '1:20:30.5', '190:20:30', '0.9e-3', '2001-12-14', '2001-12-14t21:59:43.10-05:00', '12:30', '6.8523015e+5'],
  // indicators and what ends a value or a line
  ...['#', ' #', '# ', ': ', ':', '-', '- ', '?', '? ', '&a', '*a', '!tag', '!!str', '|', '>', '%YAML', '@', '`', "'", '"', '\\', '[', ']', '{', '}', ',', '---', '...', ' ', '  '],
  // line breaks, tabs, controls, the characters a reader refuses raw, bidirectional controls
  ...['\t', '\n', '\r', '\r\n', '\u0000', '\u0007', '\u001b[2J', '\u007f', '\u0085', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '\u202e', '\u2066', '\u200b'],
  // astral characters and a lone surrogate half
  ...['😀', '𝔘', '\ud83d', '\ude00'],
  // ordinary text
  ...['track', 'a', 'Ab', 'x_1', 'dpgw.manifest', 'name'],
];

function generator(seed: number) {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  /** One atom alone a third of the time (`yes` must survive as itself), else 2 to 4 joined. */
  const text = (): string => (random() < 0.34 ? pick(ATOMS) : Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(ATOMS)).join(''));
  const texts = (max: number): string[] => Array.from({ length: Math.floor(random() * (max + 1)) }, text);
  return { random, text, texts };
}

/** The value as dpgw reads it, and as a YAML 1.1 reader does: both must be the written values. */
function readBack(text: string, file: string): { dpgw: unknown; yaml11: unknown } {
  return { dpgw: parseLocatedDocument(text, file).value, yaml11: parse(text, { version: '1.1' }) };
}

function expectReadBack(text: string, file: string, expected: unknown, seed: number): void {
  let read: ReturnType<typeof readBack>;
  try {
    read = readBack(text, file);
  } catch (error) {
    throw new Error(`seed ${seed}: ${file} does not parse (${(error as Error).message.split('\n')[0]}):\n${JSON.stringify(text)}`);
  }
  expect(read.dpgw, `seed ${seed}: dpgw's reader, ${file}:\n${JSON.stringify(text)}`).toEqual(expected);
  expect(read.yaml11, `seed ${seed}: a YAML 1.1 reader, ${file}:\n${JSON.stringify(text)}`).toEqual(expected);
}

describe('every YAML writer of dpgw, read back', () => {
  it(`a schema file: ${CASES} generated schemas read back as written`, () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { random, text, texts } = generator(seed);
      const column = () => ({ name: text(), dataType: text() });
      const schema: AnalyticsSchema = { schemaName: text() };
      if (random() < 0.8) schema.dimensionFieldSpecs = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.3 ? { ...column(), singleValueField: false } : column()));
      if (random() < 0.5) schema.metricFieldSpecs = [column()];
      if (random() < 0.5) schema.dateTimeFieldSpecs = [{ ...column(), notNull: random() < 0.5, format: text(), granularity: text() }];
      const written = schemaYaml(schema, texts(3));
      const expected = {
        ...schema,
        ...(schema.dateTimeFieldSpecs ? { dateTimeFieldSpecs: schema.dateTimeFieldSpecs.map((spec) => ({ ...spec, notNull: spec.notNull === true })) } : {}),
      };
      expectReadBack(written, 'schema.yaml', expected, seed);
    }
  });

  it(`dpgw export's manifest: ${CASES} generated exports read back as written`, () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { random, text, texts } = generator(seed);
      const entries = Array.from({ length: 1 + Math.floor(random() * 2) }, () => {
        const dataset = text();
        const enablement = random() < 0.5 ? dataset : text();
        const tableSettings: ExportedTable['tableSettings'] = {};
        if (random() < 0.5) tableSettings.name = text();
        if (random() < 0.5) tableSettings.timeColumn = text();
        if (random() < 0.5) tableSettings.retentionDays = 1 + Math.floor(random() * 1000);
        return { table: 't', schema: 't', schemaFile: text(), origin: { datasource: text(), dataset, enablement, groups: texts(3) }, tableSettings } as unknown as ExportedTable;
      });
      const settings = random() < 0.5 ? { brokerTenant: text(), decoderClass: text() } : {};
      const name = random() < 0.5 ? text() : undefined;
      const expected = {
        version: 1,
        ...(name !== undefined ? { name } : {}),
        ...(Object.keys(settings).length ? { settings } : {}),
        dataSets: entries.map(({ origin, schemaFile, tableSettings }) => ({
          datasource: origin.datasource,
          dataset: origin.dataset,
          ...(origin.enablement !== origin.dataset ? { enablement: origin.enablement } : {}),
          ...(origin.groups.length ? { groups: origin.groups } : {}),
          schema: schemaFile,
          ...(Object.keys(tableSettings).length ? { table: tableSettings } : {}),
        })),
      };
      expectReadBack(manifestText(entries, settings, name), 'provision.yaml', expected, seed);
    }
  });

  it(`dpgw init's manifest: ${CASES} generated manifests read back as written, their comments no values`, () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { random, text, texts } = generator(seed);
      const because = () => (random() < 0.5 ? text() : undefined);
      const manifest: InitManifest = {
        dataSource: text(),
        dataSet: text(),
        enablement: { value: text(), exists: random() < 0.5, chosenBecause: because() },
        groups: texts(3),
        schema: random() < 0.5 ? { file: text(), from: text() } : { infer: random() < 0.5 ? {} : { timeColumn: text(), metrics: texts(2) } },
        table: { value: text(), chosenBecause: because() },
        retentionDays: { value: 1 + Math.floor(random() * 1000), chosenBecause: because() },
        ...(random() < 0.5 ? { name: text() } : {}),
      };
      const expected = {
        version: 1,
        ...(manifest.name !== undefined ? { name: manifest.name } : {}),
        dataSets: [
          {
            datasource: manifest.dataSource,
            dataset: manifest.dataSet,
            enablement: manifest.enablement.value,
            ...(manifest.groups.length ? { groups: manifest.groups } : {}),
            schema: 'infer' in manifest.schema ? { infer: manifest.schema.infer } : manifest.schema.file,
            table: { name: manifest.table.value, retentionDays: manifest.retentionDays.value },
          },
        ],
      };
      expectReadBack(initManifestText(manifest, text()), 'provision.yaml', expected, seed);
    }
  });

  it(`dpgw table template's writer: ${CASES} generated configs, keys as well as values, read back as written`, () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { random, text, texts } = generator(seed);
      const leaf = (): unknown => [() => text(), () => Math.floor(random() * 2000) - 1000, () => random() < 0.5, () => null, () => texts(3)][Math.floor(random() * 5)]!();
      const map = (depth: number): Record<string, unknown> => Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 4) }, () => [text(), depth > 0 && random() < 0.4 ? map(depth - 1) : leaf()]));
      const config = map(2);
      expectReadBack(yamlFileText(yamlFileDocument(config, texts(2))), 'template.yaml', config, seed);
    }
  });
});
