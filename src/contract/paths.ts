/**
 * Every gateway and identity-provider path dpgw calls, in one module.
 * Paths marked ASSUMED are not in the contract; docs/gateway-api.md lists them.
 */
import { CATALOG_ALL, DEFAULT_OLAP_SEGMENT } from './constants.js';

const seg = (value: string): string => encodeURIComponent(value);

/** The catalog's base; a data set's `self` href is relative to it. */
export const CATALOG_BASE = '/api/v2/catalog';

export const paths = {
  /** POST: store an analytics schema. */
  olapSchemas: (olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/schemas`,
  /** POST: create a real-time table. ASSUMED: GET lists the store's tables (the store controller's GET /tables, `{"tables": [...]}`). */
  olapTables: (olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables`,
  /** GET: catalog data sets of a data source's enablement (`all`/`all` selects every one). */
  catalogDataSets: (dataSourceId: string = CATALOG_ALL, enablementId: string = CATALOG_ALL) =>
    `${CATALOG_BASE}/datasources/${seg(dataSourceId)}/enablements/${seg(enablementId)}/datasets`,
  /** GET: a data set's storage; the data set part is its `self` href, relative to the catalog base. */
  dataSetStorage: (selfHref: string, storageId: string) => `${CATALOG_BASE}${normaliseSelfHref(selfHref)}/storages/${seg(storageId)}`,
  /** GET: health of every component, or of one. */
  health: (component?: string) => (component === undefined ? '/api/health' : `/api/health/${seg(component)}`),

  /** ASSUMED. GET: the data sources of the catalog. */
  catalogDataSources: () => `${CATALOG_BASE}/datasources`,
  /** ASSUMED. GET: the data sets a data source offers for enabling. */
  offeredDataSets: (dataSourceId: string) => `${CATALOG_BASE}/datasources/${seg(dataSourceId)}/datasets`,
  /** ASSUMED. GET lists, POST creates enablements of a data source. */
  enablements: (dataSourceId: string) => `${CATALOG_BASE}/datasources/${seg(dataSourceId)}/enablements`,
  /** ASSUMED. PUT: enable a data set in an enablement (idempotent). */
  enablementDataSet: (dataSourceId: string, enablementId: string, dataSetName: string) =>
    `${CATALOG_BASE}/datasources/${seg(dataSourceId)}/enablements/${seg(enablementId)}/datasets/${seg(dataSetName)}`,
  /** ASSUMED. GET: one schema as the analytics store holds it (the store controller's GET /schemas/{name}, through the gateway); DELETE removes it. */
  olapSchema: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/schemas/${seg(name)}`,
  /** ASSUMED. GET: one table as the analytics store holds it (the store controller's GET /tables/{name}); PUT replaces its config. */
  olapTable: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}`,
  /**
   * ASSUMED. DELETE: a real-time table (the store controller's DELETE /tables/{name}?type=realtime). The type is
   * named so that an OFFLINE table of the same name, which dpgw never made, is never deleted along with it.
   */
  olapRealtimeTableDeletion: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}?type=realtime`,
  /** ASSUMED. GET: the store controller's consuming segments of a real-time table (GET /tables/{name}/consumingSegmentsInfo), through the gateway. */
  olapConsumingSegments: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}/consumingSegmentsInfo`,
  /** ASSUMED. GET: the store controller's external view of a table's segments (GET /tables/{name}/externalview), through the gateway. */
  olapExternalView: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}/externalview`,
  /** ASSUMED. POST: a SQL query of the store's broker (its POST /query/sql, body `{"sql": …}`), through the gateway. */
  olapQuery: (olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/query/sql`,
  /** ASSUMED. GET: the store controller's debug view of a table: segments in error and why (GET /debug/tables/{name}), through the gateway. */
  olapTableDebug: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/debug/tables/${seg(name)}`,
  /**
   * ASSUMED. POST: reload a real-time table's segments (the store controller's POST /segments/{name}/reload?type=REALTIME,
   * Pinot's PinotSegmentRestletResource#reloadAllSegments), through the gateway; the answer names the reload job.
   */
  olapSegmentReload: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/segments/${seg(name)}/reload?type=REALTIME`,
  /** ASSUMED. GET: a reload job's progress (the store controller's GET /segments/segmentReloadStatus/{jobId}, PinotSegmentRestletResource#getReloadJobStatus). */
  olapSegmentReloadStatus: (jobId: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/segments/segmentReloadStatus/${seg(jobId)}`,
  /** ASSUMED. POST: commit a real-time table's consuming segments now (the store controller's POST /tables/{name}/forceCommit, PinotRealtimeTableResource#forceCommit). */
  olapForceCommit: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}/forceCommit`,
  /** ASSUMED. GET: a force commit's progress (the store controller's GET /tables/forceCommitStatus/{jobId}; Pinot 1.0 and later). */
  olapForceCommitStatus: (jobId: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/forceCommitStatus/${seg(jobId)}`,
  /** ASSUMED. GET: whether the store has paused a table's consumption (the store controller's GET /tables/{name}/pauseStatus, `{"pauseFlag", "consumingSegments"}`), through the gateway. */
  olapPauseStatus: (name: string, olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}/pauseStatus`,
  /** ASSUMED. POST: pause or resume a table's consumption (the store controller's POST /tables/{name}/pauseConsumption | resumeConsumption), through the gateway. */
  olapConsumptionChange: (name: string, change: 'pause' | 'resume', olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/${seg(name)}/${change}Consumption`,
  /**
   * ASSUMED. POST: the store controller's read-only checks (issue #47 §3), through the gateway: a schema with its
   * table (`{tableName, schema, realtime}`, the store's POST /tableConfigs/validate), or each alone (its POST
   * /schemas/validate and /tables/validate). Nothing is stored.
   */
  olapTableConfigsValidation: (olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tableConfigs/validate`,
  olapSchemaValidation: (olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/schemas/validate`,
  olapTableValidation: (olapSegment: string = DEFAULT_OLAP_SEGMENT) => `/api/internal/${seg(olapSegment)}/tables/validate`,
  /** ASSUMED. GET: the platform version; 404 means unknown. */
  version: () => '/api/version',

  /** The identity provider's token endpoint, relative to the auth URL. */
  token: (realm: string) => `/auth/realms/${seg(realm)}/protocol/openid-connect/token`,
  /** The realm's issuer, relative to the auth URL (OpenID discovery lives below it). */
  realmIssuer: (realm: string) => `/auth/realms/${seg(realm)}`,
} as const;

/**
 * A `self` href is documented as `/datasources/{ds}/enablements/{en}/datasets/{id}`,
 * relative to the catalog base. Gateways behind proxies sometimes return it absolute
 * or with the base already on; accept both so the storage path is never doubled.
 */
export function normaliseSelfHref(href: string): string {
  let path = href;
  if (/^https?:\/\//i.test(path)) path = new URL(path).pathname;
  const baseAt = path.indexOf(CATALOG_BASE + '/');
  if (baseAt >= 0) path = path.slice(baseAt + CATALOG_BASE.length);
  if (!path.startsWith('/')) path = '/' + path;
  return path.replace(/\/+$/, '');
}
