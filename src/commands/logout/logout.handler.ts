/** `dpgw logout`: forget the cached token and end the session at the identity provider. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import { sessionContext } from '../shared/session-context.js';
import type { LogoutCommand } from './logout.flags.js';

export const logout: HandlerOf<LogoutCommand> = async (context) => {
  const { logout } = await import('../../auth/session.js');
  const result = await logout(await sessionContext(context));
  const profile = (await context.settings()).profile;
  const who = result.signedOut.length ? ` as ${[...new Set(result.signedOut)].join(', ')}` : '';
  if (result.wasSignedIn) context.reporter.success(`signed out of profile "${profile}"${who}${result.providerSessionEnded ? ' and ended the session at the identity provider' : ''}`);
  else context.reporter.info(`not signed in (profile "${profile}") as the identity its settings name; nothing to do`);
  // Sessions of other identities of the profile (a DPGW_USERNAME=analyst run's) stay, each until a logout that names it.
  if (result.kept.length) context.reporter.info(`still cached for profile "${profile}": ${[...new Set(result.kept)].join('; ')} — each ends with \`dpgw logout\` under its own settings (--username, --client-id, --grant)`);
  return { data: { profile, ...result }, human: () => [] };
};
