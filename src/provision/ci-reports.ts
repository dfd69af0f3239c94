/**
 * The report files GitLab shows in a merge request (`--report junit=FILE`,
 * `--report codequality=FILE`), written from the same data as the summary: a JUnit test
 * case per data set (failed or refused ones fail), and a Code Quality issue per manifest
 * problem, refused step or failed data set, at its file and line. Names, actions and
 * messages only: no secret is in them (messages pass the same redaction as the terminal).
 */
import { createHash } from 'node:crypto';
import { isAbsolute, relative, sep } from 'node:path';
import { isSourceLocation, whereText, type Where } from '../errors/source-location.js';
import { redactText } from '../secrets/redaction.js';
import { serverText } from '../text/terminal-text.js';
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

export function junitReport(suite: string, items: ReportItem[]): string {
  const failures = items.filter((item) => item.failure !== undefined).length;
  const cases = items.map((item) => {
    const open = `  <testcase classname="${xml(suite)}" name="${xml(item.name)}"${item.seconds !== undefined ? ` time="${item.seconds.toFixed(3)}"` : ''}${item.where ? ` file="${xml(isSourceLocation(item.where) ? item.where.file : item.where)}"` : ''}`;
    return item.failure === undefined ? `${open}/>` : `${open}>\n    <failure message="${xml(item.failure)}">${xml(`${item.where ? `${whereText(item.where)}: ` : ''}${item.failure}`)}</failure>\n  </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${xml(suite)}" tests="${items.length}" failures="${failures}">\n${cases.join('\n')}\n</testsuite>\n`;
}

/** GitLab's Code Quality format: an issue per failure, at its path (relative to the project) and line. */
export function codeQualityReport(items: ReportItem[], projectDir: string): string {
  const issues = items
    .filter((item) => item.failure !== undefined)
    .map((item) => {
      const position = isSourceLocation(item.where) ? item.where : undefined;
      const path = position ? projectPath(position.file, projectDir) : 'provision manifest';
      const description = serverText(clean(`${item.name}: ${item.failure}`));
      return {
        description,
        check_name: 'dpgw',
        fingerprint: createHash('sha256').update(`${path}\u0000${position?.line ?? 0}\u0000${description}`).digest('hex'),
        severity: 'major',
        location: { path, lines: { begin: position?.line ?? 1 } },
      };
    });
  return `${JSON.stringify(issues, null, 2)}\n`;
}

function projectPath(file: string, projectDir: string): string {
  const inside = isAbsolute(file) ? relative(projectDir, file) : file;
  return (inside.startsWith(`..${sep}`) ? file : inside).split(sep).join('/');
}

/**
 * What XML 1.0 forbids (C0 controls but tab, line feed and carriage return; U+FFFE, U+FFFF; half of a surrogate
 * pair), with DEL and the C1 controls no reader wants: a file holding one does not parse, and GitLab drops the report.
 */
// eslint-disable-next-line no-control-regex -- the controls are what is matched
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Masked as the terminal is; a character XML 1.0 forbids shown as its \u escape, so both reports say the same. */
function clean(text: string): string {
  return redactText(text).replace(NOT_XML, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The one way text enters the JUnit file, an attribute (a name, a message) or the text of a failure: on one line,
 * its line breaks and tabs shown escaped (`\n`) as the terminal shows them, since a reader folds them to spaces in
 * an attribute, and a manifest's key is not to start a line of its own anywhere.
 */
function xml(text: string): string {
  return serverText(clean(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
