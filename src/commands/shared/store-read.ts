/**
 * What `dpgw schema get <name>` and `dpgw table get <name>` show: what the analytics store holds,
 * as its controller answers through the gateway (assumed endpoints, docs/gateway-api.md):
 * YAML for a person, the store's JSON with --json; the stream password masked either way. A
 * multi-line value is one double-quoted scalar (`"a\n::error …"`): as a block its lines
 * would stand at the start of lines of the log (a CI runner trims their indent).
 */
import { DpgwError } from '../../errors/dpgw-error.js';
import type { GatewayClient, StoreRead } from '../../gateway/gateway-client.js';
import type { CommandOutput } from '../../output/reporter.js';
import { yamlLines } from '../../output/document-lines.js';
import { requireName } from '../../names/platform-names.js';
import { maskSecrets } from '../../secrets/redaction.js';

function shown(read: StoreRead<Record<string, unknown>>, what: 'schema' | 'table', name: string): CommandOutput {
  if (read.kind === 'not-found') {
    throw new DpgwError(what === 'schema' ? 'SCHEMA_NOT_FOUND' : 'TABLE_NOT_FOUND', `the analytics store has no ${what} "${name}"`, {
      where: read.url,
      hint: what === 'schema' ? 'push it with `dpgw schema push <file>`' : 'see what the catalog has with `dpgw catalog datasets`, or create it with `dpgw table create`',
    });
  }
  if (read.kind === 'not-exposed') {
    throw new DpgwError('STORE_READS_NOT_EXPOSED', `this gateway does not expose reads of the analytics store: GET ${read.url} answered ${read.why}`, {
      hint: 'ask the platform team to pass GET /api/internal/<olap>/schemas/{name} and /tables/{name} on to the store, or check --olap-segment',
    });
  }
  const body = maskSecrets(read.body);
  return { data: body, human: () => yamlLines(body) };
}

/** The schema or table of that name, as the store holds it. */
export async function shownFromStore(gateway: () => Promise<GatewayClient>, what: 'schema' | 'table', given: string): Promise<CommandOutput> {
  const name = requireName(what, given, '<name>');
  const client = await gateway();
  return shown(what === 'schema' ? await client.getSchema(name) : await client.getTable(name), what, name);
}
