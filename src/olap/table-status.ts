/**
 * What `dpgw table status NAME` tells, per partition of a real-time table: whether the store
 * consumes it, the state of its newest segment, the offset the store has reached and the
 * topic's latest offset (the lag between them, in messages), and any error the store reports
 * for the table or its segments; and the rows it holds. Each fact comes from one read of the
 * store (its controller, and its broker for the rows), passed on by the gateway (docs/tables.md,
 * "table status"); a read the gateway does not pass on leaves its facts unknown and says so, the
 * others still shown.
 */
import { streamConfigPlace } from './stream-config-place.js';
import { z } from 'zod';
import type { GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import { fieldOf } from '../gateway/answer-shapes.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { GatewayError } from '../gateway/gateway-error.js';
import { serverText } from '../text/terminal-text.js';
import { CONSUMING_STATE } from './consumption.js';

/** The reads a status is made of, by what they tell. */
export type StatusRead = 'consuming segments' | 'segment states' | 'rows' | 'segment errors' | 'latest offsets';

export interface PartitionStatus {
  partition: number;
  /** A server consumes it (the consuming segments; without them, a CONSUMING segment in the external view). */
  consuming: boolean | null;
  /** Its newest segment, `{table}__{partition}__{sequence}__{time}`. */
  segment?: string;
  /** That segment's state in the external view (CONSUMING, ONLINE, OFFLINE, ERROR); the worst of its servers'. */
  state?: string;
  /** The rows the store holds of it, in all its segments (the broker's count). */
  rows?: number;
  /** The offset the store has reached in it. */
  offset?: string;
  /** The offset the topic's next message gets. */
  latestOffset?: string;
  /** Messages on the topic the store has not consumed yet: latestOffset − offset. */
  lag?: string;
  /** The store's reasons, each `{segment} on {server}: {message}`. */
  errors: string[];
}

export interface TableStatus {
  table: string;
  topic?: string;
  partitions: PartitionStatus[];
  /** The rows the store holds, in all partitions. */
  rows?: number;
  /** Errors the store reports for the table itself (its ingestion status). */
  tableErrors: string[];
  /** Reads whose facts are unknown, and why. */
  unknown: Array<{ read: StatusRead; why: string }>;
  /** consuming: every partition consumes and nothing reports an error; unknown: nothing tells whether it consumes. */
  verdict: 'consuming' | 'not-consuming' | 'unknown';
}

export interface TableStatusOptions {
  /** The topic's latest offsets (the stream), or why they are unknown. */
  endOffsets?: (topic: string) => Promise<Map<number, bigint> | { unknown: string }>;
}

/** Segment states from best to worst: a partition shows its servers' worst. */
const STATE_RANK = ['CONSUMING', 'ONLINE', 'OFFLINE', 'ERROR'];
/** What one segment error line keeps of the store's message (a stack trace can be long). */
const MAX_ERROR_LENGTH = 300;

const consumingShape = z.record(
  z.string(),
  z.array(z.looseObject({ serverName: z.string().optional(), consumerState: z.string().optional(), partitionToOffsetMap: z.record(z.string(), z.union([z.string(), z.number()])).nullish() })),
);
const externalViewShape = z.looseObject({ REALTIME: z.record(z.string(), z.record(z.string(), z.string())).nullish() });
/** Pinot's broker answer to segmentRowsQuery: `{resultTable: {rows: [[segment, count], …]}, exceptions: []}`. */
export const segmentRowsShape = z.looseObject({
  resultTable: z.looseObject({ rows: z.array(z.tuple([z.string(), z.number()])) }).nullish(),
  exceptions: z.array(z.looseObject({ message: z.string().nullish() })).nullish(),
});
/** More segments than any table dpgw provisions has; the query asks for no more. */
const MAX_SEGMENTS = 100_000;

/**
 * The rows of each segment of a table, consuming ones included, asked of the store's broker:
 * Pinot 0.11's controller counts only completed segments (its /tables/{name}/metadata says 0
 * for a table still in its first consuming segments). `raw`: the table's name without its type.
 */
export function segmentRowsQuery(raw: string): { sql: string } {
  return { sql: `SELECT $segmentName, COUNT(*) FROM "${raw}" GROUP BY $segmentName LIMIT ${MAX_SEGMENTS}` };
}
const errorInfoShape = z.looseObject({ errorMessage: z.string().nullish(), stackTrace: z.string().nullish() }).nullish();
const debugShape = z.array(
  z.looseObject({
    tableName: z.string(),
    ingestionStatus: z.looseObject({ ingestionState: z.string().nullish(), errorMessage: z.string().nullish() }).nullish(),
    segmentDebugInfos: z
      .array(z.looseObject({ segmentName: z.string(), serverState: z.record(z.string(), z.looseObject({ externalView: z.string().nullish(), errorInfo: errorInfoShape, consumerInfo: z.looseObject({ consumerState: z.string().nullish() }).nullish() })).nullish() }))
      .nullish(),
  }),
);

/** The status of a table; a DpgwError TABLE_NOT_FOUND (exit 9) when the store has none of that name. */
export async function readTableStatus(client: GatewayClient, table: string, options: TableStatusOptions = {}): Promise<TableStatus> {
  const unknown: TableStatus['unknown'] = [];
  const held = await client.getTable(table);
  if (held.kind === 'not-found') {
    throw new DpgwError('TABLE_NOT_FOUND', `the analytics store has no table "${table}"`, { where: held.url, hint: 'see what the catalog has with `dpgw catalog datasets`, or create it with `dpgw table create`' });
  }
  const stream = held.kind === 'found' ? streamConfigsOf(held.body) : undefined;
  const topic = stream ? stream[`stream.${stream.streamType}.topic.name`] : undefined;

  const raw = table.replace(/_(REALTIME|OFFLINE)$/, '');
  const [consuming, externalView, segmentRows, debug] = await Promise.all([
    client.consumingSegments(table).catch(storeError),
    client.tableStatusRead('externalview', table).catch(storeError),
    client.tableStatusRead(segmentRowsQuery(raw), table).catch(storeError),
    client.tableStatusRead('debug', table).catch(storeError),
  ]);
  const offsets = await latestOffsets(held, topic, options);

  // Each read adds its facts to the partitions it names, in this order: a later read refines an earlier one's.
  const partitions = new PartitionTable(raw);
  const consumingMap = checked(consuming, consumingShape, 'consuming segments', unknown, (body) => body);
  if (consumingMap) addConsumingSegments(partitions, consumingMap);
  const view = checked(externalView, externalViewShape, 'segment states', unknown, (body) => body);
  if (view) addSegmentStates(partitions, view, consumingMap !== undefined);
  const rows = addRows(partitions, checked(segmentRows, segmentRowsShape, 'rows', unknown, (body) => body), unknown);
  const tableErrors = addSegmentErrors(partitions, checked(debug, debugShape, 'segment errors', unknown, (body) => body) ?? []);
  if ('unknown' in offsets) unknown.push({ read: 'latest offsets', why: offsets.unknown });
  else for (const [partition, latest] of offsets) partitions.of(partition).latestOffset = String(latest);

  const segmentsListed = consumingMap !== undefined || view !== undefined;
  const listed = partitions.sorted();
  for (const status of listed) completePartition(status, { segmentsListed, rowsCounted: rows !== undefined });
  // In the order a reader reads a partition: which, whether, where, how much, how far behind, why.
  const ordered = listed.map(({ partition, consuming, segment, state, rows, offset, latestOffset, lag, errors }) => ({ partition, consuming, segment, state, rows, offset, latestOffset, lag, errors }));
  const verdict = verdictOf(listed, tableErrors, segmentsListed);
  return { table, ...(topic !== undefined ? { topic } : {}), verdict, partitions: ordered, ...(rows !== undefined ? { rows } : {}), tableErrors, unknown };
}

type HeldTable = Awaited<ReturnType<GatewayClient['getTable']>>;

/** The topic's latest offsets, or why they are unknown (no topic in the table's answer, or nobody asked the stream). */
async function latestOffsets(held: HeldTable, topic: string | undefined, options: TableStatusOptions): Promise<Map<number, bigint> | { unknown: string }> {
  if (topic !== undefined) return options.endOffsets ? options.endOffsets(topic) : { unknown: 'not asked' };
  return { unknown: `the table's topic is unknown (GET ${held.url} answered ${held.kind === 'not-exposed' ? serverText(held.why) : 'no stream configs'})` };
}

/** The partitions the reads name, each made on first mention; another table's segments are none of them. */
class PartitionTable {
  private readonly partitions = new Map<number, PartitionStatus>();
  constructor(private readonly rawTable: string) {}

  of(number: number): PartitionStatus {
    let status = this.partitions.get(number);
    if (!status) this.partitions.set(number, (status = { partition: number, consuming: null, errors: [] }));
    return status;
  }

  nameOf(segment: string): { partition: number; sequence: number } | undefined {
    return segmentName(segment, this.rawTable);
  }

  sorted(): PartitionStatus[] {
    return [...this.partitions.values()].sort((a, b) => a.partition - b.partition);
  }
}

/** Whether a server consumes each partition, and the offset it has reached; a segment nobody consumes says its servers' states. */
function addConsumingSegments(partitions: PartitionTable, consumingMap: z.infer<typeof consumingShape>): void {
  for (const [segment, servers] of Object.entries(consumingMap)) {
    const name = partitions.nameOf(segment);
    if (!name) continue;
    const status = partitions.of(name.partition);
    const consumer = servers.find((s) => s.consumerState === CONSUMING_STATE);
    const reached = (consumer ?? servers[0])?.partitionToOffsetMap?.[String(name.partition)];
    if (consumer) status.consuming = true;
    else if (status.consuming !== true) {
      status.consuming = false;
      for (const server of servers) if (server.consumerState) status.errors.push(serverText(`${segment} on ${server.serverName ?? 'a server'}: ${server.consumerState}`));
    }
    if (reached !== undefined && (consumer || status.offset === undefined)) status.offset = String(reached);
  }
}

/** Each partition's newest segment and its servers' worst state in the external view. */
function addSegmentStates(partitions: PartitionTable, view: z.infer<typeof externalViewShape>, consumingKnown: boolean): void {
  const newest = new Map<number, { sequence: number; segment: string; servers: Record<string, string> }>();
  for (const [segment, servers] of Object.entries(view.REALTIME ?? {})) {
    const name = partitions.nameOf(segment);
    if (!name) continue;
    const before = newest.get(name.partition);
    if (!before || name.sequence > before.sequence) newest.set(name.partition, { sequence: name.sequence, segment, servers });
  }
  for (const [partition, { segment, servers }] of newest) {
    const status = partitions.of(partition);
    status.segment = segment;
    const states = Object.values(servers);
    status.state = states.reduce((worst, state) => (STATE_RANK.indexOf(state) > STATE_RANK.indexOf(worst) ? state : worst), states[0] ?? 'NONE');
    // Without the consuming segments, a segment the external view shows CONSUMING is what tells.
    if (!consumingKnown) status.consuming = states.includes(CONSUMING_STATE) && status.state !== 'ERROR';
    if (status.state === 'ERROR' && consumingKnown) status.consuming = false;
  }
}

/** The rows of each partition and of the table, from the broker's count per segment; undefined when unknown. */
function addRows(partitions: PartitionTable, counted: z.infer<typeof segmentRowsShape> | undefined, unknown: TableStatus['unknown']): number | undefined {
  if (counted?.exceptions?.length) {
    unknown.push({ read: 'rows', why: `the store's broker answered: ${clip(counted.exceptions[0]!.message ?? 'an exception')}` });
    return undefined;
  }
  if (!counted) return undefined;
  let rows = 0;
  for (const [segment, count] of counted.resultTable?.rows ?? []) {
    const name = partitions.nameOf(segment);
    if (!name) continue;
    const status = partitions.of(name.partition);
    status.rows = (status.rows ?? 0) + count;
    rows += count;
  }
  return rows;
}

/** The store's reasons, on the partition of their segment; the table's own (and a segment of no partition's) are returned. */
function addSegmentErrors(partitions: PartitionTable, debugInfos: z.infer<typeof debugShape>): string[] {
  const tableErrors: string[] = [];
  for (const info of debugInfos) {
    if (info.ingestionStatus?.ingestionState === 'UNHEALTHY') tableErrors.push(clip(info.ingestionStatus.errorMessage ?? 'ingestion UNHEALTHY (the store gives no reason)'));
    for (const segment of info.segmentDebugInfos ?? []) {
      const name = partitions.nameOf(segment.segmentName);
      for (const [server, state] of Object.entries(segment.serverState ?? {})) {
        const message = withCause(state.errorInfo?.errorMessage, state.errorInfo?.stackTrace) ?? (state.externalView === 'ERROR' ? 'ERROR (the store gives no reason)' : undefined);
        if (message === undefined) continue;
        const line = serverText(`${segment.segmentName} on ${server}: ${clip(message)}`);
        if (name) {
          const status = partitions.of(name.partition);
          // The reason replaces the bare state the consuming segments gave.
          status.errors = [...status.errors.filter((e) => !e.startsWith(`${segment.segmentName} on ${server}: `)), line];
        } else tableErrors.push(line);
      }
    }
  }
  return tableErrors;
}

/** What the reads together tell of a partition that no one read tells alone. */
function completePartition(status: PartitionStatus, known: { segmentsListed: boolean; rowsCounted: boolean }): void {
  // A partition of the topic the store has no segment for does not consume.
  if (status.consuming === null && known.segmentsListed) status.consuming = false;
  // A partition whose segments hold no row yet has no group in the count.
  if (known.rowsCounted && status.rows === undefined) status.rows = 0;
  if (status.state === 'ERROR' && status.errors.length === 0) status.errors.push(`${serverText(status.segment ?? '?')} is in ERROR (the store gives no reason)`);
  if (status.offset !== undefined && status.latestOffset !== undefined && /^\d+$/.test(status.offset)) {
    const lag = BigInt(status.latestOffset) - BigInt(status.offset);
    status.lag = String(lag > 0n ? lag : 0n);
  }
}

function verdictOf(listed: PartitionStatus[], tableErrors: string[], segmentsListed: boolean): TableStatus['verdict'] {
  // A table the store lists no segment of consumes nothing, whatever else it says.
  const troubled = listed.some((p) => p.consuming === false || p.errors.length > 0) || tableErrors.length > 0 || (listed.length === 0 && segmentsListed);
  if (troubled) return 'not-consuming';
  return segmentsListed ? 'consuming' : 'unknown';
}

/**
 * A refusal or a store's failure (a 403, a 5xx with the store's words) makes that read's facts
 * unknown, not the whole status; a 401 and an unreachable gateway end the command as anywhere.
 */
function storeError(error: unknown): StoreRead<unknown> {
  if (error instanceof GatewayError && error.status !== 401) return { kind: 'not-exposed', url: error.url, why: `${error.status}${error.bodyMessage ? `: ${error.bodyMessage}` : ''}` };
  throw error;
}

/** The read's body, checked against its shape; else its facts are unknown, with why. */
function checked<S extends z.ZodType>(read: StoreRead<unknown>, shape: S, what: StatusRead, unknown: TableStatus['unknown'], pick: (body: unknown) => unknown): z.infer<S> | undefined {
  // The rows are a query of the broker, the only read sent as a POST.
  const method = what === 'rows' ? 'POST' : 'GET';
  if (read.kind !== 'found') {
    unknown.push({ read: what, why: read.kind === 'not-exposed' ? `${method} ${read.url} answered ${serverText(read.why)}` : `${method} ${read.url}: ${serverText(read.message)}` });
    return undefined;
  }
  const parsed = shape.safeParse(pick(read.body));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldOf(issue.path.filter((part): part is string | number => typeof part !== 'symbol'));
    unknown.push({ read: what, why: `${method} ${read.url} answered what dpgw cannot use: ${field || '(the answer)'}: ${serverText(issue.message)}` });
    return undefined;
  }
  return parsed.data;
}

/** `{table}__{partition}__{sequence}__{time}` (Pinot's low-level consumer names); another table's segment is none of this one's. */
function segmentName(segment: string, rawTable: string): { partition: number; sequence: number } | undefined {
  if (!segment.startsWith(`${rawTable}__`)) return undefined;
  const parts = segment.slice(rawTable.length + 2).split('__');
  if (parts.length !== 3 || !/^\d+$/.test(parts[0]!) || !/^\d+$/.test(parts[1]!)) return undefined;
  return { partition: Number(parts[0]), sequence: Number(parts[1]) };
}

/** The table's stream configs, from the store's answer (`{"REALTIME": {…}}`), as strings. */
function streamConfigsOf(body: Record<string, unknown>): Record<string, string> | undefined {
  // Wherever the table holds them: tableIndexConfig.streamConfigs or the one map of streamConfigMaps.
  const place = streamConfigPlace(body.REALTIME ?? body);
  if (place.kind !== 'found') return undefined;
  const configs = place.map;
  const strings = Object.entries(configs).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return Object.fromEntries(strings);
}

/**
 * A server's segment error with its cause: Pinot 0.11 records a consumer that stopped as
 * "Exception while in work" and puts the exception itself only in the stack trace
 * (LLRealtimeSegmentDataManager.PartitionConsumer#run → SegmentErrorInfo); its first line
 * (`org.apache.kafka…TimeoutException: …`) is what says why.
 */
function withCause(message: string | null | undefined, stackTrace: string | null | undefined): string | undefined {
  const cause = stackTrace?.split('\n')[0]?.trim();
  if (message == null) return cause || undefined;
  return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
}

function clip(message: string): string {
  const line = serverText(message.split('\n')[0]!);
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH)}…` : line;
}
