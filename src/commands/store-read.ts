/**
 * `dpgw schema get <name>` and `dpgw table get <name>`: what the analytics store holds, as
 * its controller answers through the gateway (assumed endpoints, docs/gateway-api.md):
 * YAML for a person, the store's JSON with --json; the stream password masked either way.
 */
import type { HandlerModule, HandlerOf } from '../cli/command-context.js';
import { dump } from 'js-yaml';
import { DpgwError } from '../errors/dpgw-error.js';
import type { StoreRead } from '../gateway/gateway-client.js';
import type { CommandOutput } from '../output/reporter.js';
import { requireName } from '../names/platform-names.js';
import { maskSecrets } from '../secrets/redaction.js';

function shown(read: StoreRead<Record<string, unknown>>, what: 'schema' | 'table', name: string): CommandOutput {
  if (read.kind === 'not-found') {
    throw new DpgwError('not-found', `the analytics store has no ${what} "${name}"`, {
      where: read.url,
      hint: what === 'schema' ? 'push it with `dpgw schema push <file>`' : 'see what the catalog has with `dpgw catalog datasets`, or create it with `dpgw table create`',
    });
  }
  if (read.kind === 'not-exposed') {
    throw new DpgwError('rejected', `this gateway does not expose reads of the analytics store: GET ${read.url} answered ${read.why}`, {
      hint: 'ask the platform team to pass GET /api/internal/<olap>/schemas/{name} and /tables/{name} on to the store, or check --olap-segment',
    });
  }
  const body = maskSecrets(read.body);
  return { data: body, human: () => dump(body, { lineWidth: -1, noRefs: true }).trimEnd() };
}

const schemaGet: HandlerOf<'schema get'> = async (context) => {
  const name = requireName('schema', context.args[0], '<name>');
  return shown(await (await context.gateway()).getSchema(name), 'schema', name);
};

const tableGet: HandlerOf<'table get'> = async (context) => {
  const name = requireName('table', context.args[0], '<name>');
  return shown(await (await context.gateway()).getTable(name), 'table', name);
};

export const handlers: HandlerModule['handlers'] = { 'schema get': schemaGet, 'table get': tableGet };
