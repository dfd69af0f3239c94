/**
 * What `dpgw table delete <name>` and `dpgw schema delete <name>` do, as `gh repo delete` does
 * it: at a terminal the user types the name to confirm; without one `--yes` is needed (exit 2,
 * nothing sent); `--dry-run` reads as the run would and prints the DELETE it would send. The reads, the DELETE and
 * the wait until the store has dropped it are the delete step's (provision/steps/delete-step.ts).
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { requireName, shown } from '../../names/platform-names.js';
import type { CommandOutput } from '../../output/reporter.js';
import { startProgress } from '../../output/progress.js';
import { plannedDeletion, type DeletionTarget } from '../../provision/steps/delete-step.js';
import { walkSteps } from '../../provision/executor.js';
import { DELETION_STEPS, failureOf, recordOf, type DeletionInputs } from '../../provision/command-steps.js';
import { requireWord, timeoutMs } from '../../settings/setting-values.js';
import { plannedWithReads, renderPlannedSteps } from './dry-run.js';
import { textPrompt } from './prompts.js';

export interface DeleteOptions extends Record<string, unknown> {
  yes?: boolean;
  dryRun?: boolean;
}

export async function deleteFromStore(context: CommandContext<DeleteOptions>, kind: DeletionTarget['kind'], given: string): Promise<CommandOutput> {
  const { options, reporter, io } = context;
  const target: DeletionTarget = { kind, name: requireName(kind, given, '<name>') };
  const settings = await context.settings();
  const olapSegment = requireWord(settings, 'olapSegment');
  const deleting = DELETION_STEPS(kind);
  if (options.dryRun === true) {
    const planned = await plannedWithReads(
      async () => (await walkSteps('plan', deleting, { client: await context.gateway(), target, olapSegment, timeoutMs: timeoutMs(settings) })).steps,
      (why) => [plannedDeletion(target, olapSegment, `not read first: ${why}`)],
      (line) => reporter.warn(line),
    );
    return renderPlannedSteps(planned);
  }
  // Decided before any request: a script without --yes learns it at once, and nothing is sent.
  if (options.yes !== true && !context.canPrompt) {
    throw new DpgwError('CONFIRMATION_REQUIRED', `deleting ${kind} ${target.name} needs confirmation, and there is no terminal to ask on; nothing was sent`, { where: '--yes', hint: `pass --yes to delete it without asking: dpgw ${kind} delete ${target.name} --yes` });
  }
  const inputs: DeletionInputs = { client: await context.gateway(), target, olapSegment, timeoutMs: timeoutMs(settings) };
  // Read first (the plan): nobody is asked to confirm deleting what does not exist, or a schema a table still uses.
  const planned = recordOf(await walkSteps('plan', deleting, inputs), kind);
  if (options.yes !== true) {
    const typed = await textPrompt(context, `Type ${target.name} to delete ${kind} ${target.name} from the analytics store:`);
    if (typed.trim() !== target.name) throw new DpgwError('CONFIRMATION_MISMATCH', `${shown(typed.trim())} is not ${target.name}; nothing was deleted`, { hint: `type ${target.name} exactly, or pass --yes` });
  }
  const progress = startProgress(reporter, io, `deleting ${kind} ${target.name}`);
  let walked;
  try {
    walked = await walkSteps('apply', deleting, { ...inputs, waiting: (text) => progress.update(text) });
  } finally {
    progress.stop();
  }
  if (walked.outcome !== 'done') throw failureOf(walked);
  const record = recordOf(walked, kind);
  reporter.success(record.reason);
  return { data: { steps: [{ ...record, request: planned.request, ...(planned.owner !== undefined ? { owner: planned.owner } : {}) }] }, human: () => [] };
}
