/** The widths of a step's action and status columns, so every renderer's step lines line up alike. */
import { PLAN_ACTIONS, STEP_STATUSES, type StepRecord } from '../../provision/steps/step-record.js';

/** The longest action word: a plan's action column is padded to it. */
export const ACTION_WIDTH = Math.max(...PLAN_ACTIONS.map((action) => action.length));

/** The longest status word: a run's status column is padded to it. */
export const STATUS_WIDTH = Math.max(...STEP_STATUSES.map((status) => status.length));

/** A run's step in a summary's cell: its status, and `replaced` for a table deleted and created anew (status changed, action replace), which "changed" would hide. */
export const ranCell = (step: StepRecord): string => (step.action === 'replace' && step.status === 'changed' ? 'replaced' : (step.status ?? step.action));
