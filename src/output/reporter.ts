/**
 * The one place that writes. Results go to stdout (human text, or exactly one
 * JSON document with --json); messages, warnings and traces go to stderr. Every
 * string passes through redaction on its way out. A message is one line, and so is
 * each line of a result: every control in it is escaped, line breaks included
 * (text/terminal-text.ts), so no data inside one (a server's words, a manifest's key,
 * a path) can start a line of its own. What means several lines passes several.
 */
import { issueLine, type ValidationIssue } from '../olap/schema-validation.js';
import { Chalk, type ChalkInstance } from 'chalk';
import type { DpgwError } from '../errors/dpgw-error.js';
import { redactedJson, redactText } from '../secrets/redaction.js';
import { jsonChunks } from './json-chunks.js';
import { jsonLines } from './document-lines.js';
import { jsonSafe, terminalLine } from '../text/terminal-text.js';
import type { OutputStream } from './io.js';
import { errorAnnotation, GROUP_END, groupStart, MAX_ANNOTATIONS, type Annotation, type GithubActions } from './github-actions.js';
import { isGuarded } from './workflow-command-guard.js';

export interface ReporterOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  colorStdout: boolean;
  colorStderr: boolean;
  /** Inside a GitHub Actions workflow: errors are also written as annotations (github-actions.ts). */
  githubActions?: GithubActions;
}

/** A command's result: data for --json, and how to show it to a person. */
export interface CommandOutput<T = unknown> {
  data: T;
  /**
   * The result for a person, as lines: each is written as one line whatever it holds. A
   * document a serializer wrote (JSON, YAML) comes as its lines (document-lines.ts).
   */
  human?: (style: ChalkInstance) => readonly string[];
  /** Non-zero for results that are answers but not successes (health DOWN). */
  exitCode?: number;
  /** The command rendered its result already (a long-running command prints when ready). */
  printed?: boolean;
}

/** One line as a person sees it: secrets masked, every control but dpgw's colours and tabs escaped (line breaks too). */
function shown(line: string): string {
  return terminalLine(redactText(line));
}

/**
 * A document for --json, its pieces masked as they are serialised (redactedJson), never by an
 * inline-password pattern on the JSON text; here only no raw control a terminal would act on.
 */
function jsonText(json: string): string {
  return jsonSafe(json);
}

/** A terminal's worth: a manifest with thousands of problems lists the first ones, --json all. */
const LISTED_PROBLEMS = 100;

export class Reporter {
  readonly out: ChalkInstance;
  readonly err: ChalkInstance;

  constructor(
    private readonly stdout: OutputStream,
    private readonly stderr: OutputStream,
    readonly options: ReporterOptions,
  ) {
    this.out = new Chalk({ level: options.colorStdout ? 1 : 0 });
    this.err = new Chalk({ level: options.colorStderr ? 1 : 0 });
  }

  result(output: CommandOutput): void {
    if (output.printed) return;
    if (this.options.json) {
      // In pieces of about 64 KB: a large summary is never one string.
      let pending = '';
      for (const chunk of jsonChunks(output.data, redactedJson)) {
        pending += chunk;
        if (pending.length >= 65_536) {
          this.stdout.write(jsonText(pending));
          pending = '';
        }
      }
      this.stdout.write(jsonText(pending) + '\n');
      return;
    }
    const lines = output.human ? output.human(this.out) : jsonLines(output.data);
    // In pieces of about 64 KB, as with --json: a listing of thousands of rows is not one write each.
    let pending = '';
    for (const line of lines) {
      pending += `${shown(line)}\n`;
      if (pending.length >= 65_536) {
        this.stdout.write(pending);
        pending = '';
      }
    }
    if (pending !== '') this.stdout.write(pending);
  }

  /** One line of what the command is doing; dropped with --quiet. */
  info(message: string): void {
    if (!this.options.quiet) this.stderr.write(shown(message) + '\n');
  }

  /** A line the person must see to go on (a device code to enter): shown even with --quiet. */
  notice(message: string): void {
    this.stderr.write(shown(message) + '\n');
  }

  success(message: string): void {
    this.info(`${this.err.green('✓')} ${message}`);
  }

  /** Suggest the next command. */
  next(command: string): void {
    this.info(`${this.err.dim('next:')} ${command}`);
  }

  /** Dropped with --quiet, which keeps only results and errors. */
  warn(message: string): void {
    if (!this.options.quiet) this.stderr.write(shown(`${this.err.yellow('warning:')} ${message}`) + '\n');
  }

  /** One of several problems a command found (the command decides the exit code); shown even with --quiet. */
  problem(message: string): void {
    this.stderr.write(shown(`${this.err.red('dpgw:')} ${message}`) + '\n');
  }

  trace(line: string): void {
    if (this.options.verbose) this.stderr.write(this.err.dim(shown(line)) + '\n');
  }

  /** An error's stack with --verbose: its message as one line, then a line per frame. */
  traceStack(error: Error): void {
    if (!this.options.verbose || !error.stack) return;
    const frames = error.stack.split('\n').filter((line) => /^\s+at /.test(line));
    for (const line of [`${error.name}: ${error.message}`, ...frames]) this.trace(line);
  }

  /** A folded block of the log, inside a GitHub Actions workflow only (a data set's steps as it finishes); its lines are escaped as every line is. */
  group(title: string, lines: readonly string[]): void {
    if (!this.options.githubActions || this.options.quiet) return;
    this.workflowCommand(groupStart(shown(title)));
    for (const line of lines) this.stderr.write(shown(line) + '\n');
    this.workflowCommand(GROUP_END);
  }

  /** An error annotation, inside a GitHub Actions workflow only. */
  annotate(annotation: Annotation): void {
    if (this.options.githubActions) this.workflowCommand(shown(errorAnnotation(this.options.githubActions, annotation)));
  }

  /** One of dpgw's own workflow commands (github-actions.ts wrote it, its values escaped): past the guard, the one writer that may. */
  private workflowCommand(line: string): void {
    if (isGuarded(this.stderr)) this.stderr.writeWorkflowCommand(line);
    else this.stderr.write(line + '\n');
  }

  /** One line on stderr; with --json also `{ "error": … }` on stdout, so a pipeline always gets a document. */
  error(error: DpgwError, options: { stdout: boolean; annotate?: boolean } = { stdout: true }): void {
    this.stderr.write(shown(`${this.err.red('dpgw:')} ${error.toLine()}`) + '\n');
    // An input error found several problems (a manifest, a schema): the line above names the first, one line each for the rest.
    const issues = Array.isArray(error.details?.issues) ? (error.details.issues as ValidationIssue[]) : [];
    for (const issue of issues.slice(1, LISTED_PROBLEMS)) this.problem(issueLine(issue));
    if (issues.length > LISTED_PROBLEMS) this.problem(`… and ${issues.length - LISTED_PROBLEMS} more; --json lists them all`);
    // A consumption check that failed with a diagnosis (no-rows-diagnosis.ts): the hint gave the first finding, one line each for the rest.
    const diagnosis = Array.isArray(error.details?.diagnosis) ? (error.details.diagnosis as Array<{ what: string; evidence: string; next: string }>) : [];
    for (const finding of diagnosis.slice(1)) this.stderr.write(shown(`diagnosis: ${finding.what} (${finding.evidence}); next: ${finding.next}`) + '\n');
    const actions = this.options.githubActions;
    if (actions && options.annotate !== false) {
      // The first problem is the error's own; the runner shows 10 of a step, so the rest are not written.
      const annotations = issues.length
        ? issues.map((issue) => ({ where: issue.where, title: `dpgw: ${issue.field}`, message: issue.message }))
        : [{ where: error.where, title: 'dpgw', message: `${error.message}${error.hint ? ` — ${error.hint}` : ''}` }];
      for (const annotation of annotations.slice(0, MAX_ANNOTATIONS)) this.annotate(annotation);
    }
    if (this.options.json && options.stdout) this.stdout.write(jsonText(redactedJson({ error: error.toJSON() })!) + '\n');
  }
}
