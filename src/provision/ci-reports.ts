/**
 * What the report files GitLab shows in a merge request (`--report junit=FILE`,
 * `--report codequality=FILE`) say, as items made from the same records as the summary: one
 * per data set (a failed or refused one fails), or one per manifest problem when the manifest
 * was refused. src/output/provision/junit.ts and code-quality.ts render them.
 */
import type { DpgwError } from '../errors/dpgw-error.js';
import type { Where } from '../errors/source-location.js';
import type { ValidationIssue } from '../olap/schema-validation.js';
import type { DataSetResult } from './provision-run.js';

export const REPORT_KINDS = ['junit', 'codequality'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export interface ReportRequest {
  kind: ReportKind;
  file: string;
}

/** One thing a report says: where (a place in a file, a flag, or none), a name, and what went wrong (undefined: it passed). */
export interface ReportItem {
  name: string;
  where?: Where;
  failure?: string;
  seconds?: number;
}

/** The items of a plan or a run: one per data set; a refused, blocked or failed step makes it fail. */
export function itemsOf(results: DataSetResult[], whereOf: (result: DataSetResult) => Where | undefined): ReportItem[] {
  return results.map((result) => {
    const bad = result.steps.find((step) => step.action === 'refused' || step.status === 'failed');
    const failure = bad ? `${bad.step}: ${bad.reason}` : result.status === 'failed' ? String(result.error?.message ?? 'failed') : undefined;
    return { name: `${result.datasource}/${result.dataset}`, where: whereOf(result), failure, seconds: result.ms / 1000 };
  });
}

/** A manifest's problems (or the one error) as report items, each at its file, line and column. */
export function itemsOfError(error: DpgwError): ReportItem[] {
  const issues = Array.isArray(error.details?.issues) ? (error.details.issues as ValidationIssue[]) : [];
  if (issues.length) return issues.map((issue) => ({ name: issue.field, where: issue.where, failure: issue.message }));
  return [{ name: 'provision', where: error.where, failure: error.message }];
}

