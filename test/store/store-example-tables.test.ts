/**
 * Every realtime table config of the store's own examples (its pinot-tools jar) serves as a
 * dpgw template after `dpgw table template`, and renders with `dpgw table render` against its
 * own example schema with no further edit, keeping every setting the conversion did not replace.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleName, storeExampleFiles } from '../helpers/store-examples.js';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';

/** The example's own schema: in its folder, else the folder above (kafka_2.0/, docker/). */
function schemaOf(config: string): string | undefined {
  for (const folder of [dirname(config), dirname(dirname(config))]) {
    const schema = readdirSync(folder).find((file) => file.endsWith('_schema.json'));
    if (schema) return join(folder, schema);
  }
  return undefined;
}

/** The value without the keys at these paths. */
function without(value: unknown, paths: (string | number)[][]): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  for (const path of paths) {
    let node: Record<string | number, unknown> | undefined = copy;
    for (const part of path.slice(0, -1)) node = node?.[part] as Record<string | number, unknown> | undefined;
    if (node) delete node[path.at(-1)!];
  }
  return copy;
}

describe("the store's own realtime table configs as dpgw templates", () => {
  const files = storeExampleFiles();
  it.each(files.realtimeTableConfigs.map((file) => [exampleName(file), file]))('%s converts and renders with no edit', async (_name, file) => {
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-store-table-'));
    const env = cleanEnv({ DPGW_CONFIG_DIR: folder, DPGW_STREAM_PASSWORD: 'store-example-password' });
    const template = join(folder, 'template.yaml');
    const converted = await runInProcess(['table', 'template', file, '-o', template, '--json'], env);
    expect(converted.code, converted.stderr).toBe(0);
    const { replaced } = JSON.parse(converted.stdout) as { replaced: { field: string }[] };
    const original = JSON.parse(readFileSync(file, 'utf8')) as { segmentsConfig: { timeColumnName: string }; tableIndexConfig?: { streamConfigs?: Record<string, string> }; ingestionConfig?: { streamIngestionConfig?: { streamConfigMaps: Record<string, string>[] } } };
    const stream = original.ingestionConfig?.streamIngestionConfig?.streamConfigMaps[0] ?? original.tableIndexConfig!.streamConfigs!;
    const schema = schemaOf(file);
    expect(schema, 'its example schema').toBeDefined();
    const rendered = await runInProcess(
      ['table', 'render', '--json', '--dataset', 'example', '--topic', 'example-topic', '--schema', schema!, '--template', template, '--stream-type', stream.streamType!, '--broker-list', 'broker:9092', '--stream-user', 'example', '--gateway', 'http://127.0.0.1:9'],
      env,
    );
    expect(rendered.code, rendered.stderr).toBe(0);
    // The rendered table keeps every setting of the original the conversion did not replace.
    // An added key is named as the template writes it (stream.${streamType}.broker.list).
    const paths = (JSON.parse(converted.stdout) as { replaced: { path: (string | number)[] }[] }).replaced.map((entry) => entry.path.map((part) => (typeof part === 'string' ? part.replace('${streamType}', stream.streamType!) : part)));
    // render shows secrets masked (the kinesis example's secretKey): masked values count as kept.
    const masked = JSON.stringify(original).replace(/"(secretKey|[^"]*password[^"]*)":"[^"]*"/gi, '"$1":"***"');
    expect(replaced.length).toBe(paths.length);
    expect(without(JSON.parse(rendered.stdout), paths)).toEqual(without(JSON.parse(masked), paths));
  });
});
