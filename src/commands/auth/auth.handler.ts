/** `dpgw auth status` and `dpgw auth token`: the signed-in session, as the token cache or DPGW_TOKEN holds it. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { SessionSummary } from '../../auth/session.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import { serverText } from '../../text/terminal-text.js';
import { clock, sessionContext } from '../shared/session-context.js';
import type { AuthStatusCommand, AuthTokenCommand } from './auth.flags.js';

export const status: HandlerOf<AuthStatusCommand> = async (context) => {
  const { sessionStatus, loginHint } = await import('../../auth/session.js');
  const session = await sessionContext(context);
  const summary = await sessionStatus(session);
  const profile = session.session.profile;
  if (!summary) throw new DpgwError('NOT_SIGNED_IN', `not signed in (profile "${profile}")`, { hint: `${loginHint(session).replace(/ again$/, '')}, or set DPGW_TOKEN in a pipeline` });
  const now = Date.now();
  const accessExpired = summary.accessTokenExpiresAt !== undefined && Date.parse(summary.accessTokenExpiresAt) <= now;
  const refreshExpired = summary.refreshTokenExpiresAt !== undefined && Date.parse(summary.refreshTokenExpiresAt) <= now;
  // Signed in means a call can still get a token: a valid access token, a refresh token to renew it, or (a service account) the client's own grant.
  const usable = !accessExpired || (summary.source === 'cache' && ((!refreshExpired && summary.refreshTokenExpiresAt !== undefined) || summary.serviceAccountOf !== undefined));
  return {
    data: { ...summary, signedIn: usable, accessTokenExpired: accessExpired },
    exitCode: usable ? ExitCode.Ok : ExitCode.Auth,
    human: (style) => renderStatus(summary, usable, accessExpired, style),
  };
};

export const token: HandlerOf<AuthTokenCommand> = async (context) => {
  const { currentAccessToken } = await import('../../auth/session.js');
  const accessToken = await currentAccessToken(await sessionContext(context));
  // The one output that is a secret on purpose: it is what the user asked for.
  if (context.reporter.options.json) context.io.stdout.write(JSON.stringify({ accessToken }) + '\n');
  else context.io.stdout.write(accessToken + '\n');
  return { data: null, printed: true };
};
function renderStatus(summary: SessionSummary, usable: boolean, accessExpired: boolean, style: { bold(t: string): string; dim(t: string): string; green(t: string): string; red(t: string): string }): string[] {
  const lines = [
    // What the cache or DPGW_TOKEN says; the identity provider is not asked (it may have ended the session).
    `${usable ? style.green('signed in') : style.red('session expired')} ${style.dim(`(profile "${summary.profile}", as the ${summary.source === 'env' ? 'DPGW_TOKEN' : 'token cache'} says; the identity provider was not asked)`)}`,
    // Name, realm, issuer and groups are the token's claims (DPGW_TOKEN's unchecked): the provider's words, shown escaped.
    `  user     ${serverText(String(summary.username ?? '-'))}${summary.serviceAccountOf ? style.dim(`  (the service account of client ${summary.serviceAccountOf})`) : ''}`,
    `  realm    ${serverText(String(summary.realm ?? '-'))}${summary.issuer ? style.dim(`  ${serverText(String(summary.issuer))}`) : ''}`,
    `  groups   ${summary.groups.length ? serverText(summary.groups.join(', ')) : '-'}`,
    `  token    ${summary.accessTokenExpiresAt ? `${accessExpired ? 'expired' : 'valid until'} ${clock(summary.accessTokenExpiresAt)}` : '-'}`,
  ];
  if (summary.source === 'cache') lines.push(`  refresh  ${summary.refreshTokenExpiresAt ? `until ${clock(summary.refreshTokenExpiresAt)}` : summary.serviceAccountOf ? 'a new client-credentials grant when the token ends' : '-'}`);
  return lines;
}
