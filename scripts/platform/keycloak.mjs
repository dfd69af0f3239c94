// The real identity provider for the end-to-end tier: Keycloak from its Maven
// Central distribution, started in dev mode under /auth with a realm imported at
// start (a confidential backend client with direct access grants, a client without
// them, the groups, three users, and a mapper that puts `groups` in the token).
//
//   node scripts/platform/keycloak.mjs start    # prints the settings as JSON; stays in front
//
// Idempotent: the download is cached under ~/.cache/dpgw/keycloak-<version>, the
// realm is imported fresh on every start. Its log is kept and printed on failure.
import { spawnSync } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { runToEnd, runUntilReady, serveInFront } from './component-process.mjs';

export const KEYCLOAK_VERSION = process.env.DPGW_KEYCLOAK_VERSION ?? '26.7.3';
const MAVEN = 'https://repo1.maven.org/maven2';
const READY_TIMEOUT_MS = Number(process.env.DPGW_KEYCLOAK_READY_TIMEOUT_MS ?? 240_000);

const secret = () => randomBytes(15).toString('base64url');

/** The JDK to run Keycloak with: JAVA_HOME if set, else a JDK 17+ under /usr/lib/jvm. */
export function javaHome() {
  if (process.env.JAVA_HOME && existsSync(join(process.env.JAVA_HOME, 'bin', 'java'))) return process.env.JAVA_HOME;
  const candidates = existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm').map((d) => join('/usr/lib/jvm', d)).filter((d) => existsSync(join(d, 'bin', 'java'))) : [];
  const versionOf = (home) => Number(/version "(\d+)/.exec(spawnSync(join(home, 'bin', 'java'), ['-version'], { encoding: 'utf8' }).stderr)?.[1] ?? 0);
  const usable = candidates.map((home) => ({ home, version: versionOf(home) })).filter((c) => c.version >= 17).sort((a, b) => a.version - b.version);
  if (usable.length === 0) throw new Error('Keycloak needs a JDK 17 or newer: set JAVA_HOME or install one under /usr/lib/jvm');
  return usable[0].home;
}

/** Downloads (once, checked against Maven Central's SHA-1) and unpacks the distribution; returns its folder. */
export async function keycloakDistribution(version = KEYCLOAK_VERSION) {
  const cache = join(homedir(), '.cache', 'dpgw', `keycloak-${version}`);
  const home = join(cache, `keycloak-${version}`);
  if (existsSync(join(home, 'bin', 'kc.sh'))) return home;
  mkdirSync(cache, { recursive: true });
  const zip = join(cache, `keycloak-quarkus-dist-${version}.zip`);
  const url = `${MAVEN}/org/keycloak/keycloak-quarkus-dist/${version}/keycloak-quarkus-dist-${version}.zip`;
  if (!existsSync(zip)) {
    const response = await fetch(url);
    if (!response.ok || !response.body) throw new Error(`cannot download ${url}: ${response.status}`);
    await pipeline(Readable.fromWeb(response.body), createWriteStream(`${zip}.part`));
    const expected = (await (await fetch(`${url}.sha1`)).text()).trim().split(/\s+/)[0];
    const actual = createHash('sha1').update(readFileSync(`${zip}.part`)).digest('hex');
    if (expected !== actual) throw new Error(`checksum mismatch for ${url}: ${actual} is not ${expected}`);
    renameSync(`${zip}.part`, zip);
  }
  const unzip = await runToEnd('unzip', ['-q', '-o', zip, '-d', cache]);
  if (unzip.status !== 0) throw new Error(`cannot unpack ${zip}: ${unzip.stderr}`);
  return home;
}

/** The realm of the contract's platform, with passwords and the client secret made for this run. */
export function realmDefinition(realm = 'data-platform') {
  const credentials = {
    realm,
    clientId: 'dpgw-backend',
    clientSecret: secret(),
    webClientId: 'dpgw-web',
    webClientSecret: secret(),
    // The dashboard tool's service account at the query engine (client credentials).
    serviceClientId: 'superset',
    serviceClientSecret: secret(),
    // dpgw's own grants beyond the password: a pipeline's service account, and a public client for the device grant.
    ciClientId: 'dpgw-ci',
    ciClientSecret: secret(),
    deviceClientId: 'dpgw-cli',
    users: [
      { username: 'admin', password: secret(), groups: ['platform-admins'], firstName: 'Ada', lastName: 'Admin' },
      { username: 'analyst', password: secret(), groups: ['track-readers'], firstName: 'Ana', lastName: 'Lyst' },
      { username: 'outsider', password: secret(), groups: [], firstName: 'Otto', lastName: 'Sider' },
    ],
  };
  const groupsMapper = {
    name: 'groups',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-group-membership-mapper',
    config: { 'full.path': 'false', 'claim.name': 'groups', 'access.token.claim': 'true', 'id.token.claim': 'true', 'userinfo.token.claim': 'true' },
  };
  const realmJson = {
    realm,
    enabled: true,
    // Short enough that the tests see a refresh, long enough for a slow machine.
    accessTokenLifespan: 120,
    groups: [{ name: 'platform-admins' }, { name: 'track-readers' }],
    clients: [
      { clientId: credentials.clientId, enabled: true, publicClient: false, secret: credentials.clientSecret, directAccessGrantsEnabled: true, standardFlowEnabled: false, protocolMappers: [groupsMapper] },
      { clientId: credentials.webClientId, enabled: true, publicClient: false, secret: credentials.webClientSecret, directAccessGrantsEnabled: false, standardFlowEnabled: true, redirectUris: ['http://127.0.0.1/*'] },
      // A service account whose token the dashboard tool's database connection carries; it
      // lives an hour (the tier's whole run), as a platform would rotate it.
      {
        clientId: credentials.serviceClientId,
        enabled: true,
        publicClient: false,
        secret: credentials.serviceClientSecret,
        serviceAccountsEnabled: true,
        directAccessGrantsEnabled: false,
        standardFlowEnabled: false,
        attributes: { 'access.token.lifespan': '3600' },
      },
      // `dpgw --grant client-credentials`: a service account in platform-admins, its groups in the token.
      {
        clientId: credentials.ciClientId,
        enabled: true,
        publicClient: false,
        secret: credentials.ciClientSecret,
        serviceAccountsEnabled: true,
        directAccessGrantsEnabled: false,
        standardFlowEnabled: false,
        protocolMappers: [groupsMapper],
      },
      // `dpgw login --grant device`: a public client (no secret) with the device authorization grant; the person
      // grants access on a consent page, where they may also deny it.
      {
        clientId: credentials.deviceClientId,
        enabled: true,
        publicClient: true,
        consentRequired: true,
        directAccessGrantsEnabled: false,
        standardFlowEnabled: false,
        attributes: { 'oauth2.device.authorization.grant.enabled': 'true' },
        protocolMappers: [groupsMapper],
      },
    ],
    // Keycloak refuses users without first name, last name and e-mail (the user profile).
    users: [
      // The service account of dpgw-ci, as Keycloak exports one: a user bound to its client.
      { username: `service-account-${credentials.ciClientId}`, enabled: true, serviceAccountClientId: credentials.ciClientId, groups: ['platform-admins'] },
      ...credentials.users.map((u) => ({
      username: u.username,
      enabled: true,
      firstName: u.firstName,
      lastName: u.lastName,
      email: `${u.username}@platform.example`,
      emailVerified: true,
      credentials: [{ type: 'password', value: u.password, temporary: false }],
      groups: u.groups,
      })),
    ],
  };
  return { credentials, realmJson };
}

/** Starts Keycloak on 127.0.0.1 and waits until the realm answers; returns its settings and a stop function. */
export async function startKeycloak({ port = 18080, realm = 'data-platform', logFile } = {}) {
  const home = await keycloakDistribution();
  const { credentials, realmJson } = realmDefinition(realm);
  // A fresh database each start, so the realm of this run is the one imported.
  rmSync(join(home, 'data'), { recursive: true, force: true });
  mkdirSync(join(home, 'data', 'import'), { recursive: true });
  writeFileSync(join(home, 'data', 'import', `${realm}-realm.json`), JSON.stringify(realmJson, null, 2));
  const log = logFile ?? join(home, 'keycloak.log');
  const authUrl = `http://127.0.0.1:${port}`;
  const { stop, startSeconds } = await runUntilReady({
    name: `Keycloak ${KEYCLOAK_VERSION}`,
    command: join(home, 'bin', 'kc.sh'),
    args: ['start-dev', `--http-port=${port}`, '--http-host=127.0.0.1', '--http-relative-path=/auth', '--import-realm', '--health-enabled=false'],
    env: { ...process.env, JAVA_HOME: javaHome(), KC_BOOTSTRAP_ADMIN_USERNAME: 'kcadmin', KC_BOOTSTRAP_ADMIN_PASSWORD: secret(), JAVA_OPTS_APPEND: '-Xms64m -Xmx768m' },
    log,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => (await fetch(`${authUrl}/auth/realms/${realm}/.well-known/openid-configuration`)).ok,
    intervalMs: 1000,
  });
  return { ...credentials, authUrl, log, startSeconds, stop };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'start') {
  await serveInFront(`Keycloak ${KEYCLOAK_VERSION}`, () => startKeycloak({ port: Number(process.env.DPGW_KEYCLOAK_PORT ?? 18080) }));
}
