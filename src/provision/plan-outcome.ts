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
  /** Anything would change (a prune's deletions too), or could not be compared. */
  changes: boolean;
  /** How many steps would take each action, zeros included. */
  actions: Record<PlanAction, number>;
  /** The data sets with a refused step. */
  refusedDataSets: number;
  exitCode: number;
}

export function planOutcome(planned: DataSetResult[], pruning: PrunePlan | undefined, detailedExitcode: boolean): PlanOutcome {
  const changes = planned.some((r) => r.changed || r.uncompared) || (pruning?.steps.length ?? 0) > 0;
  const actions = countActions([...planned.flatMap((r) => r.steps), ...(pruning?.steps ?? [])]);
  const refusedDataSets = planned.filter((r) => r.steps.some((step) => step.action === 'refused')).length;
  // A refused or blocked step means the run would fail: exit 2 at plan time, with or without --detailed-exitcode.
  // Else --detailed-exitcode: 0 only when everything was read back and matches the manifest.
  const exitCode = actions.refused + actions.blocked > 0 ? ExitCode.Usage : detailedExitcode && changes ? ExitCode.Changed : ExitCode.Ok;
  return { changes, actions, refusedDataSets, exitCode };
}

/** How many steps of the plan would take each action (every action counted, zeros too, so a pipeline reads any of them). */
function countActions(steps: StepRecord[]): Record<PlanAction, number> {
  const counts = Object.fromEntries(PLAN_ACTIONS.map((action) => [action, 0])) as Record<PlanAction, number>;
  for (const step of steps) if (step.action) counts[step.action]++;
  return counts;
}
