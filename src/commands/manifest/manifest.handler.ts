/** `dpgw manifest schema`: the manifest's JSON Schema, the text shipped as docs/provision-manifest.schema.json, to stdout or a file. */
import { lstatSync, readFileSync } from 'node:fs';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { ManifestSchemaCommand } from './manifest.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { checkOutputFile, writeOutputFile } from '../../files/atomic-write.js';
import { manifestSchemaText } from '../../provision/manifest-schema-file.js';

export const schema: HandlerOf<ManifestSchemaCommand> = async (context) => {
  const { options, reporter } = context;
  const text = manifestSchemaText();
  const output = options.output;
  if (output === undefined) return { data: JSON.parse(text) as unknown, human: () => text.trimEnd().split('\n') };
  // A link at the path is refused before anything is read through it; --force replaces the link itself.
  checkOutputFile(output, { where: '--output', force: options.force === true, existing: 'replace' });
  const existing = lstatSync(output, { throwIfNoEntry: false })?.isFile() === true ? readFileSync(output, 'utf8') : undefined;
  const changed = existing !== text;
  if (existing !== undefined && changed && options.force !== true) {
    throw new DpgwError('OUTPUT_EXISTS', `${output} exists and differs from this dpgw's manifest schema: not overwritten`, { where: '--output', hint: 'pass --force to replace it (an older copy, most likely)' });
  }
  if (changed) await writeOutputFile(output, text, 0o644, { where: '--output', force: existing !== undefined });
  reporter.success(changed ? `wrote ${output}` : `${output} unchanged: it is this dpgw's manifest schema`);
  return { data: { file: output, changed }, human: () => [] };
};
