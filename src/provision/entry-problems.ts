/**
 * Problems found while preparing a manifest's data sets, collected for all of them and
 * placed in the manifest: the checks they come from (schema files, the table
 * template, the settings) speak of flags and template lines, which a manifest user never
 * wrote. Each problem names the data set and its manifest line; one problem shared by
 * many data sets (a setting missing for the template) is reported once, with a count.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import { isSourceLocation, whereText } from '../errors/source-location.js';
import type { PathPart } from '../olap/located-document.js';
import type { ValidationIssue } from '../olap/schema-validation.js';
import { fieldPath, issueAt } from '../olap/schema-validation.js';
import { plural } from '../text/plural.js';
import type { LoadedManifest } from './manifest.js';

/** The manifest field a command-line flag's check stands for. */
const FIELD_OF_FLAG: Record<string, readonly string[]> = {
  '--datasource': ['datasource'],
  '--dataset': ['dataset'],
  '--schema': ['schema'],
  '--name': ['table', 'name'],
  '--template': ['table', 'template'],
  '--topic': ['table', 'topic'],
  '--time-column': ['table', 'timeColumn'],
};

/** A data set entry as its problems name it: `dataset` is absent when an entry that is not well formed names none. */
interface ProblemEntry {
  index: number;
  dataset?: string;
}

export class EntryProblems {
  private readonly grouped = new Map<string, { issue: ValidationIssue; others: string[] }>();

  constructor(private readonly loaded: LoadedManifest) {}

  /** Takes an input error of one data set; anything else is not a manifest problem and is thrown on. */
  add(entry: ProblemEntry, error: unknown): void {
    if (!(error instanceof DpgwError) || (error.kind !== 'input' && error.kind !== 'usage')) throw error;
    const nested = Array.isArray(error.details?.issues) ? (error.details.issues as ValidationIssue[]) : undefined;
    const found = nested ?? [{ where: error.where ?? '', field: '', message: error.message }];
    for (const issue of found) this.place(entry, issue);
  }

  /** A problem of one data set's field (`table.name`), at that field's line, or at the data set's when the field is not written. */
  addAt(entry: LoadedManifest['entries'][number], field: readonly PathPart[], message: string): void {
    const path: PathPart[] = ['dataSets', entry.index, ...(hasPath(entry, field) ? field : ['dataset'])];
    this.keep(issueAt(this.loaded.document, path, message), `${path.join('.')}${message}`, entry);
  }

  issues(): ValidationIssue[] {
    return [...this.grouped.values()].map(({ issue, others }) =>
      others.length === 0 ? issue : { ...issue, message: `${issue.message} (also ${plural(others.length, 'more data set')}: ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''})` },
    );
  }

  private place(entry: ProblemEntry, issue: ValidationIssue): void {
    const { document, file } = this.loaded;
    const entryPath: PathPart[] = ['dataSets', entry.index];
    // Already placed in this manifest (an inline schema's own check).
    if (isSourceLocation(issue.where) && issue.where.file === file) return this.keep({ ...issue, field: issue.field || fieldPath(entryPath), path: issue.path ?? entryPath }, `${whereText(issue.where)}${issue.message}`, entry);
    const flagField = typeof issue.where === 'string' ? FIELD_OF_FLAG[issue.where] : undefined;
    if (flagField && hasPath(entry, flagField)) {
      const path = [...entryPath, ...flagField];
      return this.keep(issueAt(document, path, issue.message), `${path.join('.')}${issue.message}`, entry);
    }
    // From a template line, a schema file or the settings: the data set's line, and where the check looked.
    // An entry without a data set name (not well formed, its schema file checked all the same): the schema's line.
    const source = issue.where && !flagField ? ` (${issue.field ? `${whereText(issue.where)}: ${issue.field}` : whereText(issue.where)})` : '';
    const path = [...entryPath, entry.dataset === undefined ? 'schema' : 'dataset'];
    const placed = issueAt(document, path, `${entry.dataset === undefined ? '' : `data set ${entry.dataset}: `}${issue.message}${source}`);
    this.keep(placed, `${whereText(issue.where)}${issue.field}${issue.message}`, entry);
  }

  private keep(issue: ValidationIssue, key: string, entry: ProblemEntry): void {
    const known = this.grouped.get(key);
    if (known) known.others.push(label(entry));
    else this.grouped.set(key, { issue, others: [] });
  }
}

function label(entry: ProblemEntry): string {
  return entry.dataset ?? fieldPath(['dataSets', entry.index]);
}

function hasPath(entry: object, path: readonly PathPart[]): boolean {
  let value: unknown = entry;
  for (const part of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return false;
    value = (value as Record<string, unknown>)[part];
  }
  return value !== undefined;
}
