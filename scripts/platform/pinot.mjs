// The real analytics store for the end-to-end tier: Apache Pinot from its Maven
// Central artifacts (0.11.0, the newest published there), assembled with Maven into
// ~/.cache/dpgw/pinot-<version>/lib, run as `PinotAdministrator QuickStart -type EMPTY`
// (ZooKeeper, controller, broker and server in one JVM) with the Kafka 2.0 and JSON
// plugins on the classpath.
//
//   node scripts/platform/pinot.mjs start    # prints the settings as JSON; stays in front
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd, runUntilReady, serveInFront } from './component-process.mjs';
import { javaHome } from './keycloak.mjs';

export const PINOT_VERSION = process.env.DPGW_PINOT_VERSION ?? '0.11.0';
const READY_TIMEOUT_MS = Number(process.env.DPGW_PINOT_READY_TIMEOUT_MS ?? 240_000);
// Artifacts pinot-tools names that are not on Maven Central (Confluent's repository,
// or never published); none is needed to consume JSON from Kafka.
const EXCLUDED = ['org.apache.pinot:pinot-protobuf', 'org.apache.pinot:pinot-confluent-avro', 'org.apache.pinot:pinot-orc', 'io.confluent:*'];

export async function pinotLibraries(version = PINOT_VERSION) {
  const cache = join(homedir(), '.cache', 'dpgw', `pinot-${version}`);
  const lib = join(cache, 'lib');
  if (existsSync(join(lib, `pinot-tools-${version}.jar`))) return lib;
  mkdirSync(cache, { recursive: true });
  const exclusions = EXCLUDED.map((c) => `<exclusion><groupId>${c.split(':')[0]}</groupId><artifactId>${c.split(':')[1]}</artifactId></exclusion>`).join('');
  const dependency = (artifact) => `<dependency><groupId>org.apache.pinot</groupId><artifactId>${artifact}</artifactId><version>${version}</version><exclusions>${exclusions}</exclusions></dependency>`;
  writeFileSync(
    join(cache, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>dpgw.e2e</groupId><artifactId>pinot-runtime</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>${['pinot-tools', 'pinot-kafka-2.0', 'pinot-json'].map(dependency).join('')}</dependencies>
</project>
`,
  );
  const mvn = await runToEnd('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`, '-DincludeScope=runtime'], { cwd: cache });
  if (mvn.status !== 0) throw new Error(`Maven could not resolve Pinot ${version}: ${mvn.stdout}\n${mvn.stderr}`);
  return lib;
}

/** Starts Pinot; a second try when its embedded ZooKeeper misses QuickStart's one-second start window. */
export async function startPinot() {
  try {
    return await startPinotOnce();
  } catch (error) {
    if (!/zookeeper/i.test(String(error?.message))) throw error;
    console.error(`[pinot] retrying once: ${String(error.message).split('\n')[0]}`);
    await new Promise((r) => setTimeout(r, 3000));
    return startPinotOnce();
  }
}

async function startPinotOnce() {
  const lib = await pinotLibraries();
  const java = join(javaHome(), 'bin', 'java');
  const dir = mkdtempSync(join(tmpdir(), 'dpgw-pinot-'));
  const log = join(dir, 'pinot.log');
  // Pinot 0.11 was built for Java 11: on 17 it needs these packages opened.
  const opens = ['java.base/java.lang', 'java.base/java.nio', 'java.base/sun.nio.ch', 'java.base/java.util', 'java.base/java.lang.reflect'].flatMap((p) => ['--add-opens', `${p}=ALL-UNNAMED`]);
  const controller = 'http://127.0.0.1:9000';
  const broker = 'http://127.0.0.1:8000';
  const up = async (url) => (await fetch(url)).ok;
  // For the query engine's Pinot connector (Trino targets Pinot 1.x): servers answer in
  // DataTable v4, and register under the host name (which resolves to loopback here)
  // rather than the machine's network address, which nothing may connect to.
  const configFile = join(dir, 'quickstart.properties');
  writeFileSync(configFile, ['pinot.server.instance.currentDataTableVersion=4', 'pinot.set.instance.id.to.hostname=true', ''].join('\n'));
  const { stop, startSeconds } = await runUntilReady({
    name: `Pinot ${PINOT_VERSION}`,
    command: java,
    args: ['-Xms256m', '-Xmx2g', ...opens, '-cp', `${lib}/*`, 'org.apache.pinot.tools.admin.PinotAdministrator', 'QuickStart', '-type', 'EMPTY', '-dataDir', join(dir, 'data'), '-configFile', configFile],
    cwd: dir,
    log,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => (await up(`${controller}/health`)) && (await up(`${broker}/health`)) && readFileSync(log, 'utf8').includes('Started Pinot [SERVER]'),
    intervalMs: 1000,
  });
  return { controller, broker, grpcPort: 7100, version: PINOT_VERSION, log, startSeconds, stop };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'start') await serveInFront(`Pinot ${PINOT_VERSION}`, () => startPinot());
