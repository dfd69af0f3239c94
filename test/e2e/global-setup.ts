/**
 * The end-to-end tier's platform: the real components, started once for the
 * whole tier. Today: Keycloak. A component that cannot be had fails the tier.
 */
import { createServer, type AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed at its use
import { KEYCLOAK_VERSION, startKeycloak } from '../../scripts/platform/keycloak.mjs';
// @ts-expect-error -- likewise
import { startKafka } from '../../scripts/platform/kafka.mjs';
// @ts-expect-error -- likewise
import { startPinot } from '../../scripts/platform/pinot.mjs';

export interface KeycloakSettings {
  authUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  webClientId: string;
  webClientSecret: string;
  users: Array<{ username: string; password: string; groups: string[] }>;
  version: string;
  startSeconds: number;
}

export interface KafkaSettings {
  brokerList: string;
  streamUser: string;
  streamPassword: string;
  version: string;
  startSeconds: number;
}

export interface PinotSettings {
  controller: string;
  broker: string;
  version: string;
  startSeconds: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    keycloak: KeycloakSettings;
    kafka: KafkaSettings;
    pinot: PinotSettings;
  }
}

/** A port on 127.0.0.1 that nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  console.log('[e2e] to start the parts by hand: npm run platform:keycloak | npm run platform:kafka | npm run platform:pinot (docs/e2e.md)');
  const keycloak = await startKeycloak({ port: Number(process.env.DPGW_KEYCLOAK_PORT ?? (await freePort())) });
  const { stop, ...settings } = keycloak;
  console.log(`[e2e] Keycloak ${KEYCLOAK_VERSION} started in ${settings.startSeconds.toFixed(1)} s at ${settings.authUrl} (log ${settings.log})`);
  project.provide('keycloak', { ...settings, version: KEYCLOAK_VERSION });
  let kafka;
  try {
    kafka = await startKafka({ port: await freePort(), controllerPort: await freePort() });
  } catch (error) {
    await stop();
    throw error;
  }
  const { stop: stopKafka, ...kafkaSettings } = kafka;
  console.log(`[e2e] Kafka ${kafkaSettings.version} started in ${kafkaSettings.startSeconds.toFixed(1)} s at ${kafkaSettings.brokerList} (log ${kafkaSettings.log})`);
  project.provide('kafka', kafkaSettings);
  let pinot;
  try {
    pinot = await startPinot();
  } catch (error) {
    await Promise.all([stop(), stopKafka()]);
    throw error;
  }
  const { stop: stopPinot, ...pinotSettings } = pinot;
  console.log(`[e2e] Pinot ${pinotSettings.version} started in ${pinotSettings.startSeconds.toFixed(1)} s, controller ${pinotSettings.controller}, broker ${pinotSettings.broker} (log ${pinotSettings.log})`);
  project.provide('pinot', pinotSettings);
  return async () => {
    await Promise.all([stop(), stopKafka(), stopPinot()]);
  };
}
