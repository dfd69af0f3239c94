/** The prune as plain lines, under a plan or a run's summary, in every format that shows it. */
import { MANIFEST_MARK_KEY } from '../../olap/manifest-mark.js';
import type { PrunePlan } from '../../provision/prune.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import { ACTION_WIDTH } from './step-columns.js';

/** Each deletion with `cell` as its action column, and the note about enablements once. */
export function pruneLines(plan: PrunePlan, steps: StepRecord[], cell: (step: StepRecord) => string): string[] {
  return [
    `prune (tables marked ${MANIFEST_MARK_KEY}: ${plan.manifest})`,
    ...(steps.length ? steps.map((s, i) => `  ${i + 1}. ${s.step.padEnd(9)} ${cell(s).padEnd(ACTION_WIDTH)} ${s.reason}`) : ['  nothing to delete: no table marked by this manifest is missing from it']),
    `  ${plan.note}`,
  ];
}

/** A plan's prune: each step's action. */
export const plannedPruneCell = (step: StepRecord): string => step.action;

/** A run's prune: each step's action and how it ended. */
export const prunedCell = (step: StepRecord): string => (step.status ? `${step.action} ${step.status}` : step.action);
