// The analytics store's own verdict on schema files, for the store tier's differential test:
// test/store/harness/SchemaVerdict.java (the controller's POST /schemas path: the pinot-spi
// reader, the name check, pinot-segment-local's SchemaUtils.validate) compiled against one
// store release's jars from Maven Central. Cached under ~/.cache/dpgw/pinot-harness-<version>,
// the classes keyed by the harness source's hash.
//
// The releases: 0.11.0 (the end-to-end tier's store, its jars from scripts/platform/pinot.mjs)
// and the newest release whose artifacts resolve from Maven Central. 1.6.0 is listed there for
// pinot-spi and pinot-segment-local, but its parent POM (org.apache.pinot:pinot:1.6.0) and
// pinot-common 1.6.0 are not served, so Maven cannot resolve it: 1.5.1 is the newest that does.
// pinot-core rides along because the controller has it: the scalar functions a schema's
// transformFunction may call (stPoint, toSphericalGeography, …) live there.
//
//   node scripts/platform/schema-harness.mjs    # prints the harnesses as JSON
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from './component-process.mjs';
import { javaHome } from './keycloak.mjs';
import { pinotLibraries } from './pinot.mjs';

export const HARNESS_VERSIONS = ['0.11.0', process.env.DPGW_PINOT_NEWEST_VERSION ?? '1.5.1'];
const SOURCE = fileURLToPath(new URL('../../test/store/harness/SchemaVerdict.java', import.meta.url));
const HARNESS_ARTIFACTS = ['pinot-segment-local', 'pinot-core'];

/** The store's jars for one release: the end-to-end tier's for its own release, else resolved with Maven. */
async function harnessLibraries(version) {
  if (version === '0.11.0') return pinotLibraries(version);
  const cache = join(homedir(), '.cache', 'dpgw', `pinot-harness-${version}`);
  const lib = join(cache, 'lib');
  if (existsSync(join(lib, `pinot-segment-local-${version}.jar`)) && existsSync(join(lib, `pinot-core-${version}.jar`))) return lib;
  mkdirSync(cache, { recursive: true });
  const dependency = (artifact) => `<dependency><groupId>org.apache.pinot</groupId><artifactId>${artifact}</artifactId><version>${version}</version></dependency>`;
  writeFileSync(
    join(cache, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>dpgw.store</groupId><artifactId>pinot-schema-harness</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>${HARNESS_ARTIFACTS.map(dependency).join('')}</dependencies>
</project>
`,
  );
  const mvn = await runToEnd('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`, '-DincludeScope=runtime'], { cwd: cache });
  if (mvn.status !== 0) throw new Error(`Maven could not resolve Pinot ${version} for the schema harness: ${mvn.stdout}\n${mvn.stderr}`);
  return lib;
}

/** @returns {Promise<{ version: string, java: string, classpath: string }>} how to run the harness against one release */
export async function schemaHarness(version) {
  const lib = await harnessLibraries(version);
  const source = readFileSync(SOURCE);
  const key = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const classes = join(homedir(), '.cache', 'dpgw', `pinot-harness-${version}`, `classes-${key}`);
  const home = javaHome();
  if (!existsSync(join(classes, 'SchemaVerdict.class'))) {
    mkdirSync(classes, { recursive: true });
    const javac = await runToEnd(join(home, 'bin', 'javac'), ['-d', classes, '-cp', `${lib}/*`, SOURCE]);
    if (javac.status !== 0) throw new Error(`could not compile the schema harness against Pinot ${version}: ${javac.stdout}\n${javac.stderr}`);
  }
  return { version, java: join(home, 'bin', 'java'), classpath: `${classes}:${lib}/*` };
}

export async function schemaHarnesses() {
  const harnesses = [];
  for (const version of HARNESS_VERSIONS) harnesses.push(await schemaHarness(version));
  return harnesses;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await schemaHarnesses(), null, 2));
