/**
 * `dpgw provision --plan` at a terminal: a block per data set (its steps, what differs, an
 * inferred schema, a new table's request), the prune, the health check, and the totals.
 */
import type { ChalkInstance } from 'chalk';
import type { DataSetResult } from '../../provision/provision-run.js';
import { planOutcome } from '../../provision/plan-outcome.js';
import type { PrunePlan } from '../../provision/prune.js';
import type { PlanAction, StepRecord } from '../../provision/steps/step-record.js';
import { plural } from '../../text/plural.js';
import { jsonLines } from '../document-lines.js';
import { plannedPruneCell, pruneLines } from './prune-lines.js';
import { ACTION_WIDTH } from './step-columns.js';

export interface PlanToRender {
  planned: DataSetResult[];
  healthCheck?: { path: string };
  pruning?: PrunePlan;
}

export function terminalPlan({ planned, healthCheck, pruning }: PlanToRender, style: ChalkInstance): string[] {
  const blocks = planned.map((r) => dataSetBlock(r, style));
  const health = healthCheck ? [[style.bold('health'), `  after provisioning: GET ${healthCheck.path}; not UP makes the run exit 6`]] : [];
  const prune = pruning ? [prunePlanLines(pruning, style)] : [];
  // Blocks apart by an empty line.
  return [[style.dim('plan: nothing was sent that changes the platform')], ...blocks, ...prune, ...health, [planTotals(planned, pruning)]].flatMap((block, index) => (index === 0 ? block : ['', ...block]));
}

function dataSetBlock(r: DataSetResult, style: ChalkInstance): string[] {
  return [
    style.bold(`${r.dataset} (${r.datasource})`),
    ...r.steps.flatMap((s, i) => stepBlock(s, i, style)),
    // A new table is shown whole; an existing one by what differs.
    ...r.steps.filter((s) => s.step === 'table' && s.request?.method === 'POST').flatMap((s) => jsonLines(s.request!.body).map((line) => `     ${line}`)),
  ];
}

function stepBlock(s: StepRecord, i: number, style: ChalkInstance): string[] {
  return [
    `  ${i + 1}. ${s.step.padEnd(9)} ${actionCell(s.action, style)} ${reasonText(s, style)}`,
    ...(s.difference ?? []).map((line) => `       ${line.startsWith('+') ? style.green(line) : line.startsWith('-') ? style.red(line) : style.yellow(line)}`),
    // The inferred schema as its serializer wrote it (schema-text.ts: every name one scalar on its line).
    ...(s.shown ? s.shown.trimEnd().split('\n').map((line) => `     ${line}`) : []),
  ];
}

function reasonText(s: StepRecord, style: ChalkInstance): string {
  if (s.action === 'skipped') return style.dim(s.reason);
  return s.action === 'refused' || s.action === 'blocked' ? style.red(s.reason) : s.reason;
}

/** A plan's action as its own column, padded to the longest action word. */
function actionCell(action: PlanAction, style: ChalkInstance): string {
  const text = action.padEnd(ACTION_WIDTH);
  if (action === 'create') return style.green(text);
  if (action === 'update' || action === 'not-compared') return style.yellow(text);
  if (action === 'replace' || action === 'delete' || action === 'refused' || action === 'blocked') return style.red(text);
  return action === 'none' || action === 'skipped' ? style.dim(text) : text;
}

function prunePlanLines(pruning: PrunePlan, style: ChalkInstance): string[] {
  return pruneLines(pruning, pruning.steps, plannedPruneCell).map((line, i) => (i === 0 ? style.bold(line) : line.replace(/^( {2}\d+\. \S+ +)(delete)/, (_, before: string, action: string) => `${before}${style.red(action)}`)));
}

/** The plan's last line: what would change, be deleted, not be compared, or be refused. */
function planTotals(planned: DataSetResult[], pruning: PrunePlan | undefined): string {
  // Counted as every renderer counts them (plan-outcome.ts): a refused data set as refused only.
  const { changingDataSets: changing, refusedDataSets: refused } = planOutcome(planned, pruning, false);
  const uncompared = planned.filter((r) => r.uncompared).length;
  const deletions = pruning?.steps.length ? `${plural(pruning.tables.length, 'table')} and ${plural(pruning.schemas.length, 'schema')} to delete` : '';
  return [
    changing ? `${plural(changing, 'data set')} to change` : deletions || refused ? '' : 'no changes',
    deletions,
    uncompared ? `${plural(uncompared, 'data set')} not compared (the gateway does not expose reads of the analytics store)` : '',
    refused ? `${plural(refused, 'data set')} refused: the run would fail (exit 2)` : '',
  ]
    .filter(Boolean)
    .join('; ');
}
