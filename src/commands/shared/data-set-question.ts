/**
 * `--dataset` of the commands that work on an enabled data set (table create|render, storage
 * touch, verify, dashboard): as given, else chosen among the enabled ones (issue #36). When
 * the chosen name is enabled in several enablements, the one chosen becomes `--enablement`
 * (where the command has it and it was not given), so the run and the printed command line
 * name the same data set.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import { askDataSource, askEnabledDataSet, askOfferedDataSet } from './catalog-questions.js';
import type { Questions } from './questions.js';

export const DATA_SET_FLAG = '--dataset <name>';
export const DATA_SOURCE_FLAG = '--datasource <name|id>';

/**
 * `--datasource` and `--dataset` of the commands that take a data set before it is enabled
 * (enable, init): as given, else the data source and one it offers (each shown enabled or not)
 * asked for; without a terminal, one error naming both when both are missing, before any request.
 */
export async function offeredDataSetFlags(questions: Questions, context: Pick<CommandContext, 'io' | 'gateway'>, given: { datasource?: string; dataset?: string }): Promise<{ dataSource: string; dataSet: string }> {
  questions.require([
    { flag: DATA_SOURCE_FLAG, given: given.datasource },
    { flag: DATA_SET_FLAG, given: given.dataset },
  ]);
  const gateway = await context.gateway();
  const dataSource = await questions.flag(DATA_SOURCE_FLAG, given.datasource, () => askDataSource(context, gateway));
  const dataSet = await questions.flag(DATA_SET_FLAG, given.dataset, () => askOfferedDataSet(context, gateway, dataSource));
  return { dataSource, dataSet };
}

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
