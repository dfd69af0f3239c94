/**
 * Inside a GitHub Actions workflow, what provision appends to the job's step summary and
 * sets as the step's outputs (docs/ci.md): from the plan, from the run, or from the error
 * that stopped the command before either. Names, actions and masked messages only.
 */
import type { Where } from '../../errors/source-location.js';
import type { DpgwError } from '../../errors/dpgw-error.js';
import type { ValidationIssue } from '../../olap/schema-validation.js';
import type { PlanOutcome } from '../../provision/plan-outcome.js';
import type { DataSetResult } from '../../provision/provision-run.js';
import type { PrunePlan } from '../../provision/prune.js';
import { redactText } from '../../secrets/redaction.js';
import { plural } from '../../text/plural.js';
import { markdownText, whereInWorkspace, type GithubActions } from '../github-actions.js';
import { fencedLines, stepTable, whyNotLines } from './markdown.js';
import { plannedPruneCell, prunedCell, pruneLines } from './prune-lines.js';
import { ranCell } from './step-columns.js';
import type { RunToRender } from './terminal-summary.js';

/** The step's outputs, read by the steps after it. */
export interface StepOutputs {
  'exit-code': number;
  changes: number;
  failed: number;
}

export interface WorkflowReport {
  summary: string;
  outputs: StepOutputs;
}

/** The plan's table, why any step is refused, and the prune; `exitCode` is the one the step ends with. */
export function planStepSummary(file: string, planned: DataSetResult[], pruning: PrunePlan | undefined, outcome: PlanOutcome, exitCode: number): WorkflowReport {
  const { refusedDataSets, changingSteps } = outcome;
  const title = `dpgw provision --plan ${file}: ${refusedDataSets ? `${plural(refusedDataSets, 'data set')} refused` : outcome.changes ? 'changes to make' : 'no changes'}`;
  return {
    summary: stepTable(title, planned, (step) => step.action) + whyNotLines(planned) + (pruning ? fencedLines(pruneLines(pruning, pruning.steps, plannedPruneCell)) : ''),
    outputs: { 'exit-code': exitCode, changes: changingSteps, failed: refusedDataSets },
  };
}

/** The run's table under its outcome line, why any step failed, and the prune as it ran. */
export function runStepSummary(file: string, outcomeLine: string, { results, prune }: RunToRender, exitCode: number): WorkflowReport {
  const steps = [...results.flatMap((r) => r.steps), ...(prune?.steps ?? [])];
  return {
    summary: stepTable(`dpgw provision ${file}: ${outcomeLine}`, results, ranCell) + whyNotLines(results) + (prune ? fencedLines(pruneLines(prune.plan, prune.steps, prunedCell)) : ''),
    outputs: { 'exit-code': exitCode, changes: steps.filter((step) => step.status === 'changed').length, failed: results.filter((r) => r.status === 'failed').length },
  };
}

/** What stopped the command before its plan or run had a result, as the summary's title says it (the exit codes of docs/ci.md); a manifest's problems say so themselves. */
const STOPPED_BECAUSE: Partial<Record<DpgwError['kind'], string>> = {
  input: 'refused',
  usage: 'refused',
  rejected: 'the gateway refused',
  auth: 'the sign-in failed',
  network: 'a server could not be reached',
  interrupted: 'interrupted',
};
/** A job summary has room for a terminal's worth of problems; the annotations and --json have the rest. */
const SUMMARY_PROBLEMS = 100;

/**
 * A command stopped by an error before it had a plan or a run to show: exit-code as the
 * process exits, no change, and failed counting the data sets the manifest's problems are in.
 * The summary names what stopped it and lists the problems, each at its place; secrets are
 * masked as on the terminal.
 */
export function stoppedStepSummary(command: string, error: DpgwError, exitCode: number, actions: GithubActions): WorkflowReport {
  const issues = Array.isArray(error.details?.issues) ? (error.details.issues as ValidationIssue[]) : [];
  const problems = issues.length ? issues.map((issue) => ({ where: issue.where, text: `${issue.field}: ${issue.message}` })) : [{ where: error.where, text: `${error.message}${error.hint ? ` — ${error.hint}` : ''}` }];
  const line = (problem: { where?: Where; text: string }) => `- ${problem.where ? `${markdownText(redactText(whereInWorkspace(actions, problem.where)))}: ` : ''}${markdownText(redactText(problem.text))}`;
  const because = `${issues.length ? `the manifest was refused: ${plural(issues.length, 'problem')}` : (STOPPED_BECAUSE[error.kind] ?? 'failed')} (exit ${error.exitCode})`;
  const summary = [
    `### ${markdownText(redactText(`${command}: ${because}`))}`,
    '',
    ...problems.slice(0, SUMMARY_PROBLEMS).map(line),
    ...(problems.length > SUMMARY_PROBLEMS ? [`- … and ${problems.length - SUMMARY_PROBLEMS} more; \`--json\` lists them all`] : []),
    '',
  ].join('\n');
  const dataSets = new Set(issues.flatMap((issue) => (issue.path?.[0] === 'dataSets' && typeof issue.path[1] === 'number' ? [issue.path[1]] : [])));
  return { summary, outputs: { 'exit-code': exitCode, changes: 0, failed: dataSets.size } };
}
