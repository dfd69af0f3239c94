/**
 * What \`dpgw provision\` hands its run (provision-run.ts): the options its command fills once,
 * the reads checkBeforeRun makes before anything changes, and the result of each data set.
 */
import type { CatalogCache } from '../catalog/enable-data-set.js';
import { newCatalogCache } from '../catalog/enable-data-set.js';
import type { AnalyticsSchema } from '../contract/types.js';
import type { HalfDoneWork } from './half-done-work.js';
import type { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import type { TableSettings } from '../olap/build-table.js';
import type { ManifestMark } from '../olap/manifest-mark.js';
import type { StreamConnection } from '../stream/stream-connection.js';
import type { StreamPreflight } from '../stream/stream-preflight.js';
import type { StatementClient } from '../query-engine/statement-client.js';
import type { SupersetClient } from '../dashboard/superset-client.js';
import type { LoadedManifest } from './manifest.js';
import type { LiveComparison } from './live-state.js';
import type { SampleCheck } from './steps/sample-step.js';
import type { StepRecord } from './steps/step-record.js';
import type { Replacement } from './steps/replace-table.js';
import type { StoreValidation, SubjectPlaces } from './store-validation.js';

export interface DataSetResult {
  dataset: string;
  datasource: string;
  enablement: string;
  topic?: string;
  schema: string;
  table: string;
  status: 'done' | 'failed' | 'interrupted' | 'skipped' | 'planned';
  changed: boolean;
  /** A step found something that exists and could not compare it with the manifest. */
  uncompared?: boolean;
  steps: StepRecord[];
  error?: Record<string, unknown>;
  exitCode?: number;
  ms: number;
}

export interface Prepared {
  entry: LoadedManifest['entries'][number];
  /** Undefined for `schema: { infer: … }`: inferred from the topic once the data set is enabled. */
  schema?: AnalyticsSchema;
  schemaName: string;
  tableName: string;
}

/** The run's settings the steps read (settings/core-options.ts: provisionSettingsOf). */
export interface ProvisionSettings {
  table: TableSettings;
  /** Checked already: the analytics-store word of the gateway's paths. */
  olapSegment: string;
  /** Set: the platform version, not asked of the gateway. */
  platformVersion?: string;
}

/** The profiles of config.yaml, which verify and dashboard steps must name. */
export interface KnownProfiles {
  names: readonly string[];
  /** The config file, for the message naming a profile it lacks. */
  file: string;
}

/** How a run goes, filled once by its command and never changed after: what the run reads before it starts comes back as RunReads. */
export interface RunOptions {
  readonly client: GatewayClient;
  /** The manifest: every table it creates or updates carries its mark (olap/manifest-mark.ts). */
  readonly manifestMark: ManifestMark;
  readonly settings: ProvisionSettings;
  readonly streamPassword?: string;
  /** How dpgw reads topics, for `schema: { infer: … }` (set when an entry infers). */
  readonly stream?: StreamConnection;
  /** The whole read of one topic. */
  readonly streamTimeoutMs?: number;
  /** The stream pre-flight before each table; undefined with --no-stream-check. */
  readonly preflight?: StreamPreflight;
  /** Sampled messages held against each schema before its table; undefined when off, and why (`sampleCheckOff`). */
  readonly sampleCheck?: SampleCheck;
  readonly sampleCheckOff?: string;
  /** `--sample-ignore`: columns every data set's sample check passes unjudged. */
  readonly sampleIgnore?: readonly string[];
  /** How long to wait for the store to consume each table (0: not checked). */
  readonly waitConsumingMs?: number;
  /** `--wait-reload`: how long to wait for the store to reload a table whose schema gained columns (0: send, do not wait). */
  readonly waitReloadMs?: number;
  /** `--force-commit`: after such a reload, commit the table's consuming segments. */
  readonly forceCommit?: boolean;
  /** Data sets side by side, in a plan as in a run. */
  readonly concurrency: number;
  readonly failFast: boolean;
  readonly failOnExists: boolean;
  readonly waitTimeoutMs: number;
  /** Set by Ctrl-C: no new step starts. */
  readonly interrupted: () => boolean;
  /** Aborted by Ctrl-C: a wait for a topic ends at once. */
  readonly stopSignal?: AbortSignal;
  /** What a quit at once (a second stop signal) would leave half done, said before it exits. */
  readonly halfDone?: HalfDoneWork;
  /** `--adopt`: a table another manifest marked is updated and marked as this manifest's, not refused. */
  readonly adopt?: boolean;
  /** `--allow-replace`: a table that differs in a field the store cannot change in place is deleted and created anew (steps/replace-table.ts). */
  readonly allowReplace?: boolean;
  /** At a terminal without --allow-replace: asks for the table's name before the run, and throws when it is not typed. */
  readonly confirmReplace?: (replacement: Replacement) => Promise<void>;
  /** How long a replacement waits for the store to drop the table (the run's --timeout). */
  readonly deleteTimeoutMs?: number;
  /** The query engine as a profile, for the verify steps (created before the run). */
  readonly engineOf?: (profile: string) => StatementClient;
  /** The dashboard tool as a profile (undefined: the run's settings), with its connection's name. */
  readonly dashboardOf?: (profile: string | undefined) => { client: SupersetClient; databaseName: string };
  readonly warn: (message: string) => void;
  readonly onProgress?: (done: number, total: number, current: string) => void;
  /** Each data set as it finishes. */
  readonly onFinished?: (result: DataSetResult, done: number, total: number) => void;
}

/** What checkBeforeRun read, handed to plan and run: asked once per run, by entry index where it is a data set's. */
export interface RunReads {
  /** Data sources and their offers. */
  readonly catalogCache: CatalogCache;
  /** The platform's version: the settings' when set, else as the gateway answered it. */
  readonly platformVersion: Promise<string | undefined>;
  /** The store's schemas compared with the manifest's. */
  readonly schemaComparisons: ReadonlyMap<number, LiveComparison>;
  /** Entries whose schema the store would refuse: they fail before any request of theirs. */
  readonly refusedSchemas: ReadonlyMap<number, DpgwError>;
  /** The store's tables. */
  readonly tableReads: ReadonlyMap<number, StoreRead<Record<string, unknown>>>;
  /** Entries whose table another manifest marked (and no --adopt), or needs a replacement the run may not make: they fail before any request of theirs. */
  readonly refusedTables: ReadonlyMap<number, DpgwError>;
  /** Entries whose table's replacement was allowed before the run (its name typed at a terminal). */
  readonly replaceConfirmed?: ReadonlySet<number>;
  /** A plan's: the store's validate calls, and where each data set's schema and table were written (issue #47 §3). */
  readonly storeValidation?: { validation: StoreValidation; placesOf(entry: Prepared['entry']): SubjectPlaces };
}

/** Nothing read before the run: each step reads for itself (a caller that skips checkBeforeRun). */
export function nothingReadBeforeRun(options: Pick<RunOptions, 'client' | 'settings'>): RunReads {
  return { catalogCache: newCatalogCache(), platformVersion: platformVersionOf(options), schemaComparisons: new Map(), refusedSchemas: new Map(), tableReads: new Map(), refusedTables: new Map() };
}

export function platformVersionOf(options: Pick<RunOptions, 'client' | 'settings'>): Promise<string | undefined> {
  if (options.settings.platformVersion !== undefined) return Promise.resolve(options.settings.platformVersion);
  const read = options.client.platformVersion();
  // Awaited by plan and run, which say its error; until then it is not an unhandled rejection.
  read.catch(() => undefined);
  return read;
}
