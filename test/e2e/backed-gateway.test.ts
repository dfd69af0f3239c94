/**
 * The contract's workflow with real systems behind the gateway: tokens from the
 * real Keycloak, topics on the real Kafka (the sandbox in backed mode). The
 * analytics store is still the sandbox's until Pinot joins the tier.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseJaasOptions } from '../../src/olap/jaas-config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';

const keycloak = inject('keycloak');
const kafka = inject('kafka');
const { Kafka, logLevel } = kafkajs;
let sandbox: Sandbox;

beforeAll(async () => {
  const issuer = `${keycloak.authUrl}/auth/realms/${keycloak.realm}`;
  sandbox = await startSandbox({
    topicDelayMs: 0,
    backing: {
      identity: { issuer, jwksUri: `${issuer}/protocol/openid-connect/certs` },
      kafka: { brokers: [kafka.brokerList], username: kafka.streamUser, password: kafka.streamPassword },
    },
  });
});
afterAll(() => sandbox.close());

function kafkaClient(password = kafka.streamPassword) {
  return new Kafka({ clientId: 'dpgw-e2e', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password }, logLevel: logLevel.NOTHING, retry: { retries: 1 } });
}

describe(`provisioning with Keycloak ${keycloak.version} tokens and Kafka ${kafka.version} topics`, () => {
  it('provisions the track data set: a real token, a real topic fed by a SCRAM producer', async () => {
    const env = cleanEnv({
      DPGW_GATEWAY: sandbox.gatewayUrl,
      DPGW_AUTH_URL: keycloak.authUrl,
      DPGW_REALM: keycloak.realm,
      DPGW_CLIENT_ID: keycloak.clientId,
      DPGW_CLIENT_SECRET: keycloak.clientSecret,
      DPGW_USERNAME: 'admin',
      DPGW_PASSWORD: keycloak.users.find((u) => u.username === 'admin')!.password,
      DPGW_STREAM_TYPE: 'kafka',
      DPGW_BROKER_LIST: kafka.brokerList,
      DPGW_REGISTRY_URL: 'http://127.0.0.1:8081',
      DPGW_STREAM_USER: kafka.streamUser,
    });
    const passwordFile = join(env.DPGW_CONFIG_DIR!, 'stream-password');
    writeFileSync(passwordFile, kafka.streamPassword, { mode: 0o600 });
    const result = await spawnDpgw(['provision', join(ROOT, 'examples/track/provision.yaml'), '--json', '--stream-password', `file:${passwordFile}`], { env });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.dataSets[0]).toMatchObject({ dataset: 'track', status: 'done', topic: 'mock-data-library.track.track' });
    expect(result.stderr).toContain('signed in as admin');

    // The topic exists on Kafka, and the stream user of the table definition can write to it.
    const admin = kafkaClient().admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toContain('mock-data-library.track.track');
    } finally {
      await admin.disconnect();
    }
    const stored = sandbox.store.tables.get('track')!.definition.tableIndexConfig.streamConfigs;
    expect(stored['stream.kafka.broker.list']).toBe(kafka.brokerList);
    const jaas = parseJaasOptions(stored['sasl.jaas.config']!);
    const producer = kafkaClient(jaas.password).producer();
    await producer.connect();
    try {
      const sent = await producer.send({ topic: stored['stream.kafka.topic.name']!, messages: [{ value: JSON.stringify({ id: 'track-1', lat: 52.1, lon: 4.3, time: Date.now() }) }] });
      expect(sent[0]!.errorCode).toBe(0);
    } finally {
      await producer.disconnect();
    }
  });

  it('the gateway refuses a token Keycloak did not sign', async () => {
    const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_TOKEN: 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln' });
    const result = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', 'g', '--dry-run'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('401 Unauthorized');
  });
});
