/**
 * The deep table checks (src/olap/table-config-checks.ts) held against the store's own example
 * table configs and their schemas, read from its pinot-tools jar: the store creates every one of
 * them, so none may be refused; and one of its upsert tables, with its schema's primary key taken
 * out, is refused as the store refuses it.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../src/contract/types.js';
import { parseLocatedDocument } from '../../src/olap/located-document.js';
import { tableConfigIssues } from '../../src/olap/table-config-checks.js';
import { exampleName, storeExampleFiles } from '../helpers/store-examples.js';

const files = storeExampleFiles();
const schemas = files.schemas.map((file) => ({ file, schema: JSON.parse(readFileSync(file, 'utf8')) as AnalyticsSchema }));

/** A config's schema: the one of its table's name beside it, or the only one; else the same in the folder above (kafka_2.0/, docker/). */
function schemaOf(configFile: string, config: { tableName: string; segmentsConfig?: { schemaName?: string } }): AnalyticsSchema {
  for (const folder of [dirname(configFile), dirname(dirname(configFile))]) {
    const beside = schemas.filter(({ file }) => dirname(file) === folder);
    const found = beside.find(({ schema }) => schema.schemaName === (config.segmentsConfig?.schemaName ?? config.tableName)) ?? (beside.length === 1 ? beside[0] : undefined);
    if (found) return found.schema;
  }
  throw new Error(`no schema for ${exampleName(configFile)}`);
}

function issuesOf(file: string, schema?: AnalyticsSchema) {
  const document = parseLocatedDocument(readFileSync(file, 'utf8'), file);
  const config = document.value as RealtimeTableDefinition;
  return tableConfigIssues(config, schema ?? schemaOf(file, config), (path) => document.at(path));
}

describe("the store's own example tables, checked against their schemas", () => {
  it.each([...files.realtimeTableConfigs, ...files.offlineTableConfigs].map((file) => [exampleName(file), file]))('%s: nothing refused', (_name, file) => {
    const problems = issuesOf(file).filter((issue) => issue.severity !== 'warning');
    expect(problems).toEqual([]);
  });

  it('an upsert example whose schema lost its primary key is refused, as the store refuses it', () => {
    const file = files.realtimeTableConfigs.find((name) => name.endsWith('upsertMeetupRsvp_realtime_table_config.json'))!;
    const config = JSON.parse(readFileSync(file, 'utf8')) as RealtimeTableDefinition;
    const { primaryKeyColumns, ...keyless } = schemaOf(file, config) as AnalyticsSchema & { primaryKeyColumns?: string[] };
    expect(primaryKeyColumns?.length).toBeGreaterThan(0);
    expect(issuesOf(file, keyless as AnalyticsSchema).map((issue) => issue.message)).toContain(`an upsert table needs primary key columns: schema ${keyless.schemaName} has no primaryKeyColumns`);
  });
});
