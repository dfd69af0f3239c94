/** `dpgw enable`: step 2 of the contract, waiting for the data set's topic. */
import { serverText } from '../../text/terminal-text.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { EnableCommand } from './enable.flags.js';
import type { EnableRequest } from '../../catalog/enable-data-set.js';
import { walkSteps } from '../../provision/executor.js';
import { ENABLE_STEPS, failureOf, type EnableInputs } from '../../provision/command-steps.js';
import { startProgress, type Progress } from '../../output/progress.js';
import { renderPlannedSteps } from '../shared/dry-run.js';
import { Questions } from '../shared/questions.js';
import { askEnablement, askGroups, enablementExists } from '../shared/catalog-questions.js';
import { offeredDataSetFlags } from '../shared/data-set-question.js';

export const enable: HandlerOf<EnableCommand> = async (context) => {
  const { options, reporter } = context;
  const questions = new Questions(context);
  const { dataSource, dataSet } = await offeredDataSetFlags(questions, context, options);
  const gateway = await context.gateway();
  let enablement = options.enablement;
  let groups = options.group ?? [];
  // A guided run (something was asked) asks for the enablement too; a scripted one takes the default, the data set's name.
  if (questions.asked && enablement === undefined) {
    const chosen = await askEnablement(context, gateway, dataSource, dataSet);
    questions.answered('--enablement', chosen.name);
    enablement = chosen.name;
    if (!chosen.exists) groups = await questions.flags('--group <group...>', groups, () => askGroups(context, chosen.name));
  } else if (questions.canAsk && groups.length === 0 && !(await enablementExists(gateway, dataSource, enablement ?? dataSet))) {
    // A new enablement needs its groups: asked for instead of refused.
    groups = await questions.flags('--group <group...>', groups, () => askGroups(context, enablement ?? dataSet));
  }
  questions.done();
  let progress: Progress | undefined;
  try {
    const request: EnableRequest = {
      dataSource,
      dataSet,
      groups,
      enablement,
      waitTimeoutMs: options.waitTimeout * 1000,
      warn: (message) => reporter.warn(message),
      onWaiting: (elapsed) => {
        progress ??= startProgress(reporter, context.io, `waiting for the topic of ${dataSet}`);
        progress.update(`waiting for the topic of ${dataSet} (${Math.round(elapsed / 1000)} s)`);
      },
    };
    const inputs: EnableInputs = { client: gateway, request };
    if (options.dryRun === true) {
      const planned = await walkSteps('plan', ENABLE_STEPS, inputs);
      return renderPlannedSteps(planned.steps, inputs.found ?? {});
    }
    // provision's enable step.
    const walked = await walkSteps('apply', ENABLE_STEPS, inputs);
    progress?.stop();
    if (walked.outcome !== 'done') throw failureOf(walked);
    const result = inputs.result!;
    const enablementNote = result.enablement.created ? `created enablement ${result.enablement.name} for groups ${result.enablement.groups.join(', ')}` : `reused enablement ${result.enablement.name}`;
    reporter.success(`${result.change === 'already' ? `${dataSet} was already enabled` : `enabled ${dataSet}`} (${enablementNote}); topic ${serverText(result.topic ?? '-')}`);
    reporter.next(`dpgw schema push <schema file>   then   dpgw table create --dataset ${dataSet} --schema <schema file>`);
    return {
      data: result,
      human: (style) =>
        // The catalog's words, escaped: no id or link can start a line of its own.
        [`${style.bold('topic')}      ${serverText(result.topic ?? '-')}`, `${style.bold('self link')}  ${serverText(result.selfHref ?? '-')}`, `${style.bold('storage')}    default ${serverText(result.storageId ?? '-')}`],
    };
  } finally {
    progress?.stop();
  }
};

