/**
 * What a user sees, command by command: a walk through the contract's steps on the sandbox,
 * each command's whole output (stdout, then stderr, and the exit code) a file snapshot in
 * __snapshots__/output/, so a review shows a changed line as a user would meet it. Ports,
 * ids, times and temporary folders are the sandbox's own draw and are replaced by <port>,
 * <id>, <time> and <tmp>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox({ topicDelayMs: 0 });
  env = { ...(await adminPipelineEnv(sandbox)), COLUMNS: '100' };
});
afterAll(async () => {
  await sandbox?.close();
});

function normalised(text: string): string {
  return text
    .replaceAll(env.DPGW_CONFIG_DIR!, '<config>')
    .replaceAll(env.XDG_CACHE_HOME!, '<cache>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?/g, '<time>')
    .replace(/\b\d+(\.\d+)? (ms|s)\b/g, '<duration>');
}

// In the order of the contract's workflow, so each step finds what the ones before it made.
const WALK: ReadonlyArray<{ name: string; argv: string[] }> = [
  { name: 'health', argv: ['health'] },
  { name: 'catalog-sources', argv: ['catalog', 'sources'] },
  { name: 'catalog-offers', argv: ['catalog', 'offers', '--datasource', 'mock-data-library'] },
  { name: 'enable', argv: ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP] },
  { name: 'catalog-enablements', argv: ['catalog', 'enablements'] },
  { name: 'catalog-datasets', argv: ['catalog', 'datasets'] },
  { name: 'schema-validate', argv: ['schema', 'validate', 'examples/track/schema.yaml'] },
  { name: 'schema-push', argv: ['schema', 'push', 'examples/track/schema.yaml'] },
  { name: 'schema-get', argv: ['schema', 'get', 'track'] },
  { name: 'table-render', argv: ['table', 'render', '--dataset', 'track', '--schema', 'examples/track/schema.yaml'] },
  { name: 'table-create', argv: ['table', 'create', '--dataset', 'track', '--schema', 'examples/track/schema.yaml', '--wait-consuming', '10'] },
  { name: 'table-get', argv: ['table', 'get', 'track'] },
  { name: 'storage-touch', argv: ['storage', 'touch', '--dataset', 'track'] },
  { name: 'catalog-show', argv: ['catalog', 'show', 'track'] },
  { name: 'access-control-render', argv: ['access-control', 'render', '--policy-uri', 'http://opa:8181/v1/data/dpgw/query_access/allow'] },
  { name: 'config-path', argv: ['config', 'path'] },
  { name: 'table-create-again', argv: ['table', 'create', '--dataset', 'track', '--schema', 'examples/track/schema.yaml'] },
  { name: 'schema-get-missing', argv: ['schema', 'get', 'nothing-here'] },
];

describe('the output of each command, as a user sees it', () => {
  for (const { name, argv } of WALK) {
    it(`dpgw ${argv.join(' ')}`, async () => {
      const result = await runInProcess(argv, env);
      const shown = `$ dpgw ${argv.join(' ')}\n${normalised(result.stdout)}${result.stderr ? `--- stderr\n${normalised(result.stderr)}` : ''}--- exit ${result.code}\n`;
      await expect(shown).toMatchFileSnapshot(`__snapshots__/output/${name}.txt`);
    });
  }
});
