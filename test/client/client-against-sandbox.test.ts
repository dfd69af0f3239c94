/** dpgw's typed client against the sandbox: the contract workflow end to end over real HTTP. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultStorageOf, selfHrefOf, topicOf } from '../../src/catalog/data-set-facts.js';
import { GatewayClient } from '../../src/gateway/gateway-client.js';
import { GatewayError } from '../../src/gateway/gateway-error.js';
import { startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { tokenFor } from '../helpers/sandbox-http.js';
import { trackSchema, trackTable } from '../helpers/track.js';

let sandbox: Sandbox;
let client: GatewayClient;
beforeAll(async () => {
  sandbox = await startSandbox();
  const token = await tokenFor(sandbox, 'admin');
  client = new GatewayClient({ baseUrl: sandbox.gatewayUrl, tokenSupplier: async () => token });
});
afterAll(async () => {
  client.close();
  await sandbox.close();
});

it('enables track, pushes schema and table, touches storage, in the documented order', async () => {
  const source = (await client.listDataSources()).find((s) => s.name === 'mock-data-library')!;
  expect((await client.listOfferedDataSets(source.id)).map((d) => d.name)).toContain('track');
  const enablement = (await client.createEnablement(source.id, { name: 'tracks', groups: [TRACK_GROUP] }))!;
  expect((await client.enableDataSet(source.id, enablement.id, 'track')).status).toBe(202);
  const [dataSet] = await client.listDataSets();
  const topic = topicOf(dataSet!)!;
  expect(topic).toBe('mock-data-library.tracks.track');

  expect((await client.createSchema(trackSchema())).status).toBe(200);
  expect((await client.createTable(trackTable(topic))).status).toBe(200);
  const touched = await client.touchStorage(selfHrefOf(dataSet!)!, defaultStorageOf(dataSet!)!.id);
  expect(touched.body).toMatchObject({ permissions: [{ table: 'track', groups: [TRACK_GROUP] }] });
  expect(await client.platformVersion()).toBe('1.15.164');
  expect((await client.health()).record.status).toBe('UP');

  const again = await client.createTable(trackTable(topic)).catch((e: unknown) => e);
  expect(again).toBeInstanceOf(GatewayError);
  expect((again as GatewayError).status).toBe(409);
  expect((again as GatewayError).bodyShape).toBe('store');
  // One kept-alive connection served the whole sequence.
  expect(sandbox.connections().gateway).toBe(1);
});
