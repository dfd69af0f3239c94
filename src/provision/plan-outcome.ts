/**
 * What a plan comes to, as docs/provision.md documents it: whether anything would change,
 * how many steps would take each action, the data sets refused, and the plan's exit code.
 * Every renderer of a plan (terminal, Markdown, JSON, the job's summary) reads these.
 */
import { ExitCode } from '../errors/exit-code.js';
import type { DataSetResult } from './provision-run.js';
import type { PrunePlan } from './prune.js';
import { PLAN_ACTIONS, type PlanAction, type StepRecord } from './steps/step-record.js';

export interface PlanOutcome {
  /** Anything would change outside a refused data set (a prune's deletions too), or could not be compared. */
  changes: boolean;
  /** How many steps would take each action, zeros included. */
  actions: Record<PlanAction, number>;
  /** The data sets that would change; a refused one is not among them. */
  changingDataSets: number;
  /** The data sets with a refused step. */
  refusedDataSets: number;
  /** The steps that would create, update or delete something, outside a refused data set, a prune's deletions included. */
  changingSteps: number;
  exitCode: number;
}

/** A refused step blocks the rest of its data set: nothing of it is sent, so it counts as refused only, never as a change. */
const isRefused = (r: DataSetResult) => r.steps.some((step) => step.action === 'refused');

export function planOutcome(planned: DataSetResult[], pruning: PrunePlan | undefined, detailedExitcode: boolean): PlanOutcome {
  const going = planned.filter((r) => !isRefused(r));
  const changingDataSets = going.filter((r) => r.changed).length;
  const changes = changingDataSets > 0 || planned.some((r) => r.uncompared) || (pruning?.steps.length ?? 0) > 0;
  const actions = countActions([...planned.flatMap((r) => r.steps), ...(pruning?.steps ?? [])]);
  const refusedDataSets = planned.length - going.length;
  const changing = countActions([...going.flatMap((r) => r.steps), ...(pruning?.steps ?? [])]);
  const changingSteps = changing.create + changing.update + changing.delete;
  // A refused or blocked step means the run would fail: exit 2 at plan time, with or without --detailed-exitcode.
  // Else --detailed-exitcode: 0 only when everything was read back and matches the manifest.
  const exitCode = actions.refused + actions.blocked > 0 ? ExitCode.Usage : detailedExitcode && changes ? ExitCode.Changed : ExitCode.Ok;
  return { changes, actions, changingDataSets, refusedDataSets, changingSteps, exitCode };
}

/** How many steps of the plan would take each action (every action counted, zeros too, so a pipeline reads any of them). */
function countActions(steps: StepRecord[]): Record<PlanAction, number> {
  const counts = Object.fromEntries(PLAN_ACTIONS.map((action) => [action, 0])) as Record<PlanAction, number>;
  for (const step of steps) if (step.action) counts[step.action]++;
  return counts;
}
