/** A provision run's summary at a terminal: a row per data set, a column per step, the health check, and the prune under it. */
import type { ChalkInstance } from 'chalk';
import { HEALTH_STATUS_UP } from '../../contract/constants.js';
import type { DataSetResult } from '../../provision/provision-run.js';
import type { PrunePlan } from '../../provision/prune.js';
import type { HealthOutcome } from '../../provision/run-outcome.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import { prunedCell, pruneLines } from './prune-lines.js';
import { ranCell } from './step-columns.js';
import { textTable } from '../text-table.js';

export interface RunToRender {
  results: DataSetResult[];
  health?: HealthOutcome;
  /** The prune as planned and the steps it ran (or skipped). */
  prune?: { plan: PrunePlan; steps: StepRecord[] };
}

export function terminalSummary({ results, health, prune }: RunToRender, style: ChalkInstance): string[] {
  return [...summaryTable(results, style), ...reloadLines(results), ...healthLines(health, style), ...runPruneLines(prune)];
}

/** The prune under a run's summary, apart by an empty line; nothing without --prune. */
function runPruneLines(prune: RunToRender['prune']): string[] {
  return prune ? ['', ...pruneLines(prune.plan, prune.steps, prunedCell)] : [];
}

function summaryTable(results: DataSetResult[], style: ChalkInstance): string[] {
  const stepOf = (r: DataSetResult, name: string) => {
    const step = r.steps.find((s) => s.step === name);
    return step?.status === undefined ? '-' : ranCell(step);
  };
  const has = (step: string) => results.some((r) => r.steps.some((s) => s.step === step));
  const optional = ['verify', 'dashboard'].filter(has);
  // One data set in two enablements is two rows that only the enablement tells apart.
  const names = results.map((r) => r.dataset);
  const withEnablement = new Set(names).size < names.length;
  // Only after a schema gained columns of a table that existed (data-set-steps.ts): the segments reloaded, of all.
  const reload = has('reload') ? [(r: DataSetResult) => reloaded(r)] : [];
  const rows = results.map((r) => [r.dataset, ...(withEnablement ? [r.enablement] : []), r.topic ?? '-', `${r.schema} ${stepOf(r, 'schema')}`, `${r.table} ${stepOf(r, 'table')}`, ...reload.map((cell) => cell(r)), stepOf(r, 'storage'), consuming(r), ...optional.map((step) => stepOf(r, step)), r.status, `${(r.ms / 1000).toFixed(1)}s`]);
  const header = ['DATA SET', ...(withEnablement ? ['ENABLEMENT'] : []), 'TOPIC', 'SCHEMA', 'TABLE', ...(reload.length ? ['RELOAD'] : []), 'STORAGE', 'CONSUMING', ...optional.map((step) => step.toUpperCase()), 'STATUS', 'TIME'];
  const statusColumn = header.indexOf('STATUS');
  const colour = (status: string, text: string) => (status === 'done' ? style.green(text) : status === 'failed' ? style.red(text) : style.yellow(text));
  // Laid out as every listing is (text-table.ts: columns by display width, cells escaped), each row coloured by its status; never cut.
  const [head, ...lines] = textTable(header, rows, { style, width: undefined });
  return [head!, ...lines.map((line, i) => colour(rows[i]![statusColumn]!, line))];
}

/** "3 of 3" segments reloaded; else the step's status; "-" for a data set with none. */
function reloaded(r: DataSetResult): string {
  const step = r.steps.find((s) => s.step === 'reload');
  if (step?.status === 'changed' && step.facts?.reloaded !== undefined) return `${step.facts.reloaded} of ${step.facts.segments ?? '?'}`;
  return step?.status ?? '-';
}

/** Under the table, each reload in its words: what the rows stored before and the consuming segment's rows show (force-committed or not). */
function reloadLines(results: DataSetResult[]): string[] {
  const lines = results.flatMap((r) => r.steps.filter((s) => s.step === 'reload' && s.status === 'changed').map((s) => `reload: ${r.dataset}: ${s.reason}`));
  return lines.length ? ['', ...lines] : [];
}

/** "3 of 3" partitions consuming; else the step's status (skipped: not checked). */
function consuming(r: DataSetResult): string {
  const step = r.steps.find((s) => s.step === 'consume');
  if (step?.status === 'passed' && step.facts?.consuming !== undefined) return `${step.facts.consuming} of ${step.facts.partitions ?? '?'}`;
  return step?.status === 'skipped' ? 'not checked' : (step?.status ?? '-');
}

function healthLines(health: HealthOutcome | undefined, style: ChalkInstance): string[] {
  if (!health) return [];
  return [`health: ${health.status === HEALTH_STATUS_UP ? style.green(health.status) : style.red(`${health.status}${health.failing?.length ? `; not UP: ${health.failing.join(', ')}` : ''}`)}`];
}
