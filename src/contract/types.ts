/**
 * Request and response types of the gateway, named after the contract's tables.
 * Types marked ASSUMED describe endpoints the contract does not show (docs/gateway-api.md).
 */

/** Field spec (dimension and metric). */
export interface FieldSpec {
  name: string;
  dataType: string;
}

/** Date-time field spec. */
export interface DateTimeFieldSpec {
  name: string;
  dataType: string;
  notNull?: boolean;
  /** `<size>:<unit>:EPOCH`, for example `1:MILLISECONDS:EPOCH`. */
  format: string;
  /** `<size>:<unit>`, for example `1:MILLISECONDS`. */
  granularity: string;
}

/** Analytics schema (request body of schema creation). */
export interface AnalyticsSchema {
  schemaName: string;
  dimensionFieldSpecs?: FieldSpec[];
  metricFieldSpecs?: FieldSpec[];
  dateTimeFieldSpecs?: DateTimeFieldSpec[];
}

export interface SegmentsConfig {
  timeColumnName: string;
  timeType: string;
  retentionTimeUnit: string;
  retentionTimeValue: number;
  replication: number;
  replicasPerPartition: number;
  schemaName: string;
}

/** Flat map of string keys to string values (streamConfigs keys of the contract). */
export type StreamConfigs = Record<string, string>;

export interface TableIndexConfig {
  loadMode: string;
  streamConfigs: StreamConfigs;
}

export interface TransformConfig {
  columnName: string;
  transformFunction: string;
}

export interface IngestionConfig {
  transformConfigs?: TransformConfig[];
}

export interface Tenants {
  broker: string;
  server: string;
}

export interface TableMetadata {
  customConfigs: Record<string, string>;
}

/** Real-time table definition (request body of table creation). */
export interface RealtimeTableDefinition {
  tableName: string;
  tableType: string;
  segmentsConfig: SegmentsConfig;
  tableIndexConfig: TableIndexConfig;
  ingestionConfig?: IngestionConfig;
  tenants: Tenants;
  metadata?: TableMetadata;
}

export interface Storage {
  name: string;
  id: string;
}

export interface Link {
  rel: string;
  href: string;
}

/** Catalog data set (response element of the data set listing). */
export interface CatalogDataSet {
  name: string;
  storage: Storage[];
  links: Link[];
  /** ASSUMED: the topic label lives here (key ending in `/dataset`). */
  labels?: Record<string, string>;
  /** ASSUMED: some gateways nest labels under metadata. */
  metadata?: { labels?: Record<string, string> };
  id?: string;
}

/** Health record; `groups` only at the top level of a response. */
export interface HealthRecord {
  status: string;
  components?: Record<string, HealthRecord>;
  groups?: string[];
}

/** Identity provider token response; only `access_token` is shown by the contract. */
export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  refresh_expires_in?: number;
  token_type?: string;
  id_token?: string;
  scope?: string;
}

/** ASSUMED. Catalog data source. */
export interface CatalogDataSource {
  id: string;
  name: string;
  links?: Link[];
}

/** ASSUMED. A data set a data source offers for enabling. */
export interface OfferedDataSet {
  id: string;
  name: string;
}

/** ASSUMED. Request body of enablement creation. */
export interface EnablementRequest {
  name: string;
  groups: string[];
}

/** ASSUMED. Enablement of a data source. */
export interface Enablement {
  id: string;
  name: string;
  groups: string[];
  links?: Link[];
}

/** ASSUMED. Response of the version endpoint. */
export interface PlatformVersion {
  version: string;
}
