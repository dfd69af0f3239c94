/**
 * The provision manifest `dpgw init` writes (issue #36 §2): the one a user would write by
 * hand — short, the contract's fields only, and a comment wherever dpgw chose a value the
 * user did not give, so a reviewer sees what to check. Every value in it is a name checked
 * by src/names/platform-names.ts or a number, and is written as a YAML scalar that reads
 * back as itself; comments (a topic's name, a path) cannot break out of their line.
 */
import { commentText, yamlString } from '../schema-inference/schema-text.js';

/** A value of the manifest and, when dpgw chose it, why (written as its comment). */
export interface Chosen<T> {
  value: T;
  /** Set when the user did not give the value: what dpgw took and why. */
  chosenBecause?: string;
}

export interface InitManifest {
  dataSource: string;
  dataSet: string;
  enablement: Chosen<string> & { exists: boolean };
  /** Empty for an existing enablement the manifest reuses as it is. */
  groups: string[];
  /** The schema file, relative to the manifest's folder. */
  schemaFile: string;
  /** Where the schema came from, for its comment. */
  schemaFrom: string;
  table: Chosen<string>;
  retentionDays: Chosen<number>;
  /** The manifest's `name:` (its folder's), when that is a manifest name: given, not left to the path, so its tables are provably its own (olap/manifest-mark.ts). */
  name?: string;
}

/** The manifest's file name in the folder: `dpgw provision DIR/provision.yaml`, and its default name is the folder's. */
export const INIT_MANIFEST_FILE = 'provision.yaml';
/** The schema file beside it. */
export const INIT_SCHEMA_FILE = 'schema.yaml';

export function initManifestText(manifest: InitManifest, manifestPath: string): string {
  const line = (indent: string, key: string, value: string, comment?: string) => `${indent}${key}: ${value}${comment ? `  # ${commentText(comment)}` : ''}`;
  const entry = '    ';
  return [
    ...[
      `Provisions data set ${manifest.dataSet} of ${manifest.dataSource}; written by \`dpgw init\`.`,
      'Review it and the schema, then:',
      `  dpgw provision ${manifestPath} --plan    shows what the run would change`,
      `  dpgw provision ${manifestPath}           provisions it`,
      'Endpoints, users and secrets are not written here: they come from the profile,',
      'the environment (DPGW_*) or flags.',
    ].map((text) => `# ${commentText(text)}`),
    'version: 1',
    ...(manifest.name !== undefined ? [line('', 'name', yamlString(manifest.name), 'its tables carry it (metadata.customConfigs["dpgw.manifest"]); --prune deletes only tables marked with it')] : []),
    'dataSets:',
    line('  - ', 'datasource', yamlString(manifest.dataSource)),
    line(entry, 'dataset', yamlString(manifest.dataSet)),
    line(entry, 'enablement', yamlString(manifest.enablement.value), [manifest.enablement.chosenBecause, manifest.enablement.exists ? undefined : 'new: the first run creates it'].filter(Boolean).join('; ') || undefined),
    ...(manifest.groups.length > 0 ? [line(entry, 'groups', `[${manifest.groups.map(yamlString).join(', ')}]`)] : []),
    line(entry, 'schema', yamlString(manifest.schemaFile), manifest.schemaFrom),
    `${entry}table:`,
    line(`${entry}  `, 'name', yamlString(manifest.table.value), manifest.table.chosenBecause),
    line(`${entry}  `, 'retentionDays', String(manifest.retentionDays.value), manifest.retentionDays.chosenBecause),
    '',
  ].join('\n');
}
