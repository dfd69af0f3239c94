// The real dashboard tool for the end-to-end tier: Apache Superset from PyPI, installed
// once into a virtual environment in ~/.cache/dpgw/superset-<version>/venv with the
// constraints file beside this script (Superset's own pins do not give a working install),
// then per start: a fresh SQLite metadata database (`superset db upgrade`), the admin,
// `superset init`, the users the tests sign in as, and gunicorn on 127.0.0.1.
//
//   node scripts/platform/superset.mjs start    # prints the settings as JSON; stays in front
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd, runUntilReady, serveInFront } from './component-process.mjs';

export const SUPERSET_VERSION = process.env.DPGW_SUPERSET_VERSION ?? '6.1.0';
const CONSTRAINTS = fileURLToPath(new URL('./superset-constraints.txt', import.meta.url));
const READY_TIMEOUT_MS = Number(process.env.DPGW_SUPERSET_READY_TIMEOUT_MS ?? 120_000);
const secret = () => randomBytes(15).toString('base64url');

/** Installs Superset (once) into its own virtual environment; returns the venv's bin folder. */
export async function supersetInstallation(version = SUPERSET_VERSION) {
  const venv = join(homedir(), '.cache', 'dpgw', `superset-${version}`, 'venv');
  const bin = join(venv, 'bin');
  if (existsSync(join(bin, 'superset')) && existsSync(join(bin, 'gunicorn'))) return bin;
  mkdirSync(join(venv, '..'), { recursive: true });
  const python = process.env.DPGW_PYTHON ?? 'python3';
  const created = await runToEnd(python, ['-m', 'venv', '--clear', venv]);
  if (created.status !== 0) throw new Error(`cannot create a virtual environment with ${python}: ${created.stderr}`);
  // The database driver for the query engine (trino) comes in the same install.
  const pip = await runToEnd(join(bin, 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-c', CONSTRAINTS, `apache-superset==${version}`, 'flask-caching', 'rich', 'cachetools', 'trino', 'gunicorn']);
  if (pip.status !== 0 || !existsSync(join(bin, 'superset'))) throw new Error(`pip could not install Superset ${version}: ${pip.stderr.slice(-2000)}`);
  return bin;
}

/**
 * Starts Superset with a fresh metadata database.
 * @param {{ port: number, users?: Array<{ username: string, password: string, role: string }> }} options
 */
export async function startSuperset({ port, users = [] }) {
  const bin = await supersetInstallation();
  // Its start-up is mostly the bring-up commands (each loads the whole app), not gunicorn.
  const began = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'dpgw-superset-'));
  const config = join(dir, 'superset_config.py');
  writeFileSync(
    config,
    [
      `SECRET_KEY = ${JSON.stringify(randomBytes(32).toString('base64'))}`,
      `SQLALCHEMY_DATABASE_URI = ${JSON.stringify(`sqlite:///${join(dir, 'superset.db')}`)}`,
      '',
    ].join('\n'),
  );
  // requests lets REQUESTS_CA_BUNDLE (set machine-wide here) override a connection's own
  // `verify`, so a database connection's CA (server_cert) would be ignored: leave it out.
  const env = { ...process.env, SUPERSET_CONFIG_PATH: config, SUPERSET_HOME: dir, FLASK_APP: 'superset', SCARF_ANALYTICS: 'False', PYTHONUNBUFFERED: '1' };
  delete env.REQUESTS_CA_BUNDLE;
  delete env.CURL_CA_BUNDLE;
  const superset = async (args) => {
    const run = await runToEnd(join(bin, 'superset'), args, { env, cwd: dir });
    if (run.status !== 0) throw new Error(`superset ${args.slice(0, 2).join(' ')} failed: ${(run.stderr || run.stdout).slice(-2000)}`);
  };
  const admin = { username: 'admin', password: secret() };
  await superset(['db', 'upgrade']);
  await superset(['fab', 'create-admin', '--username', admin.username, '--firstname', 'Ada', '--lastname', 'Admin', '--email', 'admin@platform.example', '--password', admin.password]);
  await superset(['init']);
  for (const user of users) {
    await superset(['fab', 'create-user', '--role', user.role, '--username', user.username, '--firstname', user.username, '--lastname', 'User', '--email', `${user.username}@platform.example`, '--password', user.password]);
  }
  const url = `http://127.0.0.1:${port}`;
  const log = join(dir, 'superset.log');
  const { stop } = await runUntilReady({
    name: `Superset ${SUPERSET_VERSION}`,
    command: join(bin, 'gunicorn'),
    args: ['--workers', '1', '--threads', '8', '--timeout', '120', '--bind', `127.0.0.1:${port}`, 'superset.app:create_app()'],
    env,
    cwd: dir,
    log,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => (await fetch(`${url}/health`)).ok,
    intervalMs: 500,
  });
  return { url, admin, version: SUPERSET_VERSION, log, startSeconds: (Date.now() - began) / 1000, stop };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'start') {
  await serveInFront(`Superset ${SUPERSET_VERSION}`, () => startSuperset({ port: Number(process.env.DPGW_SUPERSET_PORT ?? 18088) }));
}

/**
 * Creates (as the admin) the database connection to the query engine that dashboards
 * use: Trino over HTTPS with the engine's CA, a service account's JWT, and per-user
 * impersonation, so every query runs as the signed-in dashboard user.
 */
export async function createQueryEngineConnection({ url, admin, name = 'Trino', engineUrl, catalog, caFile, serviceToken, serviceUser }) {
  const login = await (await fetch(`${url}/api/v1/security/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: admin.username, password: admin.password, provider: 'db' }) })).json();
  const authorization = `Bearer ${login.access_token}`;
  const csrf = await fetch(`${url}/api/v1/security/csrf_token/`, { headers: { authorization } });
  const cookie = csrf.headers.get('set-cookie').split(';')[0];
  const token = (await csrf.json()).result;
  const engine = new URL(engineUrl);
  const response = await fetch(`${url}/api/v1/database/`, {
    method: 'POST',
    headers: { authorization, cookie, 'x-csrftoken': token, referer: url, 'content-type': 'application/json' },
    body: JSON.stringify({
      database_name: name,
      sqlalchemy_uri: `trino://${encodeURIComponent(serviceUser)}@${engine.host}/${catalog}`,
      impersonate_user: true,
      expose_in_sqllab: true,
      server_cert: readFileSync(caFile, 'utf8'),
      masked_encrypted_extra: JSON.stringify({ auth_method: 'jwt', auth_params: { token: serviceToken } }),
    }),
  });
  if (response.status !== 201) throw new Error(`Superset refused the database connection ${name}: ${response.status} ${await response.text()}`);
  return { id: (await response.json()).id, name };
}
