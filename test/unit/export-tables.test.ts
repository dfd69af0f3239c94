/** What a hostile or odd store answers to `dpgw export`: names that are no table names, control characters, tables that cannot be reproduced. */
import { describe, expect, it } from 'vitest';
import type { GatewayClient } from '../../src/gateway/gateway-client.js';
import { exportTables } from '../../src/export/export-tables.js';
import type { TableSettings } from '../../src/olap/build-table.js';
import { trackSchema, trackTable } from '../helpers/track.js';

const TOPIC = 'lib.track.track';
const settings: TableSettings = {
  streamType: 'mq',
  decoderClass: 'org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder',
  consumerFactoryClass: 'org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory',
  brokerList: 'localhost:9092',
  registryUrl: 'http://localhost:8081',
  streamUser: 'stream',
  streamPasswordSet: false,
  retentionDays: '7',
  brokerTenant: 'DefaultTenant',
  serverTenant: 'DefaultTenant',
};

/** A store of these tables (by name: the table as the store holds it), with the track schema, and a catalog with the track data set. */
function gateway(tables: Record<string, Record<string, unknown> | undefined>): GatewayClient {
  const found = <T>(body: T) => ({ kind: 'found' as const, url: 'http://gateway/x', body });
  return {
    listTables: async () => found(Object.keys(tables)),
    getTable: async (name: string) => (tables[name] ? found({ REALTIME: tables[name] }) : { kind: 'not-found', url: 'http://gateway/x', message: '' }),
    getSchema: async () => found(trackSchema() as unknown as Record<string, unknown>),
    listDataSets: async () => [{ name: 'track', storage: [], links: [{ rel: 'self', href: '/datasources/ds1/enablements/en1/datasets/d1' }], labels: { 'platform/dataset': TOPIC } }],
    listDataSources: async () => [{ id: 'ds1', name: 'lib' }],
    listEnablements: async () => [{ id: 'en1', name: 'track', groups: ['readers'] }],
  } as unknown as GatewayClient;
}

const live = (overrides: (table: ReturnType<typeof trackTable>) => void = () => undefined) => trackTable(TOPIC, 'mq', overrides) as unknown as Record<string, unknown>;

describe('dpgw export of what a store answers', () => {
  it('a listed name that is no table name never becomes a file: it is left out, its control characters escaped', async () => {
    const result = await exportTables({ client: gateway({ '../../etc/cron.d/x': live(), 'evil\u001b[2J\nline': live(), track: live() }), table: settings, folderName: 'exported' });
    expect(result.files.map((f) => f.name)).toEqual(['track.schema.yaml', 'provision-manifest.schema.json', 'provision.yaml']);
    expect(result.leftOut.map((t) => t.table)).toEqual(['../../etc/cron.d/x', 'evil\\u001b[2J\\nline']);
    for (const { table, reason } of result.leftOut) {
      // eslint-disable-next-line no-control-regex -- what must not be there
      expect(table + reason).not.toMatch(/[\u0000-\u001f]/);
      expect(reason).toMatch(/^a manifest cannot name it: the table name /);
    }
  });

  it("a tenant every table shares, other than the run's, goes into the manifest's settings; the run's flags and environment keep theirs", async () => {
    const client = gateway({ track: live((t) => (t.tenants.broker = 'Analytics')) });
    const result = await exportTables({ client, table: settings, folderName: 'exported' });
    expect(result.settings).toEqual({ brokerTenant: 'Analytics' });
    expect(result.exported.map((t) => t.table)).toEqual(['track']);
    expect(result.files.at(-1)!.text).toContain('settings:\n  brokerTenant: Analytics\ndataSets:');

    // --broker-tenant or DPGW_BROKER_TENANT beats a manifest's setting: the table is left out with the field instead.
    const chosen = await exportTables({ client, table: settings, folderName: 'exported', runChosen: new Set(['brokerTenant']) });
    expect(chosen.settings).toEqual({});
    expect(chosen.leftOut).toEqual([{ table: 'track', reason: 'a manifest entry would change it under this run\'s settings: ~ tenants.broker: "Analytics" → "DefaultTenant"' }]);
  });

  it("tables that disagree on a setting keep the run's value: the ones it does not make are left out with the fields that differ", async () => {
    const client = gateway({ track: live(), other: live((t) => ((t.tableName = 'other'), (t.tenants.server = 'Heavy'))) });
    const result = await exportTables({ client, table: settings, folderName: 'exported' });
    expect(result.settings).toEqual({});
    expect(result.exported.map((t) => t.table)).toEqual(['track']);
    expect(result.leftOut).toEqual([{ table: 'other', reason: 'a manifest entry would change it under this run\'s settings: ~ tenants.server: "Heavy" → "DefaultTenant"' }]);
  });

  it("a server's value that is no tenant name is never written into the manifest", async () => {
    const result = await exportTables({ client: gateway({ track: live((t) => (t.tenants.broker = 'x\nhealthCheck: true')) }), table: settings, folderName: 'exported' });
    expect(result.settings).toEqual({});
    expect(result.files).toEqual([]);
    expect(result.leftOut[0]!.reason).toContain('~ tenants.broker: "x\\nhealthCheck: true" → "DefaultTenant"');
  });

  it('the stream password is compared as a plan compares it: never shown, never written', async () => {
    const result = await exportTables({ client: gateway({ track: live() }), table: settings, folderName: 'exported' });
    expect(result.leftOut).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('stream-secret-pw');
  });

  it('two tables of one data set: the first is exported, the second left out (a manifest has one table per data set)', async () => {
    const result = await exportTables({ client: gateway({ track: live(), track_copy: live((t) => (t.tableName = 'track_copy')) }), table: settings, folderName: 'exported' });
    expect(result.exported.map((t) => t.table)).toEqual(['track']);
    expect(result.leftOut).toEqual([{ table: 'track_copy', reason: 'its data set track (enablement track) is exported with table track already, and a manifest provisions one table per data set' }]);
  });

  it('a --table the store does not list: exit 9, the nearest name suggested', async () => {
    await expect(exportTables({ client: gateway({ track: live() }), table: settings, folderName: 'exported', tables: ['trak'] })).rejects.toMatchObject({ errorCode: 'TABLE_NOT_FOUND', exitCode: 9, message: 'the analytics store has no table trak', hint: 'did you mean "track"?' });
  });

  it('a store that lists tables but does not pass their reads on: one line, exit 3', async () => {
    const client = { ...gateway({ track: live() }), getTable: async () => ({ kind: 'not-exposed', url: 'http://gateway/api/internal/olap/tables/track', why: '501' }) } as unknown as GatewayClient;
    await expect(exportTables({ client, table: settings, folderName: 'exported' })).rejects.toMatchObject({ errorCode: 'STORE_READS_NOT_EXPOSED', exitCode: 3, message: 'this gateway does not expose reads of the analytics store: GET http://gateway/api/internal/olap/tables/track answered 501' });
  });

  it('a store without the listing: one line naming the endpoint, exit 3', async () => {
    const client = { listTables: async () => ({ kind: 'not-exposed', url: 'http://gateway/api/internal/olap/tables', why: '405' }) } as unknown as GatewayClient;
    await expect(exportTables({ client, table: settings, folderName: 'exported' })).rejects.toMatchObject({ errorCode: 'STORE_READS_NOT_EXPOSED', exitCode: 3, message: "this gateway does not list the analytics store's tables: GET http://gateway/api/internal/olap/tables answered 405" });
  });
});
