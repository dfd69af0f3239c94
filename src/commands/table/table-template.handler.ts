/** `dpgw table template <config>`: a store's table config as a dpgw template (olap/table-config-template.ts). */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { TableTemplateCommand } from './table.flags.js';
import { checkOutputFile, writeOutputFile } from '../../files/atomic-write.js';
import { readLocatedDocument } from '../../olap/located-document.js';
import { tableConfigToTemplate } from '../../olap/table-config-template.js';
import { streamConfigPlace } from '../../olap/stream-config-place.js';
import { fieldPath } from '../../olap/schema-validation.js';
import { yamlFileDocument, yamlFileText } from '../../output/yaml-file.js';
import { isSecretKey, MASK, maskSecrets } from '../../secrets/redaction.js';
import { serverText } from '../../text/terminal-text.js';

/** A replaced value as --json shows it: masked whole under a secret's key (a JAAS line too: it was the config's, not the run's), else redacted as any value (a URL's password). */
const shownWas = (path: readonly unknown[], was: unknown): unknown => (isSecretKey(String(path.at(-1))) ? MASK : maskSecrets(was));

export const template: HandlerOf<TableTemplateCommand> = async (context) => {
  const { options, reporter } = context;
  const [file] = context.args as [string];
  const output = options.output;
  // Refused before anything is read: a link or an existing file without --force.
  if (output) checkOutputFile(output, { where: '--output', force: options.force === true });
  const { template: converted, replaced } = tableConfigToTemplate(await readLocatedDocument(file, 'table config'));
  // The file's name escaped: a line break in it would end the comment and write the rest into the template as YAML.
  const header = [`A dpgw table template from ${serverText(file)} (dpgw table template): dpgw fills each \${placeholder} (docs/tables.md).`];
  const text = yamlFileText(yamlFileDocument(converted, header));
  // The file keeps the config's own values; what is printed shows its secrets masked.
  const shown = yamlFileText(yamlFileDocument(maskSecrets(converted), header));
  const changeOf = ({ was, now }: { was?: unknown; now?: unknown }) => (now === undefined ? 'removed' : was === undefined ? 'added' : 'replaced');
  for (const change of replaced) reporter.info(`${changeOf(change)} ${change.field}${change.now !== undefined ? `: ${change.now}` : ''}`);
  // The store's own default is the topic's latest offset: a table made from its examples reads none of the messages
  // already on the topic (which dpgw's sample check has just read), and shows no rows until new ones come.
  const place = streamConfigPlace(converted);
  if (place.kind === 'found' && !Object.keys(place.map).some((key) => key.endsWith('auto.offset.reset'))) {
    reporter.warn(`${fieldPath(place.path)} sets no auto.offset.reset: the store starts at the topic's latest offset, so the messages already on it are never read; dpgw's own template reads from the earliest (add stream.\${streamType}.consumer.prop.auto.offset.reset: smallest)`);
  }
  if (output) {
    await writeOutputFile(output, text, 0o644, { where: '--output', force: options.force === true });
    // Counted as the lines above name them, so the total matches what the user just read.
    const counts = (['replaced', 'added', 'removed'] as const).map((kind) => [kind, replaced.filter((change) => changeOf(change) === kind).length] as const);
    const summary = counts.filter(([, count]) => count > 0).map(([kind, count]) => `${count} ${kind}`).join(', ');
    reporter.success(`template written to ${output} (${summary === '' ? 'no key changed' : `keys: ${summary}`})`);
    reporter.next(`dpgw table render --dataset <name> --schema <schema file> --template ${output}`);
  }
  return {
    data: { template: maskSecrets(converted), replaced: replaced.map(({ path, field, was, now }) => ({ field, path, ...(was !== undefined ? { was: shownWas(path, was) } : {}), ...(now !== undefined ? { now } : {}) })), ...(output ? { file: output } : {}) },
    human: () => (output ? [] : shown.trimEnd().split('\n')),
  };
};
