/** `dpgw login`: the password grant, and the token cached for the profile (auth/session.ts). */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { registerSecret } from '../../secrets/redaction.js';
import { configDirectory, editProfile, loadConfigFile, saveConfigFile } from '../../settings/config-file.js';
import { describeSource, resolveSettings, type Settings } from '../../settings/resolve-settings.js';
import { definitionOf, flagName, SIGN_IN_KEYS } from '../../settings/setting-definitions.js';
import { serverText } from '../../text/terminal-text.js';
import type { Grant } from '../../auth/grants.js';
import { checkedWhenSet } from '../../settings/setting-values.js';
import { textPrompt } from '../shared/prompts.js';
import { Questions } from '../shared/questions.js';
import { profileNeedsSetup, requireLoginSettings, setUpProfile } from './login-setup.js';
import { clock, sessionContext } from '../shared/session-context.js';
import type { LoginCommand } from './login.flags.js';

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin as AsyncIterable<string>) text += chunk;
  return text.replace(/\r?\n$/, '');
}

/** A code's lifetime as given: `45 s` under a minute (a 2 s code is not "1 min"), else whole minutes. */
function lifetime(seconds: number): string {
  return seconds < 60 ? `${Math.max(0, Math.floor(seconds))} s` : `${Math.round(seconds / 60)} min`;
}


/**
 * The identity flags of a login, saved to the profile it signed in for: the next command of the
 * profile names the same identity, so the session just cached serves it (a session of another
 * identity never does). A variable that beats the profile and names another value is said, with
 * the flags the next command then needs.
 */
async function keepIdentityFlags(context: Parameters<HandlerOf<LoginCommand>>[0], settings: Settings): Promise<void> {
  // The settings a login's flags may name, kept for the profile's next commands; the client secret as its reference.
  const given = SIGN_IN_KEYS.filter((key) => settings.values[key].source.kind === 'flag');
  if (given.length === 0) return;
  const flags = given.map((key) => flagName(definitionOf(key).flag!));
  try {
    const config = await loadConfigFile(configDirectory(context.io.env));
    for (const key of given) editProfile(config, settings.profile, definitionOf(key).profileKey!, settings.values[key].value!);
    await saveConfigFile(config);
    context.reporter.info(`saved ${flags.join(', ')} to profile "${settings.profile}" (${config.path}), so its next command signs in as this identity`);
  } catch (error) {
    if (!(error instanceof DpgwError)) throw error;
    context.reporter.warn(`cannot save ${flags.join(', ')} to profile "${settings.profile}": ${error.message}; give the next command the same flags`);
  }
  // A variable set to another value beats the profile: the next command would name another identity.
  const beaten = given.filter((key) => {
    const variable = definitionOf(key).env;
    const value = variable === undefined ? undefined : context.io.env[variable];
    return value !== undefined && value !== '' && (key === 'clientSecret' || value !== settings.values[key].value);
  });
  if (beaten.length > 0) {
    const variables = beaten.map((key) => definitionOf(key).env!).join(', ');
    const again = beaten.map((key) => (key === 'clientSecret' ? '--client-secret <ref>' : `${flagName(definitionOf(key).flag!)} ${settings.values[key].value!}`)).join(' ');
    context.reporter.warn(`${variables} ${beaten.length === 1 ? 'is' : 'are'} set and beat${beaten.length === 1 ? 's' : ''} the profile: unset ${beaten.length === 1 ? 'it' : 'them'}, or give the next command ${again}`);
  }
}

export const login: HandlerOf<LoginCommand> = async (context) => {
  // At a terminal a profile named but not yet in config.yaml is set up here (`dpgw --profile staging login`), as
  // `aws configure --profile` does; every other command, and a login with no one to ask, refuses an unknown profile.
  let settings = context.canPrompt ? await resolveSettings({ flags: context.options as Record<string, unknown>, env: context.io.env, newProfile: true }) : await context.settings();
  // Only when there is a profile to set up: with everything given by flags or variables, a misspelt --profile would
  // otherwise be created without a word.
  if (!settings.config.profiles.has(settings.profile) && !profileNeedsSetup(settings)) settings = await context.settings();
  const questions = new Questions(context);
  // A grant given wrongly is said before anything is asked.
  const givenGrant = (checkedWhenSet(settings, 'grant', 'give password, client-credentials or device') ?? 'password') as Grant;
  if (!context.canPrompt) {
    // With no one to ask: every setting the login lacks, in one error, before any request.
    requireLoginSettings(settings, givenGrant, context.argv.includes('--no-input'));
  } else if (profileNeedsSetup(settings)) {
    settings = await setUpProfile(context, settings, questions);
  }
  const session = await sessionContext(context, settings);
  const { login: signIn, loginAsServiceAccount, loginWithDevice, requireIdentitySettings } = await import('../../auth/session.js');
  // Where to sign in is checked before anyone is asked for a username or a password.
  requireIdentitySettings(session);
  const grant = session.session.grant;
  // A password piped to a grant that reads none would be ignored, and a script would wait on a browser sign-in instead.
  if (grant !== 'password' && context.options.passwordStdin === true) {
    throw new DpgwError('CONFLICTING_ARGUMENTS', `it reads a password, but grant ${grant} (${describeSource(settings.values.grant.source)}) signs in without one`, {
      where: '--password-stdin',
      hint: 'pass --grant password to sign in with the password, or leave out --password-stdin',
    });
  }
  if (grant !== 'password') {
    const signedIn =
      grant === 'client-credentials'
        ? await loginAsServiceAccount(session)
        : await loginWithDevice(session, (code) => {
            // On stderr, even with --quiet (the person must see it to go on); stdout stays the command's data (--json).
            // The provider's words reach the terminal as text only.
            const lines = [`to sign in, open ${serverText(code.verificationUri)} and enter the code ${serverText(code.userCode)}`];
            if (code.verificationUriComplete) lines.push(`or open ${serverText(code.verificationUriComplete)}`);
            lines.push(`waiting for the approval in the browser (the code expires in ${lifetime(code.expiresInSeconds)})…`);
            for (const line of lines) context.reporter.notice(line);
          });
    // The name and groups are the token's claims: the provider's words, shown escaped.
    const who = signedIn.serviceAccountOf ? `the service account of client ${signedIn.serviceAccountOf} (${serverText(String(signedIn.username))})` : serverText(String(signedIn.username));
    context.reporter.success(`signed in to realm ${signedIn.realm} as ${who}${signedIn.groups.length ? ` (groups: ${serverText(signedIn.groups.join(', '))})` : ''}; token valid until ${clock(signedIn.accessTokenExpiresAt)}`);
    await keepIdentityFlags(context, settings);
    questions.done();
    context.reporter.next('dpgw auth status');
    return { data: signedIn, human: () => [] };
  }
  let username = session.session.username;
  if (username === undefined) {
    if (!context.canPrompt) throw new DpgwError('SETTING_MISSING', 'no username to sign in as', { where: 'username', hint: 'pass --username, set DPGW_USERNAME, or `dpgw config set username …`' });
    username = await textPrompt(context, 'Username:');
  }
  let password: string;
  if (context.options.passwordStdin === true) {
    password = await readStdin(context.io.stdin);
    if (password === '') throw new DpgwError('PASSWORD_MISSING', 'standard input held no password', { where: '--password-stdin', hint: 'pipe the password in: `dpgw login --password-stdin < file`' });
  } else if (context.io.env.DPGW_PASSWORD) {
    password = context.io.env.DPGW_PASSWORD;
  } else if (session.prompt) {
    password = await session.prompt(`Password for ${username}:`);
  } else {
    throw new DpgwError('PASSWORD_MISSING', 'no password and no terminal to ask for one', { where: 'password', hint: 'pass --password-stdin (and pipe it in), or set DPGW_PASSWORD' });
  }
  registerSecret(password);

  const signedIn = await signIn(session, username, password);
  // The groups are the token's claims: the provider's words, shown escaped.
  context.reporter.success(`signed in to realm ${signedIn.realm} as ${serverText(String(signedIn.username))}${signedIn.groups.length ? ` (groups: ${serverText(signedIn.groups.join(', '))})` : ''}; token valid until ${clock(signedIn.accessTokenExpiresAt)}`);
  await keepIdentityFlags(context, settings);
  questions.done();
  context.reporter.next('dpgw auth status');
  return { data: signedIn, human: () => [] };
};
