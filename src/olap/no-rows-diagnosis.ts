/**
 * Why a real-time table holds no rows (issue #47 §4): the rules `dpgw table status` (and a
 * failed consumption check) end with, as data — each finding says what is wrong, the numbers
 * or the store's words that show it, and the next step — rendered at the edge (terminal or
 * --json). The rules read the status the store gave (table-status.ts), its pause flag, the
 * topic's earliest offsets as dpgw's own stream reader found them, and, only when offsets have
 * moved past the rows, a sample of the topic's messages (no-rows-sample.ts). The store's
 * behaviour each rule relies on is cited beside it (Pinot 0.11.0, apache/pinot).
 */
import type { TableStatus } from './table-status.js';
import { plural } from '../text/plural.js';
import { serverText } from '../text/terminal-text.js';

export type FindingKind = 'paused' | 'brokers-unreachable-from-store' | 'none-consuming' | 'lost-to-retention' | 'decoder-drops';

export interface Finding {
  finding: FindingKind;
  /** What is wrong, in a few words. */
  what: string;
  /** The numbers, or the store's own words, that show it. */
  evidence: string;
  /** What to do next: a command where there is one. */
  next: string;
  /** The partitions it concerns, where it concerns some and not the table. */
  partitions?: number[];
}

/** The store's pause flag (its GET /tables/{t}/pauseStatus), or why it is unknown. */
export type PauseState = { paused: boolean; consumingSegments: number; reasonCode?: string; comment?: string } | { unknown: string };

/** Whether dpgw read the topic's offsets from here (--broker-list), or why not: said beside the store's view, never instead of it. */
export type StreamFromHere = { read: true } | { read: false; why: string };

/** What a sample of the topic's latest messages says, held against the table's schema; or why it was not read. */
export type TopicSample =
  | {
      read: number;
      /** Messages the JSON decoder cannot read, each with where and why (observeTopic's reasons). */
      unreadable: Array<{ where: string; reason: string }>;
      /** Columns of the schema no sampled message carries. */
      missing: string[];
      /** Fields the messages carry that the schema lacks. */
      extra: string[];
    }
  | { unknown: string };

export interface NoRowsEvidence {
  status: TableStatus;
  pause: PauseState;
  /** Each partition's earliest offset on the topic, when dpgw read it. */
  earliest?: ReadonlyMap<number, bigint>;
  streamFromHere: StreamFromHere;
  /** Read only when a rule needs it: offsets that moved past the rows stored. */
  sample?: () => Promise<TopicSample>;
}

/**
 * The store's words for a broker it cannot reach. Pinot 0.11's server records a consumer
 * that failed more than MAX_CONSECUTIVE_ERROR_COUNT fetches in a row as the segment error
 * "Exception while in work" with the exception's stack trace
 * (LLRealtimeSegmentDataManager.PartitionConsumer#run, #handleTransientStreamErrors); its
 * controller and servers ask the brokers for a topic's partitions with Kafka's client
 * (KafkaStreamMetadataProvider#fetchPartitionCount), whose exceptions these are:
 * org.apache.kafka.common.errors.TimeoutException, and ClientUtils' "No resolvable bootstrap
 * urls" for a broker name the store's network does not resolve.
 */
const UNREACHABLE_BROKERS = [
  /TimeoutException: Timeout expired while fetching topic metadata/i,
  /TimeoutException: Timeout of \d+ms expired before/i,
  /Timeout expired while fetching topic metadata/i,
  /No resolvable bootstrap urls/i,
  /UnknownHostException/,
  /ConnectException: Connection refused/i,
  /NetworkException|DisconnectException/,
];

/** How many of the store's messages, or partitions, a line names before "and N more". */
const SHOWN = 3;

export async function diagnoseNoRows(evidence: NoRowsEvidence): Promise<Finding[]> {
  const { status } = evidence;
  const findings: Finding[] = [];
  const paused = pausedFinding(status.table, evidence.pause);
  if (paused) findings.push(paused);
  // A paused table consumes nothing by design: the other consumption rules would only repeat it.
  if (!paused) {
    const unreachable = unreachableFinding(status, evidence.streamFromHere);
    if (unreachable) findings.push(unreachable);
    else {
      const none = noneConsumingFinding(status);
      if (none) findings.push(none);
    }
  }
  const lost = retentionFinding(status, evidence.earliest);
  if (lost) findings.push(lost);
  const dropped = await decoderFinding(status, evidence);
  if (dropped) findings.push(dropped);
  return findings;
}

/** One line a finding is shown as: what, its evidence, the next step. */
export function findingLine(finding: Finding): string {
  return `${finding.what} (${finding.evidence}); next: ${finding.next}`;
}

/**
 * Paused: the controller's pause flag (PinotLLCRealtimeSegmentManager#pauseConsumption sets
 * the ideal state's isTablePaused and commits the consuming segments; no new ones are made
 * until #resumeConsumption). Only /pauseStatus tells it: consumingSegmentsInfo has no such
 * field, in any version.
 */
function pausedFinding(table: string, pause: PauseState): Finding | undefined {
  if ('unknown' in pause || !pause.paused) return undefined;
  const committing = pause.consumingSegments > 0 ? `, ${plural(pause.consumingSegments, 'consuming segment')} still committing` : ', no segment consuming';
  const why = [pause.reasonCode && `reason ${serverText(pause.reasonCode)}`, pause.comment && `"${serverText(pause.comment)}"`].filter(Boolean).join(', ');
  return { finding: 'paused', what: `consumption of table ${table} is paused`, evidence: `the store's pauseStatus: pauseFlag true${committing}${why ? `, ${why}` : ''}`, next: `dpgw table resume ${table}` };
}

/** The store's own messages: the table's, then each partition's. */
function storeMessages(status: TableStatus): string[] {
  return [...status.tableErrors, ...status.partitions.flatMap((p) => p.errors)];
}

function someOf(items: string[]): string {
  return items.length > SHOWN ? `${items.slice(0, SHOWN).join('; ')}; and ${items.length - SHOWN} more` : items.join('; ');
}

/**
 * The brokers unreachable from the store: its own words say so (UNREACHABLE_BROKERS). Where
 * dpgw reached them from here is said beside it — the store's network is not dpgw's.
 */
function unreachableFinding(status: TableStatus, fromHere: StreamFromHere): Finding | undefined {
  const said = storeMessages(status).filter((message) => UNREACHABLE_BROKERS.some((pattern) => pattern.test(message)));
  if (said.length === 0) return undefined;
  // From here is another network: dpgw reading the topic (--broker-list) does not say the store can, nor the other way round.
  const here = fromHere.read ? "from here dpgw read the topic's offsets (--broker-list): the way from the store to the brokers is what fails" : `dpgw did not read the topic from here either (${fromHere.why})`;
  const alike = said.length > 1 ? ` (and ${said.length - 1} more like it)` : '';
  return {
    finding: 'brokers-unreachable-from-store',
    what: `the store cannot reach the brokers of table ${status.table}`,
    evidence: `the store says: ${said[0]}${alike}; ${here}`,
    next: `check the broker list the table carries (dpgw table get ${status.table}: the broker.list key of its streamConfigs, stream.<streamType>.broker.list) is the one the store's servers reach; if it is, ask the platform team to open the way from the store to the brokers`,
  };
}

/** No partition consuming: what the store says of it (its debug view's errors and ingestion status), or that it says nothing. */
function noneConsumingFinding(status: TableStatus): Finding | undefined {
  const { partitions } = status;
  const none = partitions.length === 0 ? status.verdict === 'not-consuming' : partitions.every((p) => p.consuming === false);
  if (!none) return undefined;
  const said = storeMessages(status);
  const count = partitions.length === 0 ? 'the store lists no segment of the table' : `0 of ${plural(partitions.length, 'partition')} consume`;
  return {
    finding: 'none-consuming',
    what: `no partition of table ${status.table} is consumed`,
    evidence: `${count}; ${said.length ? `the store says: ${someOf(said)}` : 'the store gives no reason (its debug view lists no error)'}`,
    next: `check the stream settings the table carries (dpgw table get ${status.table}), then the store's server log for the segments named`,
  };
}

/**
 * Lost to retention: the topic's earliest offset is past the offset the store consumes next.
 * Pinot 0.11's server seeks to its stored offset without auto.offset.reset
 * (KafkaPartitionLevelConnectionHandler), so it reports no error; its controller, when it makes
 * a consuming segment, starts from the earliest offset and logs the loss
 * (PinotLLCRealtimeSegmentManager#selectStartOffset, "Data lost from offset").
 */
function retentionFinding(status: TableStatus, earliest: ReadonlyMap<number, bigint> | undefined): Finding | undefined {
  if (!earliest) return undefined;
  const lost: Array<{ partition: number; next: bigint; earliest: bigint }> = [];
  for (const p of status.partitions) {
    const first = earliest.get(p.partition);
    if (first === undefined || p.offset === undefined || !/^\d+$/.test(p.offset)) continue;
    const next = BigInt(p.offset);
    if (first > next) lost.push({ partition: p.partition, next, earliest: first });
  }
  if (lost.length === 0) return undefined;
  const lines = lost.map((l) => `partition ${l.partition}: the store's next offset ${l.next}, the topic's earliest ${l.earliest}, ${plural(l.earliest - l.next, 'message')} gone`);
  return {
    finding: 'lost-to-retention',
    what: `rows of table ${status.table} lost to the topic's retention`,
    evidence: someOf(lines),
    next: `dpgw table pause ${status.table}, then dpgw table resume ${status.table} --consume-from smallest (the store starts again at the earliest offset the topic holds; the messages before it are gone), and keep the topic's retention longer than a partition may stall`,
    partitions: lost.map((l) => l.partition),
  };
}

/**
 * The decoder drops messages: the offset a partition reached moved past the rows it stored.
 * Pinot 0.11 counts a message its decoder cannot read (decode returns null) in the server's
 * meter invalidRealtimeRowsDropped only, records no segment error and moves the offset on
 * (LLRealtimeSegmentDataManager#processStreamEvents): only the offsets and the rows show it
 * over REST, and a sample of the topic says why. The table's offset reset is `smallest`
 * (templates/realtime-table.yaml), so a partition's rows start at the topic's earliest offset.
 */
async function decoderFinding(status: TableStatus, evidence: NoRowsEvidence): Promise<Finding | undefined> {
  const behind: Array<{ partition: number; passed: bigint; rows: number }> = [];
  for (const p of status.partitions) {
    if (p.rows === undefined || p.offset === undefined || !/^\d+$/.test(p.offset)) continue;
    const passed = BigInt(p.offset) - (evidence.earliest?.get(p.partition) ?? 0n);
    if (passed > BigInt(p.rows)) behind.push({ partition: p.partition, passed, rows: p.rows });
  }
  if (behind.length === 0) return undefined;
  const numbers = someOf(behind.map((b) => `partition ${b.partition}: ${plural(b.passed, 'message')} passed, ${plural(b.rows, 'row')} stored`));
  const noRowsAtAll = behind.every((b) => b.rows === 0);
  const sample = evidence.sample ? await evidence.sample() : { unknown: 'not read' };
  const base = { finding: 'decoder-drops' as const, what: `the store's decoder drops messages of table ${status.table}`, partitions: behind.map((b) => b.partition) };
  if ('unknown' in sample) {
    // Without a sample, a few messages between two reads are no evidence; no row at all is.
    if (!noRowsAtAll) return undefined;
    return { ...base, evidence: `${numbers}; the topic's messages not sampled: ${sample.unknown}`, next: `read them: dpgw schema infer --dataset <data set> --broker-list <brokers> shows what the topic holds` };
  }
  const why = sampleReason(sample);
  if (why === undefined) {
    // The sample fits: a few rows short is two reads apart, no row at all is the store's server log's to say.
    if (!noRowsAtAll) return undefined;
    return { ...base, evidence: `${numbers}; a sample of ${plural(sample.read, 'latest message')} fits the schema`, next: `the store's server log says why (its meter invalidRealtimeRowsDropped counts the messages dropped)` };
  }
  return { ...base, evidence: `${numbers}; ${why.text}`, next: why.next(status.table) };
}

/** Why the sampled messages do not make rows, and what to do; undefined when they fit. */
function sampleReason(sample: Exclude<TopicSample, { unknown: string }>): { text: string; next: (table: string) => string } | undefined {
  const framed = sample.unreadable.filter((u) => u.reason.startsWith('schema-registry framing'));
  const notJson = sample.unreadable.filter((u) => !u.reason.startsWith('schema-registry framing'));
  const of = `of ${plural(sample.read, 'sampled message')}`;
  if (framed.length > 0) {
    const first = framed[0]!;
    return {
      text: `${framed.length} ${of} begin with the magic byte 0 of a schema registry's encoding (${serverText(first.where)}: ${serverText(first.reason)})`,
      next: (table) => `the table's JSON decoder cannot read them: give table ${table} the decoder of that encoding (the decoder.class.name key of its streamConfigs, and its schema registry), or have the producers send plain JSON`,
    };
  }
  if (notJson.length > 0) {
    const first = notJson[0]!;
    return {
      text: `${notJson.length} ${of} are not JSON objects (${serverText(first.where)}: ${serverText(first.reason)})`,
      next: (table) => `have the producers send one JSON object a message, or give table ${table} the decoder of their format (the decoder.class.name key of its streamConfigs)`,
    };
  }
  if (sample.missing.length > 0) {
    const extra = sample.extra.length ? `; they carry ${sample.extra.slice(0, SHOWN).map(serverText).join(', ')}${sample.extra.length > SHOWN ? ` and ${sample.extra.length - SHOWN} more` : ''}, which the schema lacks` : '';
    return {
      text: `the ${plural(sample.read, 'sampled message')} carry no ${sample.missing.slice(0, SHOWN).map(serverText).join(', ')}${sample.missing.length > SHOWN ? ` (and ${sample.missing.length - SHOWN} more columns)` : ''} of the schema${extra}`,
      next: () => 'fix the schema to the messages: dpgw schema infer --check <schema file> --dataset <data set> lists every difference',
    };
  }
  return undefined;
}
