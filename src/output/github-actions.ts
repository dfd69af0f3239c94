/**
 * GitHub Actions, when a run is inside one (GITHUB_ACTIONS=true): problems become error
 * annotations at their file, line and column (the checks tab and the pull request's diff
 * show them), and provision appends its plan or summary to the job's step summary and
 * its counts to the step's outputs. Outside a workflow none of it is written.
 * Workflow commands go to stderr: stdout stays the command's data (--json).
 */
import { appendFileSync } from 'node:fs';
import { isSourceLocation, SourceLocation, type Where } from '../errors/source-location.js';
import { serverText } from '../text/terminal-text.js';
import { projectPath } from './project-path.js';

export interface GithubActions {
  workspace?: string;
  /** The folder the command runs in, which a relative file is relative to (default: the process's). */
  cwd?: string;
  summaryFile?: string;
  outputFile?: string;
}

/** The runner shows at most 10 error annotations of a step: the most important first, the rest not written. */
export const MAX_ANNOTATIONS = 10;

export function githubActionsOf(env: NodeJS.ProcessEnv): GithubActions | undefined {
  if (env.GITHUB_ACTIONS !== 'true') return undefined;
  return { workspace: env.GITHUB_WORKSPACE || undefined, summaryFile: env.GITHUB_STEP_SUMMARY || undefined, outputFile: env.GITHUB_OUTPUT || undefined };
}

export interface Annotation {
  /** Where: a place in a file, which becomes the annotation's place, or a flag, a URL as text, said before the message. */
  where?: Where;
  title: string;
  message: string;
}

/** `::error file=…,line=…,col=…,title=…::message`, the file relative to the workspace, every value escaped as the runner reads it. */
export function errorAnnotation(actions: GithubActions, annotation: Annotation): string {
  const { where: place } = annotation;
  const properties: string[] = [];
  if (isSourceLocation(place)) properties.push(`file=${escapeProperty(workspaceFile(actions, place.file))}`, `line=${place.line}`, `col=${place.column}`);
  properties.push(`title=${escapeProperty(annotation.title)}`);
  const where = typeof place === 'string' ? `${place}: ` : '';
  return `::error ${properties.join(',')}::${escapeData(`${where}${annotation.message}`)}`;
}

/** Where as text, a place in a file with its file relative to the workspace (as annotations name it); a flag or URL as it is. */
export function whereInWorkspace(actions: GithubActions, where: Where): string {
  return isSourceLocation(where) ? new SourceLocation(workspaceFile(actions, where.file), where.line, where.column).toString() : where;
}

/** A file inside the workspace relative to it, with forward slashes; one outside it as given. */
function workspaceFile(actions: GithubActions, file: string): string {
  return projectPath(file, actions.workspace, actions.cwd ?? process.cwd());
}

/** A folded block of the job's log opens with `::group::title`, its lines follow, and GROUP_END closes it. */
export function groupStart(title: string): string {
  return `::group::${escapeData(title)}`;
}
export const GROUP_END = '::endgroup::';

/** Appends Markdown to the job's step summary. */
export function appendStepSummary(actions: GithubActions, markdown: string): void {
  if (actions.summaryFile) appendFileSync(actions.summaryFile, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
}

/** Sets the step's outputs (`steps.<id>.outputs.<name>`). */
export function setStepOutputs(actions: GithubActions, outputs: Record<string, string | number>): void {
  if (!actions.outputFile) return;
  appendFileSync(actions.outputFile, Object.entries(outputs).map(([name, value]) => `${name}=${String(value).replace(/[\r\n]/g, ' ')}\n`).join(''));
}

/**
 * Lines as a fenced code block: each line escaped (serverText, so none can end the block
 * early or hold a raw control), and a fence longer than any run of backticks in them, so no
 * line closes it; inside, Markdown and HTML are text.
 */
export function markdownFence(lines: readonly string[], info = ''): string {
  const escapedLines = lines.map((line) => serverText(line));
  const longestRun = Math.max(0, ...escapedLines.flatMap((line) => (line.match(/`+/g) ?? []).map((run) => run.length)));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return [`${fence}${info}`, ...escapedLines, fence].join('\n');
}

/**
 * Text inside a Markdown line of the summary (a table cell, a heading, bold text), shown as
 * written: on one line, a control character escaped (`\u001b`) rather than written, and every
 * character Markdown or the HTML in it would act on (emphasis, code, links, tags, entities,
 * table pipes) backslash-escaped. dpgw's own formatting (the `**…**` around a name, the table's
 * pipes) goes around it, never inside.
 */
export function markdownText(text: string): string {
  return serverText(text.replace(/\r?\n/g, ' ')).replace(/[\\`*_[\]<>|~&]/g, '\\$&');
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
