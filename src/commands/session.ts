/** `dpgw login`, `dpgw logout`, `dpgw auth status`, `dpgw auth token`: thin over auth/session.ts. */
import type { CommandContext, HandlerModule, HandlerOf } from '../cli/command-context.js';
import type { SessionContext, SessionSummary } from '../auth/session.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { ExitCode } from '../errors/exit-code.js';
import { registerSecret } from '../secrets/redaction.js';
import { hiddenPrompt, textPrompt } from './prompts.js';

async function sessionContext(context: CommandContext): Promise<SessionContext> {
  return {
    settings: await context.settings(),
    env: context.io.env,
    warn: (message) => context.reporter.warn(message),
    trace: context.reporter.options.verbose ? (line) => context.reporter.trace(line) : undefined,
    prompt: context.canPrompt ? (message) => hiddenPrompt(context, message) : undefined,
  };
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin as AsyncIterable<string>) text += chunk;
  return text.replace(/\r?\n$/, '');
}

const login: HandlerOf<'login'> = async (context) => {
  const session = await sessionContext(context);
  const { settings } = session;
  const { login, requireIdentitySettings } = await import('../auth/session.js');
  // Where to sign in is checked before anyone is asked for a username or a password.
  requireIdentitySettings(session);
  let username = settings.values.username.value;
  if (username === undefined) {
    if (!context.canPrompt) throw new DpgwError('usage', 'no username to sign in as', { where: 'username', hint: 'pass --username, set DPGW_USERNAME, or `dpgw config set username …`' });
    username = await textPrompt(context, 'Username:');
  }
  let password: string;
  if (context.options.passwordStdin === true) {
    password = await readStdin(context.io.stdin);
    if (password === '') throw new DpgwError('usage', 'standard input held no password', { where: '--password-stdin', hint: 'pipe the password in: `dpgw login --password-stdin < file`' });
  } else if (context.io.env.DPGW_PASSWORD) {
    password = context.io.env.DPGW_PASSWORD;
  } else if (session.prompt) {
    password = await session.prompt(`Password for ${username}:`);
  } else {
    throw new DpgwError('usage', 'no password and no terminal to ask for one', { where: 'password', hint: 'pass --password-stdin (and pipe it in), or set DPGW_PASSWORD' });
  }
  registerSecret(password);

  const signedIn = await login(session, username, password);
  context.reporter.success(`signed in to realm ${signedIn.realm} as ${signedIn.username}${signedIn.groups.length ? ` (groups: ${signedIn.groups.join(', ')})` : ''}; token valid until ${clock(signedIn.accessTokenExpiresAt)}`);
  context.reporter.next('dpgw auth status');
  return { data: signedIn, human: () => '' };
};

const logout: HandlerOf<'logout'> = async (context) => {
  const { logout } = await import('../auth/session.js');
  const result = await logout(await sessionContext(context));
  const profile = (await context.settings()).profile;
  if (result.wasSignedIn) context.reporter.success(`signed out of profile "${profile}"${result.providerSessionEnded ? ' and ended the session at the identity provider' : ''}`);
  else context.reporter.info(`not signed in (profile "${profile}"); nothing to do`);
  return { data: { profile, ...result }, human: () => '' };
};

const status: HandlerOf<'auth status'> = async (context) => {
  const { sessionStatus, loginHint } = await import('../auth/session.js');
  const session = await sessionContext(context);
  const summary = await sessionStatus(session);
  const profile = session.settings.profile;
  if (!summary) throw new DpgwError('auth', `not signed in (profile "${profile}")`, { hint: `${loginHint(session).replace(/ again$/, '')}, or set DPGW_TOKEN in a pipeline` });
  const now = Date.now();
  const accessExpired = summary.accessTokenExpiresAt !== undefined && Date.parse(summary.accessTokenExpiresAt) <= now;
  const refreshExpired = summary.refreshTokenExpiresAt !== undefined && Date.parse(summary.refreshTokenExpiresAt) <= now;
  // Signed in means a call can still get a token: a valid access token, or a refresh token to renew it.
  const usable = !accessExpired || (summary.source === 'cache' && !refreshExpired && summary.refreshTokenExpiresAt !== undefined);
  return {
    data: { ...summary, signedIn: usable, accessTokenExpired: accessExpired },
    exitCode: usable ? ExitCode.Ok : ExitCode.Auth,
    human: (style) => renderStatus(summary, usable, accessExpired, style),
  };
};

const token: HandlerOf<'auth token'> = async (context) => {
  const { currentAccessToken } = await import('../auth/session.js');
  const accessToken = await currentAccessToken(await sessionContext(context));
  // The one output that is a secret on purpose: it is what the user asked for.
  if (context.reporter.options.json) context.io.stdout.write(JSON.stringify({ accessToken }) + '\n');
  else context.io.stdout.write(accessToken + '\n');
  return { data: null, printed: true };
};

function renderStatus(summary: SessionSummary, usable: boolean, accessExpired: boolean, style: { bold(t: string): string; dim(t: string): string; green(t: string): string; red(t: string): string }): string {
  const lines = [
    // What the cache or DPGW_TOKEN says; the identity provider is not asked (it may have ended the session).
    `${usable ? style.green('signed in') : style.red('session expired')} ${style.dim(`(profile "${summary.profile}", as the ${summary.source === 'env' ? 'DPGW_TOKEN' : 'token cache'} says; the identity provider was not asked)`)}`,
    `  user     ${summary.username ?? '-'}`,
    `  realm    ${summary.realm ?? '-'}${summary.issuer ? style.dim(`  ${summary.issuer}`) : ''}`,
    `  groups   ${summary.groups.length ? summary.groups.join(', ') : '-'}`,
    `  token    ${summary.accessTokenExpiresAt ? `${accessExpired ? 'expired' : 'valid until'} ${clock(summary.accessTokenExpiresAt)}` : '-'}`,
  ];
  if (summary.source === 'cache') lines.push(`  refresh  ${summary.refreshTokenExpiresAt ? `until ${clock(summary.refreshTokenExpiresAt)}` : '-'}`);
  return lines.join('\n');
}

function clock(iso: string | undefined): string {
  return iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}

export const handlers: HandlerModule['handlers'] = { login, logout, 'auth status': status, 'auth token': token };
