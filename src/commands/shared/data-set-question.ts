/**
 * `--dataset` of the commands that work on an enabled data set (table create|render, storage
 * touch, verify, dashboard): as given, else chosen among the enabled ones (issue #36). When
 * the chosen name is enabled in several enablements, the one chosen becomes `--enablement`
 * (where the command has it and it was not given), so the run and the printed command line
 * name the same data set.
 */
import type { CommandContext } from '../../cli/command-context.js';
import { askEnabledDataSet } from './catalog-questions.js';
import type { Questions } from './questions.js';

export const DATA_SET_FLAG = '--dataset <name>';

export async function dataSetFlag(
  questions: Questions,
  context: Pick<CommandContext, 'io' | 'gateway'>,
  given: { dataset?: string; enablement?: string },
  hasEnablementFlag: boolean,
): Promise<{ dataSet: string; enablement?: string }> {
  let enablement = given.enablement;
  let chosenEnablement: string | undefined;
  const dataSet = await questions.flag(DATA_SET_FLAG, given.dataset, async () => {
    const chosen = await askEnabledDataSet(context, await context.gateway());
    chosenEnablement = chosen.enablement;
    return chosen.dataSet;
  });
  if (hasEnablementFlag && enablement === undefined && chosenEnablement !== undefined) {
    questions.answered('--enablement', chosenEnablement);
    enablement = chosenEnablement;
  }
  return { dataSet, ...(enablement !== undefined ? { enablement } : {}) };
}
