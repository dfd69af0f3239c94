/** A provision run's data sets as each finishes: a line on the progress, and in a workflow a folded group of its steps. */
import type { DataSetResult } from '../../provision/provision-run.js';
import { ACTION_WIDTH, STATUS_WIDTH } from './step-columns.js';

/** One data set as it finishes: `[3/8] track (enablement track): done in 1.2 s — enable changed, schema accepted, table changed, storage changed`. */
export function finishedLine(result: DataSetResult, done: number, total: number): string {
  const steps = result.steps.map((s) => `${s.step} ${s.status}`).join(', ');
  const why = result.status === 'failed' && result.error ? `: ${String(result.error.message)}` : '';
  return `[${done}/${total}] ${result.dataset} (enablement ${result.enablement}): ${result.status} in ${(result.ms / 1000).toFixed(1)} s${steps ? ` — ${steps}` : ''}${why}`;
}

/** A data set's steps, one line each: `  table     update  changed       table track updated: …`. */
export function stepLines(result: DataSetResult): string[] {
  return result.steps.map((s) => `  ${s.step.padEnd(9)} ${s.action.padEnd(ACTION_WIDTH)} ${(s.status ?? '').padEnd(STATUS_WIDTH)} ${s.reason}`);
}
