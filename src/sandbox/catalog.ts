/**
 * The sandbox catalog: data sources offering data sets, enablements with groups,
 * enabled data sets whose topic appears after a delay (a real platform is
 * asynchronous), and the read permissions the storage touch creates.
 */
import type { MessageShape } from './stream/feed-messages.js';
import { DEFAULT_STORAGE_NAME, SELF_LINK_REL, TOPIC_LABEL_KEY_SUFFIX } from '../contract/constants.js';
import type { CatalogDataSet, CatalogDataSource, Enablement, OfferedDataSet } from '../contract/types.js';
import { stableId } from './stable-id.js';

export const TOPIC_LABEL_KEY = `platform.sandbox.local${TOPIC_LABEL_KEY_SUFFIX}`;

export interface SeedDataSource {
  name: string;
  dataSets: string[];
  /** The shape of its data sets' messages (feed-messages.ts); default: track reports. */
  messages?: MessageShape;
}

export const DEFAULT_SEED: SeedDataSource[] = [
  // The library's data sets are position reports, each in the track data set's shape.
  { name: 'mock-data-library', dataSets: ['track', 'vessel', 'weather'], messages: 'track' },
  { name: 'mock-sensor-feed', dataSets: ['telemetry'], messages: 'reading' },
];

interface DataSourceRecord {
  id: string;
  name: string;
  offered: OfferedDataSet[];
  messages: MessageShape;
}

interface EnabledDataSet {
  id: string;
  name: string;
  storageId: string;
  /** Set once the platform has created the topic. */
  topic?: string;
}

interface EnablementRecord {
  id: string;
  name: string;
  dataSourceId: string;
  groups: string[];
  dataSets: Map<string, EnabledDataSet>;
}

export interface Permission {
  table: string;
  dataSet: string;
  enablementId: string;
  groups: string[];
  privilege: 'SELECT';
  /** How it came about: the manual storage call (platforms before 1.15.165) or automatically. */
  via: 'storage-touch' | 'automatic';
}

export class Catalog {
  readonly dataSources: DataSourceRecord[];
  readonly enablements = new Map<string, EnablementRecord>();
  readonly topics = new Set<string>();
  readonly permissions: Permission[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Creates the topic on the message stream before the data set is listed with it. */
  topicCreator?: (topic: string, dataSet: string, messages: MessageShape) => Promise<void>;
  /** Why a topic could not be created, by topic (backed mode). */
  readonly topicErrors = new Map<string, string>();

  constructor(
    seed: SeedDataSource[],
    private readonly topicDelayMs: () => number,
    private readonly omitTopicLabels = false,
    private readonly omitStorages = false,
  ) {
    this.dataSources = seed.map((source) => {
      const id = stableId(`datasource:${source.name}`);
      return { id, name: source.name, offered: source.dataSets.map((name) => ({ id: stableId(`offered:${source.name}:${name}`), name })), messages: source.messages ?? 'track' };
    });
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  listDataSources(): CatalogDataSource[] {
    return this.dataSources.map((s) => ({ id: s.id, name: s.name, links: [{ rel: SELF_LINK_REL, href: `/datasources/${s.id}` }] }));
  }

  dataSource(id: string): DataSourceRecord | undefined {
    return this.dataSources.find((s) => s.id === id);
  }

  listEnablements(dataSourceId: string): Enablement[] {
    return [...this.enablements.values()].filter((e) => e.dataSourceId === dataSourceId).map(toEnablement);
  }

  createEnablement(dataSourceId: string, name: string, groups: string[]): Enablement | 'exists' {
    if ([...this.enablements.values()].some((e) => e.dataSourceId === dataSourceId && e.name === name)) return 'exists';
    const record: EnablementRecord = { id: stableId(`enablement:${dataSourceId}:${name}`), name, dataSourceId, groups: [...groups], dataSets: new Map() };
    this.enablements.set(record.id, record);
    return toEnablement(record);
  }

  /** Enables a data set; idempotent. The topic is created after the configured delay. */
  enable(enablementId: string, dataSetName: string): { created: boolean } {
    const enablement = this.enablements.get(enablementId)!;
    if (enablement.dataSets.has(dataSetName)) return { created: false };
    const dataSet: EnabledDataSet = { id: stableId(`dataset:${enablementId}:${dataSetName}`), name: dataSetName, storageId: stableId(`storage:${enablementId}:${dataSetName}`) };
    enablement.dataSets.set(dataSetName, dataSet);
    const source = this.dataSource(enablement.dataSourceId)!;
    const name = `${source.name}.${enablement.name}.${dataSetName}`;
    const createTopic = () => {
      const listed = () => {
        dataSet.topic = name;
        this.topics.add(name);
      };
      if (!this.topicCreator) return listed();
      this.topicCreator(name, dataSetName, source.messages).then(listed, (error: Error) => this.topicErrors.set(name, error.message));
    };
    const delay = this.topicDelayMs();
    if (delay <= 0) createTopic();
    else {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        createTopic();
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
    return { created: true };
  }

  /** Data sets whose topic exists, under a data source and enablement (`all` for every one). */
  listDataSets(dataSourceId: string, enablementId: string): CatalogDataSet[] {
    const out: CatalogDataSet[] = [];
    for (const enablement of this.enablements.values()) {
      if (dataSourceId !== 'all' && enablement.dataSourceId !== dataSourceId) continue;
      if (enablementId !== 'all' && enablement.id !== enablementId) continue;
      for (const dataSet of enablement.dataSets.values()) {
        if (dataSet.topic === undefined) continue;
        out.push({
          id: dataSet.id,
          name: dataSet.name,
          storage: this.omitStorages ? [] : [{ name: DEFAULT_STORAGE_NAME, id: dataSet.storageId }],
          links: [{ rel: SELF_LINK_REL, href: selfHref(enablement, dataSet) }],
          ...(this.omitTopicLabels ? {} : { labels: { [TOPIC_LABEL_KEY]: dataSet.topic } }),
        });
      }
    }
    return out;
  }

  findEnabled(dataSourceId: string, enablementId: string, dataSetId: string): { enablement: EnablementRecord; dataSet: EnabledDataSet } | undefined {
    const enablement = this.enablements.get(enablementId);
    if (!enablement || enablement.dataSourceId !== dataSourceId) return undefined;
    const dataSet = [...enablement.dataSets.values()].find((d) => d.id === dataSetId);
    return dataSet && dataSet.topic !== undefined ? { enablement, dataSet } : undefined;
  }

  /** The enabled data sets whose topic a table consumes. */
  dataSetsOfTopic(topic: string): Array<{ enablement: EnablementRecord; dataSet: EnabledDataSet }> {
    const out: Array<{ enablement: EnablementRecord; dataSet: EnabledDataSet }> = [];
    for (const enablement of this.enablements.values()) for (const dataSet of enablement.dataSets.values()) if (dataSet.topic === topic) out.push({ enablement, dataSet });
    return out;
  }

  grant(table: string, dataSet: string, enablement: EnablementRecord, via: Permission['via']): Permission {
    const existing = this.permissions.find((p) => p.table === table && p.enablementId === enablement.id);
    if (existing) return existing;
    const permission: Permission = { table, dataSet, enablementId: enablement.id, groups: [...enablement.groups], privilege: 'SELECT', via };
    this.permissions.push(permission);
    return permission;
  }

  /** Whether a user with these groups may read a table (what the query engine's policy would decide). */
  canRead(table: string, groups: readonly string[]): boolean {
    return this.permissions.some((p) => p.table === table && p.groups.some((g) => groups.includes(g)));
  }
}

function toEnablement(record: EnablementRecord): Enablement {
  return { id: record.id, name: record.name, groups: [...record.groups], links: [{ rel: SELF_LINK_REL, href: `/datasources/${record.dataSourceId}/enablements/${record.id}` }] };
}

function selfHref(enablement: EnablementRecord, dataSet: EnabledDataSet): string {
  return `/datasources/${enablement.dataSourceId}/enablements/${enablement.id}/datasets/${dataSet.id}`;
}
