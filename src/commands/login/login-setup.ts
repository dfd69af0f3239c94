/**
 * `dpgw login` for a profile that lacks settings (issue #48 §2), as `gh auth login` and `aws configure` do: at a
 * terminal it asks for the gateway, the identity provider, the realm (its discovery document read for the grants it
 * offers), the client, the grant, a reference to the client's secret and the user, checks each answer as its flag
 * would be checked (settings/setting-checks.ts) and asks again when wrong, and saves the answers to the profile in
 * config.yaml, so the next command of the profile needs no flag. No secret is saved: the client's secret only as a
 * reference (`prompt`, `env:…`, `file:…`), the password never. Without a terminal, one error names every setting
 * the login lacks, before any request.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Grant } from '../../auth/grants.js';
import { GRANTS } from '../../auth/grants.js';
import type { CommandContext } from '../../command-kit/command-context.js';
import { paths } from '../../contract/paths.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { plainHttpWarning } from '../../net/plain-http.js';
import { certificateAuthorities, plainGot } from '../../net/trust-and-proxy.js';
import { configDirectory, editProfile, loadConfigFile, saveConfigFile } from '../../settings/config-file.js';
import { resolveSettings, whereSet, type Settings } from '../../settings/resolve-settings.js';
import { settingValueProblem } from '../../settings/setting-checks.js';
import { definitionOf, flagName, type SettingKey } from '../../settings/setting-definitions.js';
import { requireSettings, timeoutMs } from '../../settings/setting-values.js';
import { serverText } from '../../text/terminal-text.js';
import { choosePrompt, confirmPrompt, textPrompt } from '../shared/prompts.js';
import type { Questions } from '../shared/questions.js';

/** Where a profile points: without any of these, `dpgw login` at a terminal sets the profile up. */
const PROFILE_SETUP_KEYS = ['gateway', 'authUrl', 'realm', 'clientId'] as const satisfies readonly SettingKey[];

/**
 * The realm offered first. The contract names the realm only as `{realm}`; this is the name the sandbox and the
 * README's examples give it, offered so Enter takes it and typing another name replaces it.
 */
const SUGGESTED_REALM = 'data-platform';

/** The OAuth grant type a discovery document's grant_types_supported lists for each of dpgw's grants (RFC 6749, RFC 8628). */
const OAUTH_GRANT_TYPES: Readonly<Record<Grant, string>> = {
  password: 'password',
  'client-credentials': 'client_credentials',
  device: 'urn:ietf:params:oauth:grant-type:device_code',
};

const GRANT_DESCRIPTIONS: Readonly<Record<Grant, string>> = {
  password: 'password: a user name and password',
  'client-credentials': "client-credentials: the client's service account, no user (pipelines)",
  device: 'device: approve in a browser (single sign-on, MFA)',
};

type LoginContext = Pick<CommandContext, 'name' | 'argv' | 'canPrompt' | 'reporter' | 'io' | 'options'>;

/** Whether the profile lacks where to sign in or the gateway: `dpgw login` at a terminal then asks. */
export function profileNeedsSetup(settings: Settings): boolean {
  return PROFILE_SETUP_KEYS.some((key) => settings.values[key].value === undefined);
}

/**
 * With no one to ask: every setting this login needs that is set nowhere, in one error (exit 2), before any request.
 * When where to sign in or the user is missing, the list is the one a terminal asks for, the gateway and the client's
 * secret too (a session is cached for the gateway set at sign-in); a missing client secret alone keeps its own error,
 * whose hint says how a reference is written.
 */
export function requireLoginSettings(settings: Settings, grant: Grant, noInput: boolean): void {
  const signIn: SettingKey[] = ['authUrl', 'realm', 'clientId', ...(grant === 'password' ? (['username'] as const) : [])];
  if (signIn.every((key) => settings.values[key].value !== undefined)) return;
  const needed: SettingKey[] = ['gateway', ...signIn, ...(grant !== 'device' ? (['clientSecret'] as const) : [])];
  requireSettings(settings, needed, `set each with its flag, its variable, or \`dpgw config set <key> <value>\`; ${noInput ? 'without --no-input, ' : ''}at a terminal \`dpgw login\` asks for them and saves them to the profile`);
}

/** What the realm's discovery document says, or why it could not be read. */
type Discovery = { grants: readonly Grant[] | undefined } | { problem: string };

/**
 * The line before the first question. A new profile is said as such, with the ones there are: a misspelt --profile
 * is seen before anything is saved (Ctrl-C leaves config.yaml as it was).
 */
function setupOpening(settings: Settings, lacking: readonly SettingKey[]): string {
  if (settings.config.profiles.has(settings.profile)) return `profile "${settings.profile}" has no ${lacking.join(', ')} yet: dpgw asks, then saves the answers to it`;
  const known = [...settings.config.profiles.keys()].map((name) => `"${name}"`);
  return `profile "${settings.profile}" is new (${known.length ? `config.yaml has ${known.join(', ')}` : 'config.yaml has no profile yet'}): dpgw asks for its settings, then saves them to it`;
}

/**
 * Asks for the profile's missing settings, saves them to config.yaml, and returns the settings resolved again with
 * them (the answers are then the profile's, as the next command will read them). The questions record their flags, for
 * the command line that does the same without questions.
 */
export async function setUpProfile(context: LoginContext, settings: Settings, questions: Questions): Promise<Settings> {
  const { values } = settings;
  const answers = new Map<SettingKey, string>();
  const answer = (key: SettingKey, value: string) => {
    answers.set(key, value);
    questions.answered(flagName(definitionOf(key).flag!), value);
  };
  const current = (key: SettingKey) => answers.get(key) ?? values[key].value;
  const lacking = PROFILE_SETUP_KEYS.filter((key) => values[key].value === undefined);
  context.reporter.info(setupOpening(settings, lacking));

  if (values.gateway.value === undefined) answer('gateway', await askUrl(context, 'gateway', 'Gateway URL:'));

  // Where to sign in: the provider and its realm, asked again (or kept) while its discovery document cannot be read.
  const askAuthUrl = values.authUrl.value === undefined;
  const askRealm = values.realm.value === undefined;
  let discovery: Discovery | undefined;
  for (;;) {
    if (askAuthUrl) answers.set('authUrl', await askUrl(context, 'authUrl', 'Identity provider URL (before /auth/realms):', answers.get('authUrl')));
    if (askRealm) answers.set('realm', await askText(context, 'realm', 'Realm:', answers.get('realm') ?? SUGGESTED_REALM));
    discovery = await readDiscovery(context, settings, current('authUrl')!, current('realm')!);
    if (!('problem' in discovery)) break;
    context.reporter.warn(discovery.problem);
    if (!askAuthUrl && !askRealm) break;
    const again = await choosePrompt(context, 'Enter them again?', [
      { value: true, name: 'enter the identity provider URL and realm again' },
      { value: false, name: 'keep them (the sign-in below says what is wrong)' },
    ]);
    if (!again) break;
  }
  for (const key of ['authUrl', 'realm'] as const) if (answers.has(key)) answer(key, answers.get(key)!);
  let grantsOffered = discovery && !('problem' in discovery) ? discovery.grants : undefined;
  if (grantsOffered?.length === 0) {
    // A realm that lists none of dpgw's grants leaves nothing to choose: all three are offered, the sign-in says which the provider refuses.
    context.reporter.warn(`realm ${current('realm')!}'s discovery document lists none of the grants dpgw signs in with (password, client_credentials, device_code)`);
    grantsOffered = undefined;
  }

  if (values.clientId.value === undefined) answer('clientId', await askText(context, 'clientId', 'Client id:'));
  const clientId = current('clientId')!;

  let grant = (values.grant.value ?? 'password') as Grant;
  if (values.grant.source.kind === 'default' || values.grant.source.kind === 'unset') {
    grant = await askGrant(context, current('realm')!, grantsOffered);
    answer('grant', grant);
  }

  if (values.clientSecret.value === undefined) {
    // The device grant works with a public client (its id alone); the other grants send the client's secret.
    const confidential = grant !== 'device' || (await confirmPrompt(context, `Does client ${clientId} have a secret (a confidential client)?`));
    if (confidential) answer('clientSecret', await askSecretReference(context, clientId));
  }

  if (grant === 'password' && values.username.value === undefined) answer('username', await askText(context, 'username', 'Username:'));

  return saveAnswers(context, settings, answers);
}

/** A URL, checked as its flag is (an http(s) URL, no credentials in it), asked again when wrong; a plain-HTTP one off this machine is warned about, as its flag is. */
async function askUrl(context: LoginContext, key: 'gateway' | 'authUrl', message: string, previous?: string): Promise<string> {
  const url = (await askText(context, key, message, previous)).replace(/\/+$/, '');
  const unencrypted = plainHttpWarning(url, key === 'gateway' ? 'the gateway' : 'the identity provider', key === 'gateway' ? 'the bearer token and the stream password' : 'the password and the client secret');
  if (unencrypted) context.reporter.warn(unencrypted);
  return url;
}

/** Free text, checked as the setting's flag is (setting-checks.ts), asked again until it fits. */
function askText(context: LoginContext, key: SettingKey, message: string, suggested?: string): Promise<string> {
  return textPrompt(context, message, {
    default: suggested,
    check: (text) => (text === '' ? `give the ${definitionOf(key).description}` : settingValueProblem(key, text)),
  });
}

/** The grant, from those the realm's discovery document lists (the others shown, not chosen); all three when it lists none. */
async function askGrant(context: LoginContext, realm: string, offered: readonly Grant[] | undefined): Promise<Grant> {
  const choices = GRANTS.map((grant) => ({
    value: grant,
    name: GRANT_DESCRIPTIONS[grant],
    short: grant,
    ...(offered === undefined || offered.includes(grant) ? {} : { disabled: `realm ${realm} does not offer it` }),
  }));
  const preferred = choices.find((choice) => choice.disabled === undefined)?.value ?? 'password';
  return choosePrompt(context, 'How do you sign in?', choices, { preferred });
}

/**
 * Where the client's secret comes from, as a reference: the way chosen from a list, then the variable, file or command
 * it names. The secret itself is never typed here (an answer line shows what is typed), so it is never saved.
 */
async function askSecretReference(context: LoginContext, clientId: string): Promise<string> {
  const scheme = await choosePrompt(context, `Where does dpgw read the secret of client ${clientId} from? (the profile keeps where, never the secret)`, [
    { value: 'prompt', name: 'ask for it at each sign-in (hidden)', short: 'prompt' },
    { value: 'env', name: 'an environment variable (env:NAME)', short: 'env' },
    { value: 'file', name: 'a file (file:PATH)', short: 'file' },
    { value: 'exec', name: 'a command that prints it (exec:COMMAND)', short: 'exec' },
  ] as const);
  if (scheme === 'prompt') return 'prompt';
  const [message, problem] = SECRET_SOURCE_QUESTIONS[scheme];
  const detail = await textPrompt(context, message, { check: (text) => problem(text) ?? settingValueProblem('clientSecret', `${scheme}:${text}`) });
  return `${scheme}:${detail}`;
}

/** For each secret source: its question, and what is wrong with an answer (undefined: nothing). */
const SECRET_SOURCE_QUESTIONS: Readonly<Record<'env' | 'file' | 'exec', readonly [string, (text: string) => string | undefined]>> = {
  env: ['Variable name:', (text) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text) ? undefined : `"${text}" is not an environment variable name`)],
  file: ['File path:', (text) => (text === '' ? 'give the path of the file that holds the secret' : existsSync(expandHome(text)) ? undefined : `there is no file at ${text}`)],
  exec: ['Command (run without a shell):', (text) => (text === '' ? 'give the command that prints the secret' : undefined)],
};

/** `~/x` as a file: reference reads it (secret-reference.ts: HOME, else the account's home). */
function expandHome(path: string): string {
  return path.startsWith('~/') ? join(process.env.HOME || homedir(), path.slice(2)) : path;
}

/**
 * The realm's discovery document (`{auth_url}/auth/realms/{realm}/.well-known/openid-configuration`), read with the
 * identity client's trust and proxy rules, for the grants it lists; or why it could not be read, in one line. The real
 * sign-in reads it again and checks its issuer and endpoints before anything secret is sent.
 */
async function readDiscovery(context: LoginContext, settings: Settings, authUrl: string, realm: string): Promise<Discovery> {
  const url = `${authUrl}${paths.realmIssuer(realm)}/.well-known/openid-configuration`;
  const ca = certificateAuthorities(settings.values.caFile.value, whereSet(settings.values.caFile), context.io.env);
  const { got, agents } = plainGot(authUrl, ca, timeoutMs(settings));
  try {
    const response = await got(url, { headers: { accept: 'application/json' } });
    if (response.statusCode === 404) return { problem: `the identity provider at ${authUrl} has no realm ${realm} (GET ${url} answered 404): check the URL and the realm` };
    if (response.statusCode !== 200) return { problem: `the identity provider at ${authUrl} answered ${response.statusCode} for realm ${realm}'s discovery document (${url})` };
    let document: unknown;
    try {
      document = JSON.parse(response.body as unknown as string);
    } catch {
      return { problem: `${url} is not a discovery document (not JSON): is ${authUrl} the identity provider's URL, before /auth/realms?` };
    }
    const listed = (document as { grant_types_supported?: unknown }).grant_types_supported;
    if (!Array.isArray(listed)) return { grants: undefined };
    return { grants: GRANTS.filter((grant) => listed.includes(OAUTH_GRANT_TYPES[grant])) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { problem: `cannot read realm ${realm}'s discovery document at ${url} (${serverText(code ?? (error as Error).message)}): check the URL, your network and HTTPS_PROXY / NO_PROXY` };
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
}

/** The answers written to the profile in config.yaml (0600), and the settings read again with them. */
async function saveAnswers(context: LoginContext, settings: Settings, answers: ReadonlyMap<SettingKey, string>): Promise<Settings> {
  if (answers.size === 0) return settings;
  const config = await loadConfigFile(configDirectory(context.io.env));
  for (const [key, value] of answers) editProfile(config, settings.profile, definitionOf(key).profileKey!, value);
  await saveConfigFile(config);
  context.reporter.info(`saved ${[...answers.keys()].join(', ')} to profile "${settings.profile}" (${config.path})`);
  const again = await resolveSettings({ flags: context.options as Record<string, unknown>, env: context.io.env });
  if (again.profile !== settings.profile) throw new DpgwError('CONFIG_INVALID', `the settings named profile "${again.profile}" after profile "${settings.profile}" was saved`, { where: config.path });
  return again;
}
