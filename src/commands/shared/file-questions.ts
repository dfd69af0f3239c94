/**
 * Questions answered from files under the current folder (issue #36): a schema file for
 * `schema push|validate`, `table create|render --schema` and `init`, a manifest for
 * `provision`, a file of messages for `init --from-messages`.
 * The files offered are the ones whose content is of that kind (a schema has `schemaName`,
 * a manifest a top-level `dataSets:`), found a few folders deep; "another file…" takes any
 * path, checked to be a file as the argument would be.
 */
import { readdirSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import type { CommandContext } from '../../command-kit/command-context.js';
import { MB, readRegularFile } from '../../files/read-regular-file.js';
import { choosePrompt, textPrompt, type Choice } from './prompts.js';

type Asking = Pick<CommandContext, 'io'>;

/** As deep as a project keeps its schemas (examples/track/schema.yaml is two down). */
const MAX_DEPTH = 3;
/** Folders that hold dependencies, history or build output, never a user's schema. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist']);
/** A schema or manifest worth offering is small; a larger file is read only when named. */
const MAX_OFFERED_BYTES = 1 * MB;
/** A folder of thousands of files is not searched to the end before the question appears. */
const MAX_FILES_READ = 2_000;

const ANOTHER_FILE = Symbol('another file');

/** The top-level mapping of a YAML or JSON file (JSON is YAML), or undefined when it is none or cannot be read. */
function topLevel(path: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = load(readRegularFile(path, { what: 'file', maxBytes: MAX_OFFERED_BYTES }), { schema: CORE_SCHEMA, json: true });
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    // Unreadable, too large or not YAML: not offered (it can still be named as "another file…").
    return undefined;
  }
}

/** YAML and JSON files under `root` (relative paths, sorted), skipping dependency, history and build folders. */
export function filesUnder(root: string, extensions: readonly string[], depth = MAX_DEPTH): string[] {
  const found: string[] = [];
  const visit = (folder: string, level: number) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= MAX_FILES_READ) return;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (level < depth && !SKIPPED_FOLDERS.has(entry.name)) visit(path, level + 1);
      } else if (entry.isFile() && extensions.includes(extname(entry.name).toLowerCase())) {
        found.push(relative(root, path));
      }
    }
  };
  visit(root, 1);
  return found;
}

/** Schema files under the folder: each with its schemaName. */
export function schemaFilesUnder(root: string): Array<{ file: string; schemaName: string }> {
  return filesUnder(root, ['.yaml', '.yml', '.json']).flatMap((file) => {
    const schemaName = topLevel(join(root, file))?.schemaName;
    return typeof schemaName === 'string' ? [{ file, schemaName }] : [];
  });
}

/** Manifests under the folder: YAML files with a top-level `dataSets:`. */
export function manifestFilesUnder(root: string): Array<{ file: string; dataSets: number }> {
  return filesUnder(root, ['.yaml', '.yml']).flatMap((file) => {
    const dataSets = topLevel(join(root, file))?.dataSets;
    return dataSets !== undefined ? [{ file, dataSets: Array.isArray(dataSets) ? dataSets.length : 0 }] : [];
  });
}

/** What is wrong with a typed path (from the run's folder): nothing there, or not a file. */
function fileProblem(cwd: string, path: string): string | undefined {
  if (path === '') return 'type the path of a file';
  try {
    return statSync(resolve(cwd, path)).isFile() ? undefined : `${path} is not a file`;
  } catch {
    return `no file at ${path}`;
  }
}

/** One of the files found, or another typed path (checked to be a file); free text when none is found. */
async function askFile(context: Asking, message: string, found: ReadonlyArray<Choice<string>>, kind: string): Promise<string> {
  if (found.length > 0) {
    const answer = await choosePrompt<string | typeof ANOTHER_FILE>(context, message, [...found, { value: ANOTHER_FILE, name: 'another file…' }]);
    if (answer !== ANOTHER_FILE) return answer;
  }
  return textPrompt(context, found.length > 0 ? `Path of the ${kind}:` : `${message.replace(/:$/, '')} (none found under this folder; type its path):`, { check: (typed) => fileProblem(context.io.cwd, typed) });
}

/** A schema file: the ones under the current folder, shown with their schemaName. */
export async function askSchemaFile(context: Asking): Promise<string> {
  const found = schemaFilesUnder(context.io.cwd).map(({ file, schemaName }) => ({ value: file, name: `${file}  (schema ${schemaName})`, short: file }));
  return askFile(context, 'Schema file:', found, 'schema file');
}

/** A provision manifest: the YAML files under the current folder that list data sets. */
export async function askManifestFile(context: Asking): Promise<string> {
  const found = manifestFilesUnder(context.io.cwd).map(({ file, dataSets }) => ({ value: file, name: `${file}  (${dataSets} data set${dataSets === 1 ? '' : 's'})`, short: file }));
  return askFile(context, 'Manifest:', found, 'manifest');
}

/** A file of messages (JSON Lines) to infer a schema from: the .jsonl and .ndjson files under the current folder. */
export async function askMessagesFile(context: Asking): Promise<string> {
  const found = filesUnder(context.io.cwd, ['.jsonl', '.ndjson']).map((file) => ({ value: file, name: file }));
  return askFile(context, 'Messages file:', found, 'messages file');
}
