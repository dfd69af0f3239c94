/** `dpgw login`: the password grant, and the token cached for the profile (auth/session.ts). */
import type { HandlerOf } from '../../cli/command-definition.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { registerSecret } from '../../secrets/redaction.js';
import { serverText } from '../../text/terminal-text.js';
import { textPrompt } from '../shared/prompts.js';
import { clock, sessionContext } from '../shared/session-context.js';
import type { LoginCommand } from './login.command.js';

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin as AsyncIterable<string>) text += chunk;
  return text.replace(/\r?\n$/, '');
}

export const login: HandlerOf<LoginCommand> = async (context) => {
  const session = await sessionContext(context);
  const { login: signIn, loginAsServiceAccount, loginWithDevice, requireIdentitySettings } = await import('../../auth/session.js');
  // Where to sign in is checked before anyone is asked for a username or a password.
  requireIdentitySettings(session);
  const grant = session.session.grant;
  if (grant !== 'password') {
    const signedIn =
      grant === 'client-credentials'
        ? await loginAsServiceAccount(session)
        : await loginWithDevice(session, (code) => {
            // On stderr, even with --quiet (the person must see it to go on); stdout stays the command's data (--json).
            // The provider's words reach the terminal as text only.
            const lines = [`to sign in, open ${serverText(code.verificationUri)} and enter the code ${serverText(code.userCode)}`];
            if (code.verificationUriComplete) lines.push(`or open ${serverText(code.verificationUriComplete)}`);
            lines.push(`waiting for the approval in the browser (the code expires in ${Math.max(1, Math.round(code.expiresInSeconds / 60))} min)…`);
            for (const line of lines) context.reporter.notice(line);
          });
    // The name and groups are the token's claims: the provider's words, shown escaped.
    const who = signedIn.serviceAccountOf ? `the service account of client ${signedIn.serviceAccountOf} (${serverText(String(signedIn.username))})` : serverText(String(signedIn.username));
    context.reporter.success(`signed in to realm ${signedIn.realm} as ${who}${signedIn.groups.length ? ` (groups: ${serverText(signedIn.groups.join(', '))})` : ''}; token valid until ${clock(signedIn.accessTokenExpiresAt)}`);
    context.reporter.next('dpgw auth status');
    return { data: signedIn, human: () => [] };
  }
  let username = session.session.username;
  if (username === undefined) {
    if (!context.canPrompt) throw new DpgwError('usage', 'no username to sign in as', { code: 'SETTING_MISSING', where: 'username', hint: 'pass --username, set DPGW_USERNAME, or `dpgw config set username …`' });
    username = await textPrompt(context, 'Username:');
  }
  let password: string;
  if (context.options.passwordStdin === true) {
    password = await readStdin(context.io.stdin);
    if (password === '') throw new DpgwError('usage', 'standard input held no password', { code: 'PASSWORD_MISSING', where: '--password-stdin', hint: 'pipe the password in: `dpgw login --password-stdin < file`' });
  } else if (context.io.env.DPGW_PASSWORD) {
    password = context.io.env.DPGW_PASSWORD;
  } else if (session.prompt) {
    password = await session.prompt(`Password for ${username}:`);
  } else {
    throw new DpgwError('usage', 'no password and no terminal to ask for one', { code: 'PASSWORD_MISSING', where: 'password', hint: 'pass --password-stdin (and pipe it in), or set DPGW_PASSWORD' });
  }
  registerSecret(password);

  const signedIn = await signIn(session, username, password);
  // The groups are the token's claims: the provider's words, shown escaped.
  context.reporter.success(`signed in to realm ${signedIn.realm} as ${serverText(String(signedIn.username))}${signedIn.groups.length ? ` (groups: ${serverText(signedIn.groups.join(', '))})` : ''}; token valid until ${clock(signedIn.accessTokenExpiresAt)}`);
  context.reporter.next('dpgw auth status');
  return { data: signedIn, human: () => [] };
};
