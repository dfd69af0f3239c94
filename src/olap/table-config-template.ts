/**
 * A store's REALTIME table config (as `GET /tables/x` answers it, or as its examples are
 * written) turned into a dpgw table template: what dpgw's run fills (the names, the topic,
 * the stream connection, retention in days, tenants) becomes its ${placeholder}; everything
 * else (the time column, upsert, indexes, routing, star-tree, complex types,
 * aggregation, dedup, transforms, flush thresholds…) is kept as it is.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import { TABLE_DEFAULTS } from '../contract/constants.js';
import type { LocatedDocument, PathPart } from './located-document.js';
import { fieldPath } from './schema-validation.js';
import { STREAM_CONFIG_MAPS_PATH, streamConfigPlace } from './stream-config-place.js';
import { STREAM_CONNECTION_KEY } from './table-template.js';
import { isMapping } from './object-at.js';

export interface TemplateReplacement {
  path: PathPart[];
  /** Where in the template, e.g. `tableIndexConfig.streamConfigs.stream.kafka.broker.list`. */
  field: string;
  /** What it became: a placeholder or dpgw's own value; undefined when the key was taken out. */
  now?: string;
  /** The original's value; undefined when dpgw added the key. */
  was?: unknown;
}

export interface ConvertedTemplate {
  template: Record<string, unknown>;
  replaced: TemplateReplacement[];
}

/**
 * ZooKeeper addresses of the store's old high-level consumer (`stream.kafka.hlc.zk.connect.string`,
 * `stream.kafka.zk.broker.url`): the low-level consumer every current store runs reads the brokers
 * alone, so the store's examples' `localhost:2191/kafka` is taken out with the connection.
 */
const ZOOKEEPER_KEY = /(^|\.)(zk\.connect\.string|zk\.broker\.url)$/i;

const at = (path: PathPart[]) => ({ path, field: fieldPath(path) });


export function tableConfigToTemplate(document: LocatedDocument): ConvertedTemplate {
  // `GET /tables/x` answers { "REALTIME": {…} } (and "OFFLINE" for a hybrid table).
  const given = document.value;
  const wrapped = isMapping(given) && (isMapping(given.REALTIME) || isMapping(given.OFFLINE)) && given.tableName === undefined;
  const config = wrapped ? (given as Record<string, unknown>).REALTIME : given;
  if (!isMapping(config) || String(config.tableType).toUpperCase() !== 'REALTIME') {
    const type = isMapping(config) ? String(config.tableType) : wrapped ? 'OFFLINE' : 'none';
    throw new DpgwError('SCHEMA_INVALID', `the table config is not a REALTIME table (tableType: ${type}): dpgw templates fill real-time tables from a stream`, { where: document.at(wrapped ? [] : ['tableType']), hint: "give a REALTIME table config (an OFFLINE table's segments come from batch ingestion, which dpgw does not provision)" });
  }
  const template = structuredClone(config);
  const replaced: TemplateReplacement[] = [];
  const set = (parent: Record<string, unknown>, path: PathPart[], key: string, now: string) => {
    const was = parent[key];
    parent[key] = now;
    if (was !== now) replaced.push({ ...at([...path, key]), now, ...(was !== undefined ? { was } : {}) });
  };
  // The store writes the REALTIME name with its suffix (`x_REALTIME`) in a GET's answer.
  set(template, [], 'tableName', '${tableName}');
  const segments = isMapping(template.segmentsConfig) ? template.segmentsConfig : (template.segmentsConfig = {});
  if (segments.schemaName !== undefined) set(segments, ['segmentsConfig'], 'schemaName', '${schemaName}');
  // The time column is the table's own choice among its schema's date-time columns (airlineStats has three): kept as written.
  // Retention is dpgw's setting when it is counted in days; another unit stays as the config has it.
  if (segments.retentionTimeValue !== undefined && String(segments.retentionTimeUnit).toUpperCase() === TABLE_DEFAULTS.retentionTimeUnit) set(segments, ['segmentsConfig'], 'retentionTimeValue', '${retentionDays}');
  const tenants = isMapping(template.tenants) ? template.tenants : (template.tenants = {});
  set(tenants, ['tenants'], 'broker', '${brokerTenant}');
  set(tenants, ['tenants'], 'server', '${serverTenant}');
  const place = streamConfigPlace(template);
  if (place.kind === 'problem') throw new DpgwError('SCHEMA_INVALID', `${fieldPath(place.path)}: ${place.message}`, { where: document.at(place.path.slice(0, place.path === STREAM_CONFIG_MAPS_PATH ? 3 : 2)), hint: 'fix the table config, then convert it again' });
  const stream = streamTemplate(place.map, place.path, replaced);
  if (place.path.length === 2) (template.tableIndexConfig as Record<string, unknown>).streamConfigs = stream;
  else ((template.ingestionConfig as Record<string, unknown>).streamIngestionConfig as { streamConfigMaps: unknown[] }).streamConfigMaps[0] = stream;
  return { template, replaced };
}

/** The stream config with dpgw's placeholders: its own keys kept in order, the connection as dpgw's default template makes it. */
function streamTemplate(map: Record<string, unknown>, path: PathPart[], replaced: TemplateReplacement[]): Record<string, unknown> {
  const type = String(map.streamType);
  const prefix = `stream.${type}.`;
  const owned: Record<string, string> = {
    'topic.name': '${topic}',
    'decoder.class.name': '${decoderClass}',
    'consumer.factory.class.name': '${consumerFactoryClass}',
    'broker.list': '${brokerList}',
  };
  const out: Record<string, unknown> = {};
  // Connection keys taken out, by name: one dpgw sets again is reported as replaced.
  const removed = new Map<string, TemplateReplacement>();
  let registry = false;
  for (const [key, value] of Object.entries(map)) {
    const suffix = key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
    const templateKey = suffix !== undefined ? `stream.\${streamType}.${suffix}` : key;
    if (key === 'streamType') out.streamType = '${streamType}';
    else if (suffix !== undefined && owned[suffix] !== undefined) out[templateKey] = owned[suffix];
    else if (STREAM_CONNECTION_KEY.test(key) || ZOOKEEPER_KEY.test(key)) {
      // Where and how the store connects is the run's: dpgw's SASL connection below, its registry URL where one was named.
      if (/schema\.registry\.[a-z.]*url$/i.test(key)) registry = true;
      const entry: TemplateReplacement = { ...at([...path, key]), was: value };
      // By the key dpgw writes back (`stream.${streamType}.…` for `stream.kafka.…`): one key, one line.
      removed.set(templateKey, entry);
      replaced.push(entry);
      continue;
    } else out[templateKey] = value;
    if (out[templateKey] !== value && key !== 'streamType') replaced.push({ ...at([...path, key]), now: String(out[templateKey]), was: value });
    if (key === 'streamType') replaced.push({ ...at([...path, key]), now: '${streamType}', was: value });
  }
  const connection: Record<string, string> = {
    'stream.${streamType}.broker.list': '${brokerList}',
    'security.protocol': TABLE_DEFAULTS.securityProtocol,
    'sasl.mechanism': TABLE_DEFAULTS.saslMechanism,
    'sasl.jaas.config': '${saslJaasConfig}',
    ...(registry ? { 'stream.${streamType}.decoder.prop.schema.registry.rest.url': '${registryUrl}' } : {}),
  };
  for (const [key, value] of Object.entries(connection)) {
    if (out[key] !== undefined) continue;
    out[key] = value;
    const before = removed.get(key);
    // Taken out and written back as it was (a dpgw-made table's SASL_PLAINTEXT): no change to report.
    if (before?.was === value) replaced.splice(replaced.indexOf(before), 1);
    else if (before) before.now = value;
    else replaced.push({ ...at([...path, key]), now: value });
  }
  return out;
}
