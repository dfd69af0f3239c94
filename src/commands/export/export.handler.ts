/** `dpgw export --output DIR`: the platform's tables as a provision manifest and schema files. */
import { mkdir } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { ExportCommand } from './export.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { exportTables, MANIFEST_FILE, MANIFEST_NAME } from '../../export/export-tables.js';
import { checkOutputFile, writeOutputFile } from '../../files/atomic-write.js';
import { cannotWrite } from '../../files/file-problem.js';
import { nameProblem } from '../../names/platform-names.js';
import { tableSettingsOf } from '../../settings/core-options.js';
import { closestMatch } from '../../text/closest-match.js';
import { plural } from '../../text/plural.js';
import { quotedServerText } from '../../text/terminal-text.js';

/** How many marks a hint lists before "and N more". */
const MARKS_LISTED = 10;

/**
 * For a --manifest no table carries: the marks the store's tables do carry, the nearest first. A mark is the server's
 * text: one that is no manifest name is quoted (as shownMark quotes it), so `a, b` or a look-alike with a zero-width
 * space cannot pass for marks --manifest would take, and only a manifest name is suggested.
 */
function marksHint(asked: string, marks: readonly string[]): string {
  if (!marks.length) return "no table the store holds carries a manifest's mark (dpgw provision marks the tables of a manifest with its name:): export without --manifest";
  const near = closestMatch(asked, marks.filter((mark) => nameProblem('manifest', mark) === undefined));
  const listed = marks.slice(0, MARKS_LISTED).map((mark) => (nameProblem('manifest', mark) === undefined ? mark : quotedServerText(mark)));
  const more = marks.length > MARKS_LISTED ? ` and ${marks.length - MARKS_LISTED} more` : '';
  return `${near !== undefined ? `did you mean ${quotedServerText(near)}? ` : ''}the store's tables carry the ${marks.length === 1 ? 'mark' : 'marks'} ${listed.join(', ')}${more}: pass one to --manifest`;
}

export const exportToFolder: HandlerOf<ExportCommand> = async (context) => {
  const { options, reporter } = context;
  const folder = resolve(context.io.cwd, options.output);
  if (options.manifest !== undefined && !MANIFEST_NAME.test(options.manifest)) {
    throw new DpgwError('INVALID_ARGUMENT', `${JSON.stringify(options.manifest)} is no manifest name: use letters, digits, '.', '-' and '_', starting with a letter or digit`, { where: '--manifest' });
  }
  // An earlier export (or a manifest someone edited since), or a link in its place, is not replaced by surprise: refused before anything is asked.
  const manifestFile = join(folder, MANIFEST_FILE);
  const written = { where: '--output', force: options.force === true, existsHint: 'pass --force to replace it, or choose another folder' };
  checkOutputFile(manifestFile, written);

  const settings = await context.settings();
  const table = tableSettingsOf(settings);
  const client = await context.gateway();
  // A manifest's setting gives way to the run's flags and environment (docs/provision.md): the export sets none of those.
  const runChosen = new Set(Object.values(settings.values).flatMap((setting) => (setting.source.kind === 'flag' || setting.source.kind === 'env' ? [setting.key] : [])));
  const result = await exportTables({ client, table, tables: options.table, dataSets: options.dataset, manifestName: options.manifest, folderName: basename(folder), runChosen });
  if (result.leftOut.length) {
    reporter.warn(`left out ${plural(result.leftOut.length, 'table')} dpgw cannot write back as a manifest entry: ${result.leftOut.map((t) => `${t.table} (${t.reason})`).join('; ')}`);
  }
  if (result.exported.length === 0) {
    const filters = [options.table?.length ? `--table ${options.table.join(', ')}` : '', options.dataset?.length ? `--dataset ${options.dataset.join(', ')}` : '', options.manifest !== undefined ? `--manifest ${options.manifest}` : ''].filter(Boolean);
    // Where: the filters that found nothing (the store itself, when none was given).
    const filterFlags = filters.map((filter) => filter.split(' ')[0]!);
    throw new DpgwError('NOTHING_TO_EXPORT', `no table to export${filters.length ? ` for ${filters.join(', ')}` : ''}${result.leftOut.length ? ` (${plural(result.leftOut.length, 'table')} left out, above)` : ''}; nothing was written`, {
      ...(filterFlags.length ? { where: filterFlags.join(', ') } : {}),
      hint: options.manifest !== undefined && !result.marks.includes(options.manifest) ? marksHint(options.manifest, result.marks) : 'see what the store holds with `dpgw catalog datasets` and `dpgw table get <name>`',
    });
  }

  await mkdir(folder, { recursive: true }).catch((error: unknown) => {
    throw cannotWrite(folder, error, '--output');
  });
  const paths = result.files.map((file) => {
    const path = join(folder, file.name);
    // Names come from the store: a file lands in the folder or is not written (export-tables.ts names files after checked table names; this holds whatever it does).
    const within = relative(folder, path);
    if (within !== file.name || within.startsWith('..') || isAbsolute(within) || /[/\\]/.test(within)) throw new Error(`an exported file name left the output folder: ${JSON.stringify(file.name)}`);
    return path;
  });
  // Every file is checked before the first is written: a refusal leaves the folder as it was. The folder may be a link the
  // user named; a file in it may not be (the writer refuses it again, should one appear meanwhile).
  for (const path of paths) checkOutputFile(path, written);
  for (const [index, file] of result.files.entries()) await writeOutputFile(paths[index]!, file.text, 0o644, written);
  // Said once the files are there: what the written manifest can and cannot take over.
  if (result.markNotKept !== undefined) {
    const mark = result.markNotKept;
    reporter.warn(`the tables carry the mark ${mark}, a name their manifest took from its file or folder, which no name: can keep: this manifest manages them from a folder named ${mark} (\`dpgw export --output ${mark}\`), or give it a name: of its own and run it once with --adopt (docs/lifecycle.md)`);
  }
  // Relative to the working folder when inside it (as the user typed it, most likely), else absolute.
  const shown = (path: string) => {
    const within = relative(context.io.cwd, path);
    return within === '' || within.startsWith('..') || isAbsolute(within) ? path : within;
  };
  if (!reporter.options.json && result.markNotKept === undefined) reporter.next(`dpgw provision ${shown(manifestFile)} --plan --detailed-exitcode   # exits 0: no changes`);
  return {
    data: {
      output: folder,
      files: paths,
      ...(result.name !== undefined ? { name: result.name } : {}),
      settings: result.settings,
      tables: result.exported.map((t) => ({ table: t.table, schema: t.schema, schemaFile: t.schemaFile, datasource: t.origin.datasource, dataset: t.origin.dataset, enablement: t.origin.enablement, topic: t.origin.topic })),
      leftOut: result.leftOut,
    },
    human: () => paths.map((path) => `wrote ${shown(path)}`),
  };
};
