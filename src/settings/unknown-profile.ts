/**
 * The one hint for a profile config.yaml does not hold: the profiles it does hold (a
 * newcomer's profile is often in another config folder, e.g. written under another
 * DPGW_CONFIG_DIR), the folder read and why that one, and how to create the profile.
 */
import { closestMatch } from '../text/closest-match.js';
import type { ConfigValues } from './config-location.js';

export function unknownProfileHint(profile: string, config: ConfigValues, env: NodeJS.ProcessEnv): string {
  const known = [...config.profiles.keys()];
  const near = closestMatch(profile, known);
  const create = `create it with \`dpgw config set --profile ${profile} gateway <url>\` or \`dpgw sandbox --write-profile ${profile}\``;
  // Which folder was read and why: a profile written under another DPGW_CONFIG_DIR is not in this one.
  const folder = env.DPGW_CONFIG_DIR ? 'the config folder DPGW_CONFIG_DIR names' : env.XDG_CONFIG_HOME ? 'the config folder under XDG_CONFIG_HOME' : 'the default config folder';
  const held = known.length ? `known profiles: ${known.join(', ')}${near ? ` (did you mean "${near}"?)` : ''}` : 'no profiles exist yet';
  return `${held} in ${folder}; or ${create}`;
}
