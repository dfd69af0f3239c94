// The real message stream for the end-to-end tier: Apache Kafka in KRaft
// single-node mode from its Maven Central artifacts (resolved with Maven into
// ~/.cache/dpgw/kafka-<version>/lib), with one SASL_PLAINTEXT listener using
// SCRAM-SHA-512 and the internal stream user created when the storage is formatted.
//
//   node scripts/platform/kafka.mjs start    # prints the settings as JSON; stays in front
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd, runUntilReady, serveInFront } from './component-process.mjs';
import { javaHome } from './keycloak.mjs';

export const KAFKA_VERSION = process.env.DPGW_KAFKA_VERSION ?? '3.9.1';
const READY_TIMEOUT_MS = Number(process.env.DPGW_KAFKA_READY_TIMEOUT_MS ?? 120_000);
const secret = () => randomBytes(15).toString('base64url');

/** Resolves the broker's jars (once) with Maven from Maven Central; returns the lib folder. */
export async function kafkaLibraries(version = KAFKA_VERSION) {
  const cache = join(homedir(), '.cache', 'dpgw', `kafka-${version}`);
  const lib = join(cache, 'lib');
  if (existsSync(join(lib, `kafka_2.13-${version}.jar`))) return lib;
  mkdirSync(cache, { recursive: true });
  writeFileSync(
    join(cache, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>dpgw.e2e</groupId><artifactId>kafka-runtime</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${version}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
`,
  );
  const mvn = await runToEnd('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`, '-DincludeScope=runtime'], { cwd: cache });
  if (mvn.status !== 0) throw new Error(`Maven could not resolve Kafka ${version}: ${mvn.stdout}\n${mvn.stderr}`);
  return lib;
}

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Formats a fresh storage with the SCRAM users and starts the broker; returns its settings and a stop function. */
export async function startKafka({ port = 19092, controllerPort = 19093, streamUser = 'dpgw-stream' } = {}) {
  const lib = await kafkaLibraries();
  const java = join(javaHome(), 'bin', 'java');
  const classpath = `${lib}/*`;
  const dir = mkdtempSync(join(tmpdir(), 'dpgw-kafka-'));
  const brokerPassword = secret();
  const streamPassword = secret();
  const jaas = (user, password) => `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`;
  writeFileSync(
    join(dir, 'server.properties'),
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=SASL_PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=SASL_PLAINTEXT://127.0.0.1:${port}`,
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=SASL_PLAINTEXT',
      'sasl.enabled.mechanisms=SCRAM-SHA-512',
      'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
      `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=${jaas('broker', brokerPassword)}`,
      `log.dirs=${join(dir, 'data')}`,
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'log4j.properties'), 'log4j.rootLogger=INFO, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\nlog4j.appender.stdout.layout=org.apache.log4j.PatternLayout\nlog4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n');
  const log4j = `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`;
  const clusterId = spawnSync(java, [log4j, '-cp', classpath, 'kafka.tools.StorageTool', 'random-uuid'], { encoding: 'utf8' }).stdout.trim().split('\n').pop();
  // The SCRAM users exist from the first start: the broker's own and the internal stream user.
  const format = spawnSync(
    java,
    [log4j, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', join(dir, 'server.properties'), '--add-scram', `SCRAM-SHA-512=[name=broker,password=${brokerPassword}]`, '--add-scram', `SCRAM-SHA-512=[name=${streamUser},password=${streamPassword}]`],
    { encoding: 'utf8' },
  );
  if (format.status !== 0) throw new Error(`cannot format Kafka's storage: ${format.stdout}\n${format.stderr}`);

  const log = join(dir, 'kafka.log');
  const { stop, startSeconds } = await runUntilReady({
    name: `Kafka ${KAFKA_VERSION}`,
    command: java,
    args: ['-Xms64m', '-Xmx512m', log4j, '-cp', classpath, 'kafka.Kafka', join(dir, 'server.properties')],
    log,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => readFileSync(log, 'utf8').includes('Kafka Server started') && (await portOpen(port)),
    intervalMs: 250,
  });
  return { brokerList: `127.0.0.1:${port}`, streamUser, streamPassword, version: KAFKA_VERSION, log, startSeconds, stop };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'start') await serveInFront(`Kafka ${KAFKA_VERSION}`, () => startKafka());
