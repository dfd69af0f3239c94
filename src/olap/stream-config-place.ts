/**
 * Where a REALTIME table holds its stream config. The analytics store reads it from one of
 * two places (Pinot's IngestionConfigUtils.getStreamConfigMap): the one map of
 * `ingestionConfig.streamIngestionConfig.streamConfigMaps` when that is given, else
 * `tableIndexConfig.streamConfigs` (the older place, which current releases still read).
 */
import type { PathPart } from './located-document.js';
import { isMapping } from './object-at.js';

export type StreamConfigPlace =
  | { kind: 'found'; path: PathPart[]; map: Record<string, unknown> }
  | { kind: 'problem'; path: PathPart[]; message: string };

export const STREAM_CONFIGS_PATH: PathPart[] = ['tableIndexConfig', 'streamConfigs'];
export const STREAM_CONFIG_MAPS_PATH: PathPart[] = ['ingestionConfig', 'streamIngestionConfig', 'streamConfigMaps'];


export function streamConfigPlace(table: unknown): StreamConfigPlace {
  const root = isMapping(table) ? table : {};
  const indexConfig = isMapping(root.tableIndexConfig) ? root.tableIndexConfig : {};
  const ingestion = isMapping(root.ingestionConfig) ? root.ingestionConfig : {};
  const streamIngestion = ingestion.streamIngestionConfig;
  const streamConfigs = indexConfig.streamConfigs;
  if (streamIngestion !== undefined && streamIngestion !== null) {
    // TableConfigUtils.validateIngestionConfig (0.11.0 and later): both places at once is refused.
    if (isMapping(streamConfigs) && Object.keys(streamConfigs).length > 0) {
      return { kind: 'problem', path: STREAM_CONFIGS_PATH, message: 'the stream config stands in two places: keep tableIndexConfig.streamConfigs or ingestionConfig.streamIngestionConfig.streamConfigMaps, not both (the store refuses both)' };
    }
    const maps = isMapping(streamIngestion) ? streamIngestion.streamConfigMaps : undefined;
    // 0.11.0's TableConfigUtils: "Only 1 stream is supported in REALTIME table". Later releases
    // take several (same stream type, no upsert), but a dpgw table reads one data set's topic.
    if (!Array.isArray(maps) || maps.length !== 1 || !isMapping(maps[0])) {
      const count = Array.isArray(maps) ? `${maps.length} maps` : 'no list of maps';
      return { kind: 'problem', path: STREAM_CONFIG_MAPS_PATH, message: `streamConfigMaps must hold exactly one map of stream configs, not ${count}: a dpgw table reads one data set's topic` };
    }
    return { kind: 'found', path: [...STREAM_CONFIG_MAPS_PATH, 0], map: maps[0] };
  }
  if (isMapping(streamConfigs)) return { kind: 'found', path: STREAM_CONFIGS_PATH, map: streamConfigs };
  // IngestionConfigUtils.getStreamConfigMap: "Could not find streamConfigs for REALTIME table".
  return { kind: 'problem', path: STREAM_CONFIGS_PATH, message: 'streamConfigs is missing: a REALTIME table needs its stream (tableIndexConfig.streamConfigs, or the one map of ingestionConfig.streamIngestionConfig.streamConfigMaps)' };
}
