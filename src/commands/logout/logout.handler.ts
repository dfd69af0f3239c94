/** `dpgw logout`: forget the cached token and end the session at the identity provider. */
import type { HandlerOf } from '../../cli/command-definition.js';
import { sessionContext } from '../shared/session-context.js';
import type { LogoutCommand } from './logout.command.js';

export const logout: HandlerOf<LogoutCommand> = async (context) => {
  const { logout } = await import('../../auth/session.js');
  const result = await logout(await sessionContext(context));
  const profile = (await context.settings()).profile;
  if (result.wasSignedIn) context.reporter.success(`signed out of profile "${profile}"${result.providerSessionEnded ? ' and ended the session at the identity provider' : ''}`);
  else context.reporter.info(`not signed in (profile "${profile}"); nothing to do`);
  return { data: { profile, ...result }, human: () => [] };
};
