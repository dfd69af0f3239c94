/**
 * The mark of ownership: every table a manifest creates or updates carries the manifest's
 * name in its `metadata.customConfigs`, under `dpgw.manifest`. `provision --prune` deletes
 * only tables that carry its own manifest's mark, so a table made by hand, by `dpgw table
 * create` or by another manifest is never touched, whatever its name or topic; and a table
 * another manifest marked is never updated or taken over without `--adopt` (tableOwnership).
 * The store keeps customConfigs as given and returns them with the table (docs/lifecycle.md).
 *
 * A name the manifest gives itself (`name:`) is a claim its author made; a name dpgw took from
 * the manifest's file or folder is shared by every folder of that name (teamA/analytics and
 * teamB/analytics), so it proves nothing. The mark says which it is (`dpgw.manifest.named`),
 * and a table belongs to a manifest only when both agree: a prune deletes only tables marked
 * by a manifest that gave its name, and a named manifest never takes a table that an unnamed
 * one of the same name marked (nor the other way round) without `--adopt`.
 */
import { nameProblem } from '../names/platform-names.js';
import { quotedServerText } from '../text/terminal-text.js';
import { objectAt } from './object-at.js';
import type { RealtimeTableDefinition } from '../contract/types.js';

/** The key of the mark in a table's metadata.customConfigs (`dpgw export` reads it too). */
export const MANIFEST_MARK_KEY = 'dpgw.manifest';

/** Beside the mark, when the manifest gave its name itself: `"true"` (customConfigs hold strings). */
export const MANIFEST_NAMED_KEY = 'dpgw.manifest.named';

/** A manifest as its tables' marks name it. */
export interface ManifestMark {
  name: string;
  /** The manifest gives its name (`name:`); false for a name taken from its file or folder. */
  named: boolean;
}

/** The table with the manifest's mark added to whatever customConfigs its template gives (a template's own claim to either key is replaced). */
export function withManifestMark(table: RealtimeTableDefinition, mark: ManifestMark): RealtimeTableDefinition {
  const metadata = table.metadata ?? { customConfigs: {} };
  const { [MANIFEST_NAMED_KEY]: _claimed, ...customConfigs } = metadata.customConfigs ?? {};
  return { ...table, metadata: { ...metadata, customConfigs: { ...customConfigs, [MANIFEST_MARK_KEY]: mark.name, ...(mark.named ? { [MANIFEST_NAMED_KEY]: 'true' } : {}) } } };
}

/**
 * The table with no manifest's mark: what `dpgw table create` and `table render` build. A
 * template may claim one (a store's config of a manifest's table, converted by `dpgw table
 * template`, carries that manifest's mark); kept, it would make the new table that manifest's,
 * for its `--prune` to delete.
 */
export function withoutManifestMark(table: RealtimeTableDefinition): RealtimeTableDefinition {
  const customConfigs = table.metadata?.customConfigs;
  if (customConfigs === undefined || (!(MANIFEST_MARK_KEY in customConfigs) && !(MANIFEST_NAMED_KEY in customConfigs))) return table;
  const { [MANIFEST_MARK_KEY]: _mark, [MANIFEST_NAMED_KEY]: _named, ...rest } = customConfigs;
  return { ...table, metadata: { ...table.metadata, customConfigs: rest } };
}

/** A table as the store returns it: wrapped by its type (`{"REALTIME": {…}}`), or bare. */
function realtimeConfig(live: Record<string, unknown>): Record<string, unknown> {
  const wrapped = live.REALTIME;
  return typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) ? (wrapped as Record<string, unknown>) : live;
}


/** The manifest a live table is marked with; undefined when it carries no mark. */
export function manifestMarkOf(live: Record<string, unknown>): ManifestMark | undefined {
  const customConfigs = objectAt(realtimeConfig(live), 'metadata', 'customConfigs');
  const name = customConfigs[MANIFEST_MARK_KEY];
  return typeof name === 'string' ? { name, named: customConfigs[MANIFEST_NAMED_KEY] === 'true' } : undefined;
}

/** The schema a live table names (segmentsConfig.schemaName); undefined when it names none. */
export function schemaNameOf(live: Record<string, unknown>): string | undefined {
  const name = objectAt(realtimeConfig(live), 'segmentsConfig').schemaName;
  return typeof name === 'string' ? name : undefined;
}

/** What a run passes to take over a table another manifest marked, or that none did (provision's --adopt). */
export const ADOPT_FLAG = '--adopt';

/**
 * Whose a live table is, for the manifest `mark`: its own (marked with its name, given or
 * taken alike), nobody's (no mark: made by hand or by `dpgw table create`), or another
 * manifest's (another name, or the same name given by one and taken from a folder by the other).
 */
export type TableOwnership = { kind: 'own' } | { kind: 'unmarked' } | { kind: 'other'; owner: ManifestMark };

export function tableOwnership(live: Record<string, unknown>, mark: ManifestMark): TableOwnership {
  const owner = manifestMarkOf(live);
  if (owner === undefined) return { kind: 'unmarked' };
  return owner.name === mark.name && owner.named === mark.named ? { kind: 'own' } : { kind: 'other', owner };
}

/** A mark as a message shows it: a manifest name as it is, anything else the store returned quoted (its controls escaped), and whether the name was given or taken from a folder. */
export function shownMark(mark: ManifestMark): string {
  const name = nameProblem('manifest', mark.name) === undefined ? mark.name : quotedServerText(mark.name);
  return mark.named ? name : `${name} (a name taken from its file or folder)`;
}
