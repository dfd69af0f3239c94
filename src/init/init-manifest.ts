/**
 * The provision manifest `dpgw init` writes (issue #36 §2): the one a user would write by
 * hand — short, the contract's fields only, and a comment wherever dpgw chose a value the
 * user did not give, so a reviewer sees what to check. Every value in it is a name checked
 * by src/names/platform-names.ts or a number, and is written as a YAML scalar that reads
 * back as itself; comments (a topic's name, a path) cannot break out of their line.
 */
import { isMap, isSeq, type Node } from 'yaml';
import { commentAfter, yamlFileDocument, yamlFileText } from '../output/yaml-file.js';
import type { InferSettings } from '../provision/manifest.js';
import { EDITOR_SCHEMA_LINE } from '../provision/manifest-schema-file.js';

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
  /**
   * The schema: a file relative to the manifest's folder and where it came from (for its comment), or
   * `schema: { infer: … }`, inferred by the first run from the topic once it has enabled the data set.
   */
  schema: { file: string; from: string } | { infer: InferSettings };
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
  const table = { name: manifest.table.value, retentionDays: manifest.retentionDays.value };
  const inferred = 'infer' in manifest.schema;
  const schema = 'infer' in manifest.schema ? { infer: manifest.schema.infer } : manifest.schema.file;
  const entry = { datasource: manifest.dataSource, dataset: manifest.dataSet, enablement: manifest.enablement.value, ...(manifest.groups.length > 0 ? { groups: manifest.groups } : {}), schema, table };
  const document = yamlFileDocument({ version: 1, ...(manifest.name !== undefined ? { name: manifest.name } : {}), dataSets: [entry] }, [
    EDITOR_SCHEMA_LINE,
    `Provisions data set ${manifest.dataSet} of ${manifest.dataSource}; written by \`dpgw init\`.`,
    inferred ? 'Review it, then (the plan shows the inferred schema once the data set is enabled):' : 'Review it and the schema, then:',
    `  dpgw provision ${manifestPath} --plan    shows what the run would change`,
    `  dpgw provision ${manifestPath}           provisions it`,
    'Endpoints, users and secrets are not written here: they come from the profile,',
    'the environment (DPGW_*) or flags.',
  ]);
  const comment = (path: Array<string | number>, text: string | undefined) => {
    if (text) commentAfter(document.getIn(path, true) as Node, text);
  };
  comment(['name'], manifest.name !== undefined ? 'its tables carry it (metadata.customConfigs["dpgw.manifest"]); --prune deletes only tables marked with it' : undefined);
  comment(['dataSets', 0, 'enablement'], [manifest.enablement.chosenBecause, manifest.enablement.exists ? undefined : 'new: the first run creates it'].filter(Boolean).join('; '));
  if ('infer' in manifest.schema) {
    comment(['dataSets', 0, 'schema', 'infer'], 'inferred by the first run from the topic, once it has enabled the data set');
    // One line, so its comment stands beside it: `infer: { timeColumn: time }  # …`.
    const infer = document.getIn(['dataSets', 0, 'schema', 'infer']);
    if (isMap(infer)) infer.flow = true;
  } else comment(['dataSets', 0, 'schema'], manifest.schema.from);
  comment(['dataSets', 0, 'table', 'name'], manifest.table.chosenBecause);
  comment(['dataSets', 0, 'table', 'retentionDays'], manifest.retentionDays.chosenBecause);
  const groups = document.getIn(['dataSets', 0, 'groups']);
  if (isSeq(groups)) groups.flow = true;
  return yamlFileText(document);
}
