/** `dpgw sandbox`: the local platform emulator in the foreground, until Ctrl-C. */
import { shellWord } from '../../text/shell-word.js';
import { DEVICE_CLIENT_ID, SERVICE_ACCOUNT_CLIENT_ID } from '../../sandbox/sandbox.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { onStopSignal } from '../../command-kit/interruption.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { SandboxCommand } from './sandbox.flags.js';
import { settingValueProblem } from '../../settings/setting-checks.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { cannotWrite } from '../../files/file-problem.js';
import { checkProfileName } from '../../settings/profile-name.js';
import { configDirectory, editProfile, loadConfigFile, saveConfigFile, setCurrentProfile } from '../../settings/config-file.js';

const DEFAULT_PROFILE_NAME = 'sandbox';

export const run: HandlerOf<SandboxCommand> = async (context) => {
  const { options, reporter } = context;
  const { port, authPort, queryPort, dashboardPort, streamPort, latency: latencyMs, topicDelay: topicDelayMs, tokenLifetime: accessTokenLifetimeSeconds } = options;
  const down = options.down ?? [];
  // The sandbox's own --platform-version shadows the global setting of the same name; the same rule checks both.
  const { platformVersion } = options;
  const versionProblem = platformVersion === undefined ? undefined : settingValueProblem('platformVersion', platformVersion);
  if (versionProblem !== undefined) throw new DpgwError('SETTING_INVALID', versionProblem, { where: '--platform-version' });

  // Before the sandbox starts: the name becomes part of file names.
  if (typeof options.writeProfile === 'string') checkProfileName(options.writeProfile, '--write-profile');

  const { startSandbox, ADMIN_GROUP } = await import('../../sandbox/sandbox.js');
  let fromFile = {};
  if (options.users !== undefined) {
    const { readUsersFile, UsersFileError } = await import('../../sandbox/users-file.js');
    try {
      fromFile = await readUsersFile(options.users);
    } catch (error) {
      if (error instanceof UsersFileError) throw new DpgwError('SANDBOX_USERS_INVALID', error.message, { where: '--users', hint: 'see README "Sandbox" for the users file format' });
      throw error;
    }
  }
  let sandbox;
  try {
    sandbox = await startSandbox({
      port,
      authPort,
      queryPort,
      dashboardPort,
      streamPort,
      platformVersion,
      topicDelayMs,
      accessTokenLifetimeSeconds,
      faults: { latencyMs },
      down,
      logFile: options.log,
      ...fromFile,
    });
  } catch (error) {
    if (error instanceof RangeError) throw new DpgwError('INVALID_ARGUMENT', error.message, { where: '--down' });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new DpgwError('SANDBOX_PORT_IN_USE', `a port the sandbox needs is in use (${(error as Error).message})`, { hint: 'pass --port, --auth-port, --query-port, --dashboard-port and --stream-port, or 0 for any free port' });
    throw error;
  }

  let profile: string | undefined;
  let userProfiles: Record<string, string> = {};
  let streamPasswordFile: string | undefined;
  if (options.writeProfile !== undefined) {
    profile = options.writeProfile === true ? DEFAULT_PROFILE_NAME : options.writeProfile;
    userProfiles = await writeProfiles(context.io.env, profile, sandbox, ADMIN_GROUP);
  }
  const provisioner = provisionerOf(sandbox, ADMIN_GROUP);
  let dashboardPasswordFile: string | undefined;
  if (profile === undefined) {
    // The lines for a shell name the passwords by their files: printed, they would be masked (***) and the line useless.
    const folder = await secretFolder(context.io.env);
    streamPasswordFile = await writeSecret(join(folder, 'stream-password'), sandbox.stream.password);
    dashboardPasswordFile = await writeSecret(join(folder, 'dashboard-password'), provisioner.password);
  }
  // Only the clients this sandbox has (a --users file brings its own).
  const hasClient = (clientId: string) => sandbox.clients.some((c) => c.clientId === clientId);

  // Listen for Ctrl-C before saying "ready": a script may stop the sandbox the moment it reads that.
  const stopped = untilStopped();
  const data = {
    ...whereItListens(sandbox),
    clientSecret: sandbox.clientSecret,
    platformVersion: sandbox.platformVersion,
    stream: sandbox.stream,
    users: sandbox.users.map((u) => ({ username: u.username, password: u.password, groups: u.groups, profile: userProfiles[u.username] ?? null })),
    profile: profile ?? null,
    serviceAccount: hasClient(SERVICE_ACCOUNT_CLIENT_ID) ? { clientId: SERVICE_ACCOUNT_CLIENT_ID, profile: profile === undefined ? null : `${profile}-ci` } : null,
    deviceClient: hasClient(DEVICE_CLIENT_ID) ? DEVICE_CLIENT_ID : null,
  };
  reporter.result({
    data,
    human: (style) =>
      [
        `${style.bold('dpgw sandbox')} is running on 127.0.0.1 ${style.dim('(Ctrl-C stops it)')}`,
        `  gateway          ${data.gateway}`,
        `  identity         ${data.authUrl}/auth/realms/${data.realm}`,
        `  query engine     ${data.queryEngine} ${style.dim(`(catalog ${data.queryCatalog})`)}`,
        `  dashboard tool   ${data.dashboardUrl} ${style.dim('(same users and passwords)')}`,
        `  message stream   ${data.stream.brokerList} ${style.dim(`(Kafka protocol, SASL SCRAM-SHA-512 as ${data.stream.user})`)}`,
        `  client           ${data.clientId}`,
        ...(data.serviceAccount ? [`  service account  ${data.serviceAccount.clientId} ${style.dim(`(--grant client-credentials${data.serviceAccount.profile ? `; profile ${data.serviceAccount.profile}` : ''})`)}`] : []),
        ...(data.deviceClient ? [`  device sign-in   ${data.deviceClient} ${style.dim('(public client, --grant device)')}`] : []),
        `  platform version ${data.platformVersion}`,
        '',
        `${style.bold('users')} ${style.dim(options.users !== undefined ? `(from ${options.users})` : '(passwords generated for this run)')}`,
        ...data.users.map((u) => `  ${u.username.padEnd(10)} ${u.password}  ${style.dim(u.groups.length ? u.groups.join(', ') : 'no groups')}${u.profile ? style.dim(`  (profile ${u.profile})`) : ''}`),
        '',
        ...(data.deviceClient
          ? [
              `${style.bold('device sign-in')}: \`${profile ? `dpgw --profile ${profile}-device login` : `dpgw login --grant device --client-id ${data.deviceClient}`}\` prints an address (${data.authUrl}/auth/realms/${data.realm}/device?user_code=…);`,
              `  open it in a browser, sign in there as ${profile ? `${data.users.find((u) => u.profile === profile)?.username ?? 'its user'} (the profile's user)` : 'one of the users above'} with their password, and Approve (or Deny)`,
              '',
            ]
          : []),
        `${style.bold('in memory only')}: sessions, schemas, tables, topics and their messages are gone when the sandbox stops;`,
        `  the next start begins empty${options.users !== undefined ? '' : ', with new passwords'}, so sign in again after it`,
        '',
        profile
          ? `${style.bold('profile')} "${profile}" written and made current (as \`dpgw config use ${profile}\` does): every dpgw command in another shell uses it`
          : `${style.bold('settings')} for this shell:`,
        ...(profile
          ? []
          : [
              `  export DPGW_GATEWAY=${shellWord(data.gateway)} DPGW_AUTH_URL=${shellWord(data.authUrl)} DPGW_REALM=${shellWord(data.realm)} DPGW_QUERY_ENGINE=${shellWord(data.queryEngine)}`,
              `  export DPGW_CLIENT_ID=${shellWord(data.clientId)} DPGW_CLIENT_SECRET=${shellWord(data.clientSecret)} DPGW_USERNAME=${shellWord(provisioner.username)}`,
              `  export DPGW_BROKER_LIST=${shellWord(data.stream.brokerList)} DPGW_REGISTRY_URL=${shellWord(data.stream.registryUrl)} DPGW_STREAM_USER=${shellWord(data.stream.user)}`,
              `  export DPGW_QUERY_CATALOG=${shellWord(data.queryCatalog)} DPGW_POLICY_URI=${shellWord(data.policyUri)} DPGW_POLICY_BATCHED_URI=${shellWord(data.policyBatchedUri)}`,
              `  export DPGW_DASHBOARD_URL=${shellWord(data.dashboardUrl)} DPGW_DASHBOARD_USER=${shellWord(provisioner.username)}`,
              // `read` rather than `VAR="$(cat …)"`: the masking of output takes any `PASSWORD=…` for a secret and would print `***`.
              `  read -r DPGW_STREAM_PASSWORD < ${shellWord(streamPasswordFile!)} && export DPGW_STREAM_PASSWORD`,
              `  read -r DPGW_DASHBOARD_PASSWORD < ${shellWord(dashboardPasswordFile!)} && export DPGW_DASHBOARD_PASSWORD`,
            ]),
      ],
  });

  await stopped;
  await sandbox.close();
  reporter.info('sandbox stopped');
  return { data: null, printed: true };
};

/** Resolves on Ctrl-C or SIGTERM. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stopListening = onStopSignal(() => {
      stopListening();
      resolve();
    });
  });
}

/**
 * A profile pointing at the sandbox, signing in as the user who may provision, and one more per other
 * user (`<profile>-<user>`, for `dpgw verify --profile …`); the client secret goes
 * to a 0600 file the profiles reference. Returns the profile of each user.
 */
async function writeProfiles(env: NodeJS.ProcessEnv, profile: string, sandbox: Sandbox, adminGroup: string): Promise<Record<string, string>> {
  const provisioner = provisionerOf(sandbox, adminGroup);
  const nameOf = (user: Sandbox['users'][number]) => (user === provisioner ? profile : `${profile}-${user.username}`);
  // A user's name (from --users) becomes part of a profile's name: checked before anything is written.
  for (const user of sandbox.users) checkProfileName(nameOf(user), '--write-profile');
  const directory = configDirectory(env);
  const secretDirectory = await secretFolder(env);
  const secretFile = await writeSecret(join(secretDirectory, `${profile}-client-secret`), sandbox.clientSecret);
  const streamPasswordFile = await writeSecret(join(secretDirectory, `${profile}-stream-password`), sandbox.stream.password);
  const config = await loadConfigFile(directory);
  const values: Record<string, string> = {
    ...whereItListens(sandbox),
    clientSecret: `file:${secretFile}`,
    brokerList: sandbox.stream.brokerList,
    registryUrl: sandbox.stream.registryUrl,
    streamUser: sandbox.stream.user,
    streamPassword: `file:${streamPasswordFile}`,
  };
  const profiles: Record<string, string> = {};
  for (const user of sandbox.users) {
    const name = nameOf(user);
    profiles[user.username] = name;
    // The dashboard tool signs the same user in, with the password from a 0600 file.
    const dashboardPassword = await writeSecret(join(secretDirectory, `${name}-dashboard-password`), user.password);
    for (const [key, value] of Object.entries({ ...values, username: user.username, dashboardUser: user.username, dashboardPassword: `file:${dashboardPassword}` })) editProfile(config, name, key, value);
  }
  // A pipeline's profile: the service account of client dpgw-ci (--grant client-credentials), no user or password.
  const ci = sandbox.clients.find((c) => c.clientId === SERVICE_ACCOUNT_CLIENT_ID);
  if (ci) {
    const name = `${profile}-ci`;
    checkProfileName(name, '--write-profile');
    const ciSecret = await writeSecret(join(secretDirectory, `${name}-client-secret`), ci.secret);
    for (const [key, value] of Object.entries({ ...values, grant: 'client-credentials', clientId: ci.clientId, clientSecret: `file:${ciSecret}` })) editProfile(config, name, key, value);
  }
  // A person's single sign-on: the public client's device grant, as the provisioner, no secret. A profile of its own, so
  // trying it does not turn the main profile into a browser sign-in (login saves the identity flags it is given).
  const device = sandbox.clients.find((c) => c.clientId === DEVICE_CLIENT_ID);
  if (device) {
    const name = `${profile}-device`;
    checkProfileName(name, '--write-profile');
    const { clientSecret: _mainClientSecret, ...withoutSecret } = values;
    for (const [key, value] of Object.entries({ ...withoutSecret, grant: 'device', clientId: device.clientId, username: provisioner.username })) editProfile(config, name, key, value);
  }
  // Current, as `dpgw config use` would make it: the next command in another shell talks to this sandbox.
  setCurrentProfile(config, profile);
  await saveConfigFile(config);
  return profiles;
}

/** The user who provisions (the profile itself, DPGW_USERNAME): the first who may (group platform-admins), else admin, else the first user. */
function provisionerOf(sandbox: Sandbox, adminGroup: string): Sandbox['users'][number] {
  return sandbox.users.find((u) => u.groups.includes(adminGroup)) ?? sandbox.users.find((u) => u.username === 'admin') ?? sandbox.users[0]!;
}

/** The 0700 folder of the sandbox's secret files, in the config folder. */
async function secretFolder(env: NodeJS.ProcessEnv): Promise<string> {
  const folder = join(configDirectory(env), 'sandbox');
  await mkdir(folder, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw cannotWrite(folder, error);
  });
  return folder;
}

async function writeSecret(file: string, secret: string): Promise<string> {
  await writeFileAtomic(file, secret + '\n', 0o600);
  return file;
}

/** Where the sandbox listens and its client, as the startup output and the written profile both name them. */
function whereItListens(sandbox: Sandbox) {
  return {
    gateway: sandbox.gatewayUrl,
    authUrl: sandbox.authUrl,
    realm: sandbox.realm,
    queryEngine: sandbox.queryEngineUrl,
    queryCatalog: sandbox.queryCatalog,
    policyUri: sandbox.policyUri,
    policyBatchedUri: sandbox.policyBatchedUri,
    dashboardUrl: sandbox.dashboardUrl,
    clientId: sandbox.clientId,
  };
}
