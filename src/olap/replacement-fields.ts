/**
 * The table fields the analytics store cannot change in place (issue #47 §2): a difference in
 * one of them is planned as `replace` — the table deleted and created anew, its rows lost —
 * never as an update. The rule lives here and only here; docs/replacement.md lists the same
 * fields with the same reasons (a test keeps the two in step).
 *
 * Read in the store's own sources (apache/pinot; release-0.11.0 unless said). Through 1.4.x
 * `PUT /tables/{name}` (PinotTableRestletResource#updateTableConfig →
 * PinotHelixResourceManager#updateTableConfig → #setExistingTableConfig) never compares the
 * new config with the stored one: every field below is accepted and then mishandled. 1.5.0
 * refuses some of them (TableConfigUtils#validateBackwardCompatibility, apache/pinot#17645:
 * "Cannot modify [...] as it may lead to data inconsistencies. Please create a new table
 * instead"), master more (#18868). dpgw holds every version to the same rule.
 */
import type { FieldChange } from './live-diff.js';
import { STREAM_CONFIG_MAPS_PATH, STREAM_CONFIGS_PATH } from './stream-config-place.js';

export interface ReplacementRule {
  /** The field in words, as the plan and docs/replacement.md name it. */
  field: string;
  /** Why the store cannot change it in place, from its sources. */
  why: string;
  /** Whether a difference at these keys (FieldChange.keys) is in this field. */
  matches(keys: readonly string[]): boolean;
}

/** The stream config key a path ends in, in either place the store reads it from (stream-config-place.ts); undefined elsewhere. */
function streamKey(keys: readonly string[]): string | undefined {
  const under = (place: readonly unknown[]) => place.every((part, index) => keys[index] === String(part));
  if (keys.length === STREAM_CONFIGS_PATH.length + 1 && under(STREAM_CONFIGS_PATH)) return keys[keys.length - 1];
  if (keys.length === STREAM_CONFIG_MAPS_PATH.length + 2 && under(STREAM_CONFIG_MAPS_PATH) && keys[STREAM_CONFIG_MAPS_PATH.length] === '[0]') return keys[keys.length - 1];
  return undefined;
}

const startsWith = (keys: readonly string[], ...prefix: string[]) => prefix.every((part, index) => keys[index] === part);

/** Fields a manifest entry sets itself (table.topic, table.timeColumn): a refusal is said at their line. */
export const TOPIC_FIELD = 'the stream topic';
export const TIME_COLUMN_FIELD = 'the time column';

/** The fields, in the order the plan names them. */
export const REPLACEMENT_RULES: readonly ReplacementRule[] = [
  {
    field: TOPIC_FIELD,
    // PinotHelixResourceManager#setExistingTableConfig → #ensureRealtimeClusterIsSetUp logs "LLC is already set up for table {}, not configuring again";
    // PinotLLCRealtimeSegmentManager#commitSegmentMetadata starts the next segment at the committing one's nextOffset, on the new topic (apache/pinot#7022, #5254).
    why: 'the store takes a new topic silently: the consuming segment keeps reading the old one until it commits, and the next segment starts at the old topic\'s offset on the new topic (PinotHelixResourceManager#ensureRealtimeClusterIsSetUp, PinotLLCRealtimeSegmentManager#commitSegmentMetadata), so messages are skipped or read twice',
    matches: (keys) => /^stream\.[^.]+\.topic\.name$/.test(streamKey(keys) ?? ''),
  },
  {
    field: 'the stream decoder and format',
    // LLRealtimeSegmentDataManager's constructor makes the decoder from the stream config the segment was created with.
    why: 'a consuming segment decodes with the decoder it was created with (LLRealtimeSegmentDataManager constructor); the new one applies only to segments created later, so rows stored and rows to come were read in two formats',
    matches: (keys) => /^stream\.[^.]+\.decoder\.(class\.name|prop\.format)$/.test(streamKey(keys) ?? ''),
  },
  {
    field: 'the table type',
    // PinotHelixResourceManager#updateTableConfig takes the type from the body's name: another type is "Table x_OFFLINE does not exist".
    why: 'the type is part of the table\'s name in the store (x_REALTIME): an update of another type is a table that does not exist (PinotHelixResourceManager#updateTableConfig)',
    matches: (keys) => keys.length === 1 && keys[0] === 'tableType',
  },
  {
    field: TIME_COLUMN_FIELD,
    // Segment ZK metadata (start/end time) is written when a segment is built; RetentionManager and the broker's time boundary read it.
    why: 'each stored segment keeps its start and end time from the old column (its segment metadata, written when it was built), which retention and time pruning read; 1.5.0 refuses the change for upsert and dedup tables (TableConfigUtils#validateBackwardCompatibility)',
    matches: (keys) => startsWith(keys, 'segmentsConfig', 'timeColumnName') && keys.length === 2,
  },
  {
    field: 'partitioning',
    why: 'stored segments keep the partition metadata they were built with, so the broker prunes them by the old partitioning; master refuses a new partition count for upsert and dedup tables (TableConfigUtils#validateBackwardCompatibility, apache/pinot#18868)',
    matches: (keys) => startsWith(keys, 'tableIndexConfig', 'segmentPartitionConfig'),
  },
  {
    field: 'replica groups',
    // PinotHelixResourceManager#updateTableConfig → #assignInstances(tableConfig, override = false).
    why: 'the store keeps the instance partitions it assigned (PinotHelixResourceManager#assignInstances with override false): nothing moves until a rebalance with reassignInstances, and segments stay placed by the old groups',
    matches: (keys) => startsWith(keys, 'instanceAssignmentConfigMap') || startsWith(keys, 'segmentsConfig', 'replicaGroupStrategyConfig'),
  },
  {
    field: 'upsert',
    why: 'the primary-key metadata of stored rows was built with the old mode, hash and comparison columns; 1.5.0 refuses these changes unless forced (TableConfigUtils#validateBackwardCompatibility, apache/pinot#17645) and says "Please create a new table instead"',
    matches: (keys) => startsWith(keys, 'upsertConfig'),
  },
  {
    field: 'dedup',
    why: 'the dedup metadata of stored rows was built with the old hash and time column; 1.5.0 refuses these changes unless forced (TableConfigUtils#validateBackwardCompatibility, apache/pinot#17645)',
    matches: (keys) => startsWith(keys, 'dedupConfig'),
  },
];

export interface ForcedReplacement {
  field: string;
  why: string;
  /** The differences in this field, as the plan's difference lines show them. */
  paths: string[];
}

/** The fields among a table's differences that force its replacement, in the rules' order; empty when an update does. */
export function replacementFields(changes: readonly FieldChange[]): ForcedReplacement[] {
  return REPLACEMENT_RULES.flatMap((rule) => {
    const paths = changes.filter((change) => rule.matches(change.keys)).map((change) => change.path);
    return paths.length ? [{ field: rule.field, why: rule.why, paths }] : [];
  });
}

/** "the stream topic (tableIndexConfig.streamConfigs["stream.kafka.topic.name"]) and the time column (…)". */
export function forcedFieldsText(forced: readonly ForcedReplacement[]): string {
  const named = forced.map((f) => `${f.field} (${f.paths.join(', ')})`);
  return named.length <= 1 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}
