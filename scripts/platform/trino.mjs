// The real SQL query engine for the end-to-end tier: Trino from Maven Central's
// `io.trino:trino-server:<version>:tar.gz`. The tarball hard-links jars across its
// plugins, so it is unpacked whole once, and only what the tier runs is kept in
// ~/.cache/dpgw/trino-<version>/server: bin, lib and the opa, pinot and
// password-authenticators (file group provider) plugins. Trino needs Java 24 or newer:
// a JDK of that age under /usr/lib/jvm (or DPGW_TRINO_JAVA_HOME) runs it.
//
// It runs as one coordinator that is also its worker, bound to 127.0.0.1, with:
// - HTTPS on a certificate made for the run (its CA file is returned for dpgw's --ca-file),
//   since Trino checks tokens only on a secure connection;
// - JWT authentication against the identity realm's keys (principal: preferred_username);
// - a file group provider with the realm's memberships (JWT logins carry no groups into Trino);
// - the access control of the access-control.properties that `dpgw access-control render`
//   wrote, loaded as a platform does (loadAccessControl below);
// - a `pinot` catalog on the analytics store's controller.
import { spawnSync } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { runToEnd, runUntilReady, serveInFront } from './component-process.mjs';

export const TRINO_VERSION = process.env.DPGW_TRINO_VERSION ?? '476';
const MAVEN = 'https://repo1.maven.org/maven2';
const READY_TIMEOUT_MS = Number(process.env.DPGW_TRINO_READY_TIMEOUT_MS ?? 240_000);
const KEPT = ['bin', 'lib', 'plugin/opa', 'plugin/pinot', 'plugin/password-authenticators'];
/** The key of the contract's access-control.properties that only the platform reads (Trino refuses unknown keys). */
export const PLATFORM_ONLY_KEY = 'fine-grained-access-control-enabled';

/** A JDK new enough for Trino: DPGW_TRINO_JAVA_HOME, else the newest under /usr/lib/jvm if it is 24 or newer. */
export function trinoJavaHome() {
  if (process.env.DPGW_TRINO_JAVA_HOME) return process.env.DPGW_TRINO_JAVA_HOME;
  const versionOf = (home) => Number(/version "(\d+)/.exec(spawnSync(join(home, 'bin', 'java'), ['-version'], { encoding: 'utf8' }).stderr)?.[1] ?? 0);
  const homes = existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm').map((d) => join('/usr/lib/jvm', d)).filter((d) => existsSync(join(d, 'bin', 'java'))) : [];
  const newest = homes.map((home) => ({ home, version: versionOf(home) })).sort((a, b) => b.version - a.version)[0];
  if (!newest || newest.version < 24) throw new Error(`Trino ${TRINO_VERSION} needs Java 24 or newer; found ${newest ? `Java ${newest.version} at ${newest.home}` : 'no JDK under /usr/lib/jvm'}: install one (e.g. Temurin 25) or set DPGW_TRINO_JAVA_HOME`);
  return newest.home;
}

/** Downloads (once, checked against Maven Central's SHA-1), unpacks and prunes the server; returns its folder. */
export async function trinoServer(version = TRINO_VERSION) {
  const cache = join(homedir(), '.cache', 'dpgw', `trino-${version}`);
  const home = join(cache, 'server');
  if (existsSync(join(home, 'plugin', 'pinot'))) return home;
  mkdirSync(cache, { recursive: true });
  const tarball = join(cache, `trino-server-${version}.tar.gz`);
  const url = `${MAVEN}/io/trino/trino-server/${version}/trino-server-${version}.tar.gz`;
  if (!existsSync(tarball)) {
    const response = await fetch(url);
    if (!response.ok || !response.body) throw new Error(`cannot download ${url}: ${response.status}`);
    const hash = createHash('sha1');
    await pipeline(Readable.fromWeb(response.body), async function* (chunks) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        yield chunk;
      }
    }, createWriteStream(`${tarball}.part`));
    const expected = (await (await fetch(`${url}.sha1`)).text()).trim().split(/\s+/)[0];
    const actual = hash.digest('hex');
    if (expected !== actual) throw new Error(`checksum mismatch for ${url}: ${actual} is not ${expected}`);
    renameSync(`${tarball}.part`, tarball);
  }
  const unpacked = join(cache, 'unpacked');
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked);
  const tar = await runToEnd('tar', ['-xzf', tarball, '-C', unpacked]);
  if (tar.status !== 0) throw new Error(`cannot unpack ${tarball}: ${tar.stderr}`);
  const top = join(unpacked, `trino-server-${version}`);
  const staging = `${home}.part`;
  rmSync(staging, { recursive: true, force: true });
  for (const part of KEPT) {
    mkdirSync(join(staging, part, '..'), { recursive: true });
    renameSync(join(top, part), join(staging, part));
  }
  renameSync(staging, home);
  rmSync(unpacked, { recursive: true, force: true });
  rmSync(tarball, { force: true });
  return home;
}

/** Reads a key=value properties file (comments and blank lines skipped). */
export function readProperties(file) {
  const properties = new Map();
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const at = trimmed.search(/[=:]/);
    if (at < 0) continue;
    properties.set(trimmed.slice(0, at).trim(), trimmed.slice(at + 1).trim());
  }
  return properties;
}

const toProperties = (entries) => [...entries].map(([k, v]) => `${k}=${v}`).join('\n') + '\n';

/**
 * How a platform loads the contract's access-control.properties into its coordinator:
 * `fine-grained-access-control-enabled` is the platform's switch, not a Trino property
 * (Trino refuses to start on a key it does not use). When it is true, the coordinator gets
 * a copy without that key, named by `access-control.config-files`; when it is false or
 * missing, no external access control is loaded.
 * @returns {{ enabled: boolean, configFile?: string, engine?: string }}
 */
export function loadAccessControl(renderedFile, dir) {
  const properties = readProperties(renderedFile);
  if (properties.get(PLATFORM_ONLY_KEY) !== 'true') return { enabled: false };
  properties.delete(PLATFORM_ONLY_KEY);
  const configFile = join(dir, 'access-control.properties');
  writeFileSync(configFile, toProperties(properties));
  return { enabled: true, configFile, engine: properties.get('access-control.name') };
}

/** A CA and a server certificate for 127.0.0.1, made for this run with openssl. */
function certificates(dir) {
  const openssl = (args) => {
    const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr || run.error}`);
  };
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=dpgw e2e CA']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext']);
  writeFileSync(join(dir, 'keystore.pem'), readFileSync(join(dir, 'server.pem'), 'utf8') + readFileSync(join(dir, 'server.key'), 'utf8'));
  rmSync(join(dir, 'ca.key'));
  return { caFile: join(dir, 'ca.pem'), keystore: join(dir, 'keystore.pem') };
}

/**
 * Starts Trino and waits until it has started.
 * @param {{ httpPort: number, httpsPort: number, jwt: { jwksUrl: string, issuer: string }, accessControlFile?: string,
 *   groups?: Record<string, string[]>, pinot?: { controller: string, grpcPort?: number }, catalog?: string }} options
 */
export async function startTrino({ httpPort, httpsPort, jwt, accessControlFile, groups = {}, pinot, catalog = 'pinot' }) {
  const home = await trinoServer();
  const java = join(trinoJavaHome(), 'bin', 'java');
  const dir = mkdtempSync(join(tmpdir(), 'dpgw-trino-'));
  const etc = join(dir, 'etc');
  mkdirSync(join(etc, 'catalog'), { recursive: true });
  const { caFile, keystore } = certificates(dir);
  const accessControl = accessControlFile ? loadAccessControl(accessControlFile, etc) : { enabled: false };
  // Read from etc/group-provider.properties below the working directory (there is no key naming another file).
  writeFileSync(join(etc, 'group-provider.properties'), toProperties([['group-provider.name', 'file'], ['file.group-file', join(etc, 'groups.txt')]]));
  writeFileSync(join(etc, 'groups.txt'), Object.entries(groups).map(([group, users]) => `${group}:${users.join(',')}`).join('\n') + '\n');
  if (pinot) {
    writeFileSync(
      join(etc, 'catalog', `${catalog}.properties`),
      toProperties([
        ['connector.name', 'pinot'],
        ['pinot.controller-urls', new URL(pinot.controller).host],
        ['pinot.grpc.port', String(pinot.grpcPort ?? 7100)],
        // The connector caches Pinot's table list (2 minutes by default): a table created
        // later stays unknown to the engine that long. The tier shortens it; dpgw verify --wait covers either.
        ['pinot.metadata-expiry', '15s'],
      ]),
    );
  }
  const config = [
    ['coordinator', 'true'],
    ['node-scheduler.include-coordinator', 'true'],
    ['node.environment', 'dpgw_e2e'],
    ['node.id', `dpgw-e2e-${randomBytes(4).toString('hex')}`],
    // Trino has no http-server.http.host: the bind address is the node's.
    ['node.bind-ip', '127.0.0.1'],
    ['node.internal-address', '127.0.0.1'],
    ['http-server.http.port', String(httpPort)],
    ['discovery.uri', `http://127.0.0.1:${httpPort}`],
    ['http-server.https.enabled', 'true'],
    ['http-server.https.port', String(httpsPort)],
    ['http-server.https.keystore.path', keystore],
    ['http-server.authentication.type', 'JWT'],
    ['http-server.authentication.jwt.key-file', jwt.jwksUrl],
    ['http-server.authentication.jwt.required-issuer', jwt.issuer],
    ['http-server.authentication.jwt.principal-field', 'preferred_username'],
    ['internal-communication.shared-secret', randomBytes(32).toString('base64')],
    ['plugin.dir', join(home, 'plugin')],
    ['catalog.config-dir', join(etc, 'catalog')],
    ['query.max-memory', '512MB'],
    ['query.max-memory-per-node', '256MB'],
    ...(accessControl.enabled ? [['access-control.config-files', accessControl.configFile]] : []),
  ];
  writeFileSync(join(etc, 'config.properties'), toProperties(config));
  writeFileSync(join(etc, 'log.properties'), 'io.trino=WARN\nio.trino.server.TrinoServer=INFO\n');
  const log = join(dir, 'trino.log');
  const info = `http://127.0.0.1:${httpPort}/v1/info`;
  const { stop, startSeconds } = await runUntilReady({
    name: `Trino ${TRINO_VERSION}`,
    command: java,
    args: [
      '-Xms256m', '-Xmx1536m', '-XX:+UseG1GC', '-XX:+ExitOnOutOfMemoryError', '-XX:+EnableDynamicAgentLoading', '-Djdk.attach.allowAttachSelf=true', '-Dfile.encoding=UTF-8',
      `-Dconfig=${join(etc, 'config.properties')}`, `-Dlog.levels-file=${join(etc, 'log.properties')}`,
      '-cp', `${home}/lib/*`, 'io.trino.server.TrinoServer',
    ],
    cwd: dir,
    log,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => (await (await fetch(info)).json()).starting === false,
    intervalMs: 1000,
  });
  return { url: `https://127.0.0.1:${httpsPort}`, httpUrl: `http://127.0.0.1:${httpPort}`, caFile, catalog, accessControl, version: TRINO_VERSION, log, startSeconds, stop };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'start') {
  const env = process.env;
  await serveInFront(`Trino ${TRINO_VERSION}`, () =>
    startTrino({
      httpPort: Number(env.DPGW_TRINO_HTTP_PORT ?? 18090),
      httpsPort: Number(env.DPGW_TRINO_HTTPS_PORT ?? 18443),
      jwt: { jwksUrl: env.DPGW_TRINO_JWKS_URL ?? 'http://127.0.0.1:18080/auth/realms/data-platform/protocol/openid-connect/certs', issuer: env.DPGW_TRINO_ISSUER ?? 'http://127.0.0.1:18080/auth/realms/data-platform' },
      accessControlFile: env.DPGW_TRINO_ACCESS_CONTROL_FILE,
      pinot: { controller: env.DPGW_TRINO_PINOT_CONTROLLER ?? 'http://127.0.0.1:9000' },
    }),
  );
}
