/** `dpgw schema push`, `validate` and `infer`: step 4 of the contract, and the schema from the messages. */
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Readable } from 'node:stream';
import type { ChalkInstance } from 'chalk';
import type { Handler, HandlerModule } from '../cli/command-context.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { parseLocatedDocument } from '../olap/located-document.js';
import { validateSchema } from '../olap/schema-validation.js';
import { failOnIssues } from '../olap/table-template.js';
import { FILLED_TIME_COLUMN, fits, InferenceError, SchemaInference, type InferredType } from '../schema-inference/infer-schema.js';
import { InputTooLarge, readMessages, type Skipped } from '../schema-inference/read-messages.js';
import { schemaYaml } from '../schema-inference/schema-text.js';
import { paths } from '../contract/paths.js';
import { ExitCode } from '../errors/exit-code.js';
import { loadSchema, schemaIssues } from '../olap/load-schema.js';
import { requireWord } from '../settings/setting-values.js';
import { renderDryRun } from './dry-run.js';

const push: Handler = async (context) => {
  const [file] = context.args as [string];
  const schema = await loadSchema(file);
  if (context.options.dryRun === true) {
    const settings = await context.settings();
    return renderDryRun([{ method: 'POST', path: paths.olapSchemas(requireWord(settings, 'olapSegment')), body: schema }]);
  }
  const gateway = await context.gateway();
  const answer = await gateway.createSchema(schema);
  context.reporter.success(`schema ${schema.schemaName} stored (${answer.status}) — a schema sent again replaces the stored one`);
  context.reporter.next(`dpgw table create --dataset <data set> --schema ${file}`);
  return { data: { schemaName: schema.schemaName, status: answer.status, response: answer.body ?? null }, human: () => '' };
};

const validate: Handler = async (context) => {
  const [file] = context.args as [string];
  const { schema, issues } = await schemaIssues(file);
  return {
    data: { file, valid: issues.length === 0, schemaName: schema?.schemaName ?? null, issues },
    exitCode: issues.length === 0 ? ExitCode.Ok : ExitCode.Usage,
    human: (style) =>
      issues.length === 0
        ? `${style.green('✓')} ${file}: schema ${schema!.schemaName} is valid`
        : issues.map((i) => `${i.where}: ${i.field}: ${i.message}`).join('\n'),
  };
};

/** Skipped lines shown one by one before they are only counted. */
const SKIPPED_SHOWN = 5;

const infer: Handler = async (context) => {
  const { options, reporter, io } = context;
  const files = (context.args[0] as string[] | undefined) ?? [];
  const sample = options.sample === undefined ? Infinity : Number(options.sample);
  if (!(Number.isInteger(sample) && sample > 0) && sample !== Infinity) throw new DpgwError('usage', `"${String(options.sample)}" is not a number of messages`, { where: '--sample' });
  const sources = files.length === 0 || (files.length === 1 && files[0] === '-') ? ['-'] : files;
  if (sources.includes('-') && io.stdin.isTTY) throw new DpgwError('usage', 'no messages: give JSON Lines files, or pipe them in', { hint: 'dpgw schema infer messages.jsonl   or   … | dpgw schema infer -' });

  const inference = new SchemaInference();
  const skipped: Skipped[] = [];
  for (const source of sources) {
    const name = source === '-' ? 'stdin' : source;
    const input: Readable = source === '-' ? (io.stdin as Readable) : createReadStream(source);
    try {
      for await (const { message, where } of readMessages(name, input, (skip) => skipped.push(skip))) {
        inference.observe(message, where);
        if (inference.messages >= sample) break;
      }
    } catch (error) {
      if (error instanceof InputTooLarge) throw new DpgwError('input', error.message, { where: name });
      const code = (error as NodeJS.ErrnoException).code;
      if (code) throw new DpgwError('input', `cannot read ${name}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : (error as Error).message}`, { where: name, hint: 'check the path' });
      throw error;
    } finally {
      if (source !== '-') (input as ReturnType<typeof createReadStream>).destroy();
    }
    if (inference.messages >= sample) break;
  }
  skipped.slice(0, SKIPPED_SHOWN).forEach((skip) => reporter.warn(`${skip.where}: skipped: ${skip.reason}`));
  if (skipped.length > SKIPPED_SHOWN) reporter.warn(`… and ${skipped.length - SKIPPED_SHOWN} more lines skipped`);
  if (inference.messages === 0) {
    throw new DpgwError('input', `no JSON object messages in ${sources.map((s) => (s === '-' ? 'stdin' : s)).join(', ')}${skipped.length ? ` (${skipped.length} lines skipped)` : ''}`, {
      hint: 'give one JSON object a line (JSON Lines), or a JSON array of objects',
    });
  }

  const schemaName = typeof options.name === 'string' ? options.name : defaultName(sources[0]!);
  let inferred;
  try {
    inferred = inference.result({ name: schemaName, timeColumn: typeof options.timeColumn === 'string' ? options.timeColumn : undefined, metrics: Array.isArray(options.metric) ? options.metric.map(String) : [] });
  } catch (error) {
    if (error instanceof InferenceError) throw new DpgwError('usage', error.message);
    throw error;
  }
  inferred.warnings.forEach((warning) => reporter.warn(warning));
  inferred.notes.forEach((note) => reporter.info(note));

  if (typeof options.check === 'string') return check(options.check, inferred.types, inferred.messages);

  const sampled = `${inferred.messages} message${inferred.messages === 1 ? '' : 's'} of ${sources.map((s) => (s === '-' ? 'stdin' : basename(s))).join(', ')}`;
  const text = schemaYaml(inferred.schema, [`Inferred by \`dpgw schema infer\` from ${sampled}.`, 'Check it, then: dpgw schema push <this file>']);
  // The same checks as \`schema push\`, before anything is printed or written.
  failOnIssues(validateSchema(parseLocatedDocument(text, 'inferred schema.yaml')).issues, 'inferred schema', 'run with --verbose');
  const output = typeof options.output === 'string' ? options.output : undefined;
  if (output) {
    await writeFile(output, extname(output).toLowerCase() === '.json' ? `${JSON.stringify(inferred.schema, null, 2)}\n` : text);
    reporter.success(`schema ${schemaName} from ${sampled} written to ${output}`);
    reporter.next(`dpgw schema push ${output}`);
  }
  return {
    data: { schema: inferred.schema, messages: inferred.messages, skipped: skipped.length, warnings: inferred.warnings, notes: inferred.notes, ...(output ? { file: output } : {}) },
    human: () => (output ? '' : text),
  };
};

/** --check: the messages against a schema file; every missing, extra or mistyped column, exit 2 when any. */
async function check(file: string, types: Map<string, InferredType>, messages: number) {
  const schema: AnalyticsSchema = await loadSchema(file);
  const declared = new Map<string, string>();
  for (const spec of [...(schema.dimensionFieldSpecs ?? []), ...(schema.metricFieldSpecs ?? []), ...(schema.dateTimeFieldSpecs ?? [])]) declared.set(spec.name, spec.dataType);
  const timeColumns = new Set((schema.dateTimeFieldSpecs ?? []).map((spec) => spec.name));
  const problems: Array<{ column: string; problem: 'missing' | 'extra' | 'type'; detail: string }> = [];
  for (const [column, dataType] of declared) {
    const seen = types.get(column);
    // The table template fills its time column with now() when the messages lack it.
    if (seen === undefined && !(timeColumns.has(column) && column === FILLED_TIME_COLUMN)) problems.push({ column, problem: 'missing', detail: `${file} declares ${column} (${dataType}); no message has it` });
    else if (seen !== undefined && !fits(seen, dataType)) problems.push({ column, problem: 'type', detail: `${file} declares ${column} ${dataType}; the messages make it ${seen}` });
  }
  for (const [column, seen] of types) if (!declared.has(column)) problems.push({ column, problem: 'extra', detail: `the messages have ${column} (${seen}); ${file} does not declare it, so the table drops it` });
  return {
    data: { schema: file, messages, ok: problems.length === 0, problems },
    exitCode: problems.length === 0 ? ExitCode.Ok : ExitCode.Usage,
    human: (style: ChalkInstance) =>
      problems.length === 0 ? `${style.green('✓')} ${messages} messages fit ${file}` : problems.map((p) => `${p.problem}: ${p.detail}`).join('\n'),
  };
}

function defaultName(source: string): string {
  const stem = source === '-' ? 'messages' : basename(source).replace(/\.[^.]*$/, '');
  return stem.replace(/[^A-Za-z0-9_]/g, '_') || 'messages';
}

export const handlers: HandlerModule['handlers'] = { 'schema push': push, 'schema validate': validate, 'schema infer': infer };
