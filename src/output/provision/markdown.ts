/**
 * `dpgw provision --format markdown`, for a pull-request comment: the table of steps (the same
 * table the job's step summary shows), and under a plan what differs. Every value passes
 * markdownText or markdownFence (github-actions.ts), which keep it on its line and inert.
 */
import type { DataSetResult } from '../../provision/provision-run.js';
import type { PrunePlan } from '../../provision/prune.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import { redactText } from '../../secrets/redaction.js';
import { markdownFence, markdownText } from '../github-actions.js';
import { plannedPruneCell, prunedCell, pruneLines } from './prune-lines.js';
import { ranCell } from './step-columns.js';
import type { RunToRender } from './terminal-summary.js';

/** The plan: the table of actions, what differs under it, and the prune as a code block. */
export function markdownPlan(title: string, planned: DataSetResult[], pruning: PrunePlan | undefined): string[] {
  const differences = planned.flatMap((r) =>
    r.steps
      .filter((step) => step.difference?.length || step.action === 'refused')
      .map((step) => [`**${markdownText(r.dataset)}** — ${step.step} (${step.action}): ${markdownText(step.reason)}`, ...(step.difference?.length ? [markdownFence(step.difference, 'diff')] : [])].join('\n')),
  );
  const prune = pruning ? [fencedLines(pruneLines(pruning, pruning.steps, plannedPruneCell)).trim()] : [];
  return markdownLines([stepTable(title, planned, (step) => step.action ?? step.status), ...differences, ...prune].join('\n\n'));
}

/**
 * The run: the table of statuses, and the prune's lines under it as the terminal shows them, as a code block
 * as under a plan: a failed deletion's reason quotes the gateway, whose words are no link, image or tag of the comment.
 */
export function markdownSummary(title: string, { results, prune }: RunToRender): string[] {
  const pruned = prune ? ['', ...markdownLines(fencedLines(pruneLines(prune.plan, prune.steps, prunedCell)).trim())] : [];
  return [...markdownLines(stepTable(title, results, ranCell)), ...pruned];
}

/** The plan or the run as a Markdown table: a row per data set, a column per step. No secret is in it: names and actions only. */
export function stepTable(title: string, results: DataSetResult[], cell: (step: StepRecord) => string): string {
  const steps = [...new Set(results.flatMap((r) => r.steps.map((step) => step.step)))];
  const cellOf = (r: DataSetResult, name: string) => {
    const step = r.steps.find((s) => s.step === name);
    return markdownText(step ? cell(step) : '');
  };
  const rows = results.map((r) => `| ${markdownText(r.dataset)} | ${steps.map((name) => cellOf(r, name)).join(' | ')} | ${markdownText(r.status)} |`);
  return [`### ${markdownText(title)}`, '', `| data set | ${steps.join(' | ')} | status |`, `|---|${steps.map(() => '---').join('|')}|---|`, ...rows, ''].join('\n');
}

/**
 * Under the table, why each refused or failed step is so (a table another manifest owns,
 * a schema the store would refuse): a pull request's reader sees it without opening the log. One
 * line each, the reason as Markdown text; no difference (the table stays small for thousands of rows).
 */
export function whyNotLines(results: DataSetResult[]): string {
  const lines = results.flatMap((r) => r.steps.filter((step) => step.action === 'refused' || step.status === 'failed').map((step) => `- **${markdownText(r.dataset)}** — ${step.step} (${step.status ?? step.action}): ${markdownText(redactText(step.reason))}`));
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

/** Lines as a Markdown code block (names pass the name rule; a reason quoting a server is escaped, and the fence outlasts any backticks). */
export function fencedLines(lines: string[]): string {
  return `\n${markdownFence(lines)}\n`;
}

/** Markdown dpgw wrote as lines: every value in it went through markdownText or markdownFence, which keep it on its line. */
function markdownLines(markdown: string): string[] {
  return markdown.replace(/\n$/, '').split('\n');
}
