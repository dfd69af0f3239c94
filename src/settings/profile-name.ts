/**
 * The one rule for a profile name. A name becomes part of file names (the token cache, the
 * sandbox's secret files), so `/`, `..` and the like would write outside dpgw's folders.
 */
import { DpgwError } from '../errors/dpgw-error.js';

const PROFILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

export const PROFILE_NAME_RULE = 'letters, digits, `-`, `_` and `.`, not starting with `.`, at most 64 characters';

/** Refused with exit 2 before anything is written; `where` names the flag or variable that gave it. */
export function checkProfileName(name: string, where: string): void {
  if (PROFILE_NAME.test(name)) return;
  throw new DpgwError('NAME_INVALID', `profile name ${JSON.stringify(name)} is not allowed`, { where, hint: `a profile name has ${PROFILE_NAME_RULE}` });
}
