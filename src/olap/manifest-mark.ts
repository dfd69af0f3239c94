/**
 * The mark of ownership: every table a manifest creates or updates carries the manifest's
 * name in its `metadata.customConfigs`, under `dpgw.manifest`. `provision --prune` deletes
 * only tables that carry its own manifest's mark, so a table made by hand, by `dpgw table
 * create` or by another manifest is never touched, whatever its name or topic; and a table
 * another manifest marked is never updated or taken over without `--adopt` (tableOwnership).
 * The store keeps customConfigs as given and returns them with the table (docs/lifecycle.md).
 */
import { nameProblem } from '../names/platform-names.js';
import { quotedServerText } from '../text/terminal-text.js';
import { objectAt } from './object-at.js';
import type { RealtimeTableDefinition } from '../contract/types.js';

/** The key of the mark in a table's metadata.customConfigs (`dpgw export` reads it too). */
export const MANIFEST_MARK_KEY = 'dpgw.manifest';

/** The table with the manifest's mark added to whatever customConfigs its template gives. */
export function withManifestMark(table: RealtimeTableDefinition, manifestName: string): RealtimeTableDefinition {
  const metadata = table.metadata ?? { customConfigs: {} };
  return { ...table, metadata: { ...metadata, customConfigs: { ...(metadata.customConfigs ?? {}), [MANIFEST_MARK_KEY]: manifestName } } };
}

/** A table as the store returns it: wrapped by its type (`{"REALTIME": {…}}`), or bare. */
function realtimeConfig(live: Record<string, unknown>): Record<string, unknown> {
  const wrapped = live.REALTIME;
  return typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) ? (wrapped as Record<string, unknown>) : live;
}


/** The manifest a live table is marked with; undefined when it carries no mark. */
export function manifestMarkOf(live: Record<string, unknown>): string | undefined {
  const mark = objectAt(realtimeConfig(live), 'metadata', 'customConfigs')[MANIFEST_MARK_KEY];
  return typeof mark === 'string' ? mark : undefined;
}

/** The schema a live table names (segmentsConfig.schemaName); undefined when it names none. */
export function schemaNameOf(live: Record<string, unknown>): string | undefined {
  const name = objectAt(realtimeConfig(live), 'segmentsConfig').schemaName;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Whose a live table is, for the manifest named `manifestName`: its own (marked with its name),
 * nobody's (no mark: made by hand or by `dpgw table create`), or another manifest's.
 */
export type TableOwnership = { kind: 'own' } | { kind: 'unmarked' } | { kind: 'other'; owner: string };

export function tableOwnership(live: Record<string, unknown>, manifestName: string): TableOwnership {
  const mark = manifestMarkOf(live);
  if (mark === undefined) return { kind: 'unmarked' };
  return mark === manifestName ? { kind: 'own' } : { kind: 'other', owner: mark };
}

/** A mark as a message shows it: a manifest name as it is; anything else the store returned quoted, its controls escaped. */
export function shownMark(mark: string): string {
  return nameProblem('manifest', mark) === undefined ? mark : quotedServerText(mark);
}
