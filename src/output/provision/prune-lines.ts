/** The prune as plain lines, under a plan or a run's summary, in every format that shows it. */
import { MANIFEST_MARK_KEY } from '../../olap/manifest-mark.js';
import type { PrunePlan } from '../../provision/prune.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import { ACTION_WIDTH, STATUS_WIDTH } from './step-columns.js';

/** Each deletion with `cell` as its action columns (padded, so the reasons line up), and the note about enablements once. */
export function pruneLines(plan: PrunePlan, steps: StepRecord[], cell: (step: StepRecord) => string): string[] {
  return [
    `prune (tables marked ${MANIFEST_MARK_KEY}: ${plan.manifest})`,
    ...(steps.length ? steps.map((s, i) => `  ${i + 1}. ${s.step.padEnd(9)} ${cell(s)} ${s.reason}`) : ['  nothing to delete: no table marked by this manifest is missing from it']),
    `  ${plan.note}`,
  ];
}

/** A plan's prune: each step's action, in the plan's action column. */
export const plannedPruneCell = (step: StepRecord): string => step.action.padEnd(ACTION_WIDTH);

/** A run's prune: each step's action and how it ended, in the columns of a run's step lines (terminal-progress.ts), whatever the status. */
export const prunedCell = (step: StepRecord): string => `${step.action.padEnd(ACTION_WIDTH)} ${(step.status ?? '').padEnd(STATUS_WIDTH)}`;
