/**
 * The replacements a run would make (steps/replace-table.ts), found before anything is sent,
 * as the ownership refusal is: each table the store holds is compared with the table the
 * manifest builds, with the topic the catalog lists for its data set (read only). One that
 * needs a replacement goes ahead with --allow-replace, or at a terminal once its name is
 * typed; otherwise its data set is refused (REPLACE_NEEDED, exit 2) with nothing of it sent.
 */
import { everyDataSetListed, type CatalogCache } from '../catalog/enable-data-set.js';
import type { RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { whereText } from '../errors/source-location.js';
import { buildTable } from '../olap/build-table.js';
import type { PathPart } from '../olap/located-document.js';
import { TIME_COLUMN_FIELD, TOPIC_FIELD } from '../olap/replacement-fields.js';
import { enableRequest, inferSettingsOf, plannedTopic, standInSchema, tableInputs } from './data-set-steps.js';
import type { LoadedManifest } from './manifest.js';
import type { Prepared, RunOptions, RunReads } from './run-options.js';
import { planEnable } from './steps/enable-step.js';
import { replaceNeededError, replacementOf, unprovenReplacement, type Replacement } from './steps/replace-table.js';

export interface ReplacementsBeforeRun {
  /** Entries whose replacement the run may not make: they fail before any request of theirs. */
  refused: Map<number, DpgwError>;
  /** Entries whose replacement was allowed (--allow-replace, or the name typed). */
  confirmed: Set<number>;
}

export async function replacementsBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions, cache: CatalogCache, reads: Pick<RunReads, 'tableReads' | 'refusedTables' | 'refusedSchemas'>): Promise<ReplacementsBeforeRun> {
  const found = await Promise.all(
    prepared.map(async (item) => {
      const read = reads.tableReads.get(item.entry.index);
      // A data set refused already, or whose table is new or unread: nothing to replace.
      if (read?.kind !== 'found' || reads.refusedTables.has(item.entry.index) || reads.refusedSchemas.has(item.entry.index)) return undefined;
      const table = await desiredTable(item, options, cache);
      const replacement = table && (await replacementOf(options.client, table, read.body));
      return replacement && { item, replacement, live: read.body, table: table! };
    }),
  );
  const result: ReplacementsBeforeRun = { refused: new Map(), confirmed: new Set() };
  // One question at a time, in the manifest's order.
  for (const { item, replacement, live, table } of found.flatMap((f) => (f ? [f] : []))) {
    const index = item.entry.index;
    const where = () => whereText(loaded.document.at(manifestFieldOf(item, replacement)));
    const unproven = unprovenReplacement(replacement, table, live, { adopt: options.adopt === true, unsent: 'nothing of this data set was sent', where: where() });
    if (unproven) result.refused.set(index, unproven);
    else if (options.allowReplace === true) result.confirmed.add(index);
    else if (options.confirmReplace) {
      await options.confirmReplace(replacement);
      result.confirmed.add(index);
    } else result.refused.set(index, replaceNeededError(replacement, { unsent: 'nothing of this data set was sent', where: where() }));
  }
  return result;
}

/**
 * The table the run would send, built as its table step builds it: the entry's topic, else the
 * one the catalog lists for its data set (a dry enable, reads only), else the new topic enabling
 * it makes. Undefined when it cannot be built here: the table step then says why, and checks again.
 */
async function desiredTable(item: Prepared, options: RunOptions, cache: CatalogCache): Promise<RealtimeTableDefinition | undefined> {
  const { entry } = item;
  try {
    const topic = entry.table?.topic ?? (await planEnable(options.client, enableRequest(entry, options, cache), () => everyDataSetListed(options.client, cache))).topic ?? plannedTopic(entry.dataset);
    const schema = item.schema ?? standInSchema(item.schemaName, inferSettingsOf(entry)!);
    return (await buildTable(tableInputs(entry, schema, options.settings.table, topic, options.streamPassword, options.warn, options.manifestMark))).table;
  } catch (error) {
    // What the table step will refuse with its own words (a template, a topic): not a fault of dpgw's, which is rethrown.
    if (!(error instanceof DpgwError)) throw error;
    return undefined;
  }
}

/** The manifest's line a refusal is said at: the entry's own topic or time column when it forces the replacement, else its table's name. */
function manifestFieldOf({ entry }: Prepared, replacement: Replacement): PathPart[] {
  const at = (field: string) => replacement.forced.some((f) => f.field === field);
  if (entry.table?.topic !== undefined && at(TOPIC_FIELD)) return ['dataSets', entry.index, 'table', 'topic'];
  if (entry.table?.timeColumn !== undefined && at(TIME_COLUMN_FIELD)) return ['dataSets', entry.index, 'table', 'timeColumn'];
  return entry.table?.name === undefined ? ['dataSets', entry.index, 'dataset'] : ['dataSets', entry.index, 'table', 'name'];
}
