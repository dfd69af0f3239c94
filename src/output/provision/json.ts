/** `dpgw provision --json`: the plan (a versioned format, plan-format.ts) or the run's summary, as data. */
import { MANIFEST_MARK_KEY } from '../../olap/manifest-mark.js';
import type { PlanOutcome } from '../../provision/plan-outcome.js';
import { PLAN_FORMAT_VERSION } from '../../provision/plan-format.js';
import type { PrunePlan } from '../../provision/prune.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import type { PlanToRender } from './terminal-plan.js';
import type { RunToRender } from './terminal-summary.js';

export function planJson(file: string, { planned, pruning, healthCheck }: PlanToRender, { changes, actions }: PlanOutcome) {
  return { formatVersion: PLAN_FORMAT_VERSION, manifest: file, changes, actions, plan: planned, ...(pruning ? { prune: pruneJson(pruning, pruning.steps) } : {}), ...(healthCheck ? { healthCheck } : {}) };
}

/**
 * The version of the run summary's format (`dpgw provision --json` without --plan), as the plan's has its own: a script
 * reads `formatVersion` before anything else, and a field changing meaning or leaving takes a new number.
 */
export const RUN_FORMAT_VERSION = 1;

/** The run's summary; `ok` and `changed` are the run's own (run-outcome.ts), `seconds` its wall time. */
export function runJson(file: string, { results, health, prune }: RunToRender, outcome: { ok: boolean; interrupted: boolean; changed: boolean; seconds: number }) {
  return { formatVersion: RUN_FORMAT_VERSION, manifest: file, ok: outcome.ok, interrupted: outcome.interrupted, changed: outcome.changed, seconds: outcome.seconds, dataSets: results, ...(prune ? { prune: pruneJson(prune.plan, prune.steps) } : {}), ...(health ? { health } : {}) };
}

/** The prune's part: the mark looked for, its steps, and what it never deletes. */
function pruneJson(plan: PrunePlan, steps: StepRecord[]) {
  return { manifest: plan.manifest, mark: { key: MANIFEST_MARK_KEY, value: plan.manifest }, steps, note: plan.note };
}
