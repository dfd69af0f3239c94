/** The profile `dpgw config use` makes current, chosen from config.yaml's profiles (issue #36), the current one marked and first. */
import type { CommandContext } from '../../command-kit/command-context.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { ConfigFile } from '../../settings/config-file.js';
import { choosePrompt } from './prompts.js';

export async function askProfile(context: Pick<CommandContext, 'io'>, config: ConfigFile): Promise<string> {
  const names = [...config.profiles.keys()];
  if (names.length === 0) throw new DpgwError('PROFILE_NOT_FOUND', `${config.path} has no profiles to choose from`, { where: '<profile>', hint: '`dpgw config set gateway <url> --profile <name>` creates one' });
  const current = config.currentProfile?.value;
  return choosePrompt(
    context,
    'Profile:',
    names.map((name) => ({ value: name, name: name === current ? `${name}  (current)` : name, short: name })),
    { preferred: current !== undefined && names.includes(current) ? current : undefined },
  );
}
