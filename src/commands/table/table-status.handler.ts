/** `dpgw table status <name>`: per partition, whether the store consumes the table's topic and how far behind it is, and why a table holds no rows; exit 6 when not. */
import type { ChalkInstance } from 'chalk';
import type { ContextOf, HandlerOf } from '../../command-kit/command-definition.js';
import type { TableStatusCommand } from './table.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { requireName } from '../../names/platform-names.js';
import { tableNameArgument } from '../shared/store-questions.js';
import { readTableStatus, type TableStatus } from '../../olap/table-status.js';
import { diagnoseNoRows, findingLine, type Finding, type PauseState } from '../../olap/no-rows-diagnosis.js';
import { readPauseState } from '../../olap/pause-state.js';
import { sampleForDiagnosis } from '../../olap/no-rows-sample.js';
import { textTable } from '../../output/text-table.js';
import { DEFAULT_TOPIC_SAMPLE } from '../../schema-inference/sample-size.js';
import { brokerAddresses, streamCheckModeOf, streamPasswordOf, streamUserOf } from '../../settings/core-options.js';
import { timeoutMs } from '../../settings/setting-values.js';
import { unreachableBrokers } from '../../stream/broker-reachability.js';
import { streamConnection, type StreamConnection } from '../../stream/stream-connection.js';
import { topicOffsetRange } from '../../stream/topic-end-offsets.js';
import { plural } from '../../text/plural.js';
import { serverText } from '../../text/terminal-text.js';
import { watchUntilStopped } from '../shared/watch.js';
import { terminalWidth } from '../../output/terminal-width.js';

/** How long `auto` waits for a broker's TCP connection before it leaves the latest offsets unknown. */
const PROBE_TIMEOUT_MS = 5_000;

/** A table's status and why it holds no rows (empty: nothing found). */
type Diagnosed = TableStatus & { pause: PauseState; diagnosis: Finding[] };

export const status: HandlerOf<TableStatusCommand> = async (context) => {
  const table = requireName('table', await tableNameArgument(context), '<name>');
  const gateway = await context.gateway();
  const stream = await streamReader(context);
  const read = () => readAndDiagnose(gateway, table, stream);
  const { watch } = context.options;

  let found = await read();
  if (watch !== undefined && !context.reporter.options.json) {
    await watchUntilStopped(context, { seconds: watch, done: 'read', show: () => render(found, context.reporter.out, terminalWidth(context.io.stdout)), refresh: async () => void (found = await read()) });
    return { data: found, printed: true, exitCode: ExitCode.Interrupted };
  }
  // A diagnosis is exit 6 too: a table that consumes every partition may still lose its rows (the decoder, retention).
  const unhealthy = found.verdict === 'not-consuming' || found.diagnosis.length > 0;
  const exitCode = unhealthy ? ExitCode.Unhealthy : found.verdict === 'consuming' ? ExitCode.Ok : ExitCode.Rejected;
  const code = found.verdict === 'not-consuming' ? 'TABLE_NOT_CONSUMING' : unhealthy ? 'TABLE_ROWS_LOST' : found.verdict === 'unknown' ? 'STORE_READS_NOT_EXPOSED' : undefined;
  return { data: { ...found, ...(code ? { code } : {}) }, exitCode, human: (style) => render(found, style, terminalWidth(context.io.stdout)) };
};

/** The status, the store's pause flag beside it, and the diagnosis of the two with the topic's offsets (and, where a rule needs it, a sample). */
async function readAndDiagnose(gateway: GatewayClient, table: string, stream: StreamReader): Promise<Diagnosed> {
  // The offsets read for the status's LATEST column: their earliest half is the diagnosis's.
  const read: { range?: OffsetRange } = {};
  const [found, pause] = await Promise.all([
    readTableStatus(gateway, table, {
      endOffsets: async (topic) => {
        const range = await stream.offsets(topic);
        read.range = range;
        return 'unknown' in range ? range : range.latest;
      },
    }),
    readPauseState(gateway, table),
  ]);
  const range: OffsetRange = read.range ?? { unknown: 'not asked' };
  const { topic } = found;
  const connection = stream.connection;
  const diagnosis = await diagnoseNoRows({
    status: found,
    pause,
    ...('unknown' in range ? {} : { earliest: range.earliest }),
    streamFromHere: 'unknown' in range ? { read: false, why: range.unknown } : { read: true },
    sample:
      !('unknown' in range) && connection && topic !== undefined
        ? () => sampleForDiagnosis(gateway, { stream: connection, table, topic, limit: DEFAULT_TOPIC_SAMPLE, timeoutMs: stream.timeoutMs })
        : undefined,
  });
  return { ...found, pause, diagnosis };
}

/** A topic's earliest and latest offsets per partition, or why they are unknown. */
type OffsetRange = { earliest: Map<number, bigint>; latest: Map<number, bigint> } | { unknown: string };

interface StreamReader {
  /** The connection the offsets were read with; undefined when they are not read. */
  connection: StreamConnection | undefined;
  timeoutMs: number;
  offsets(topic: string): Promise<OffsetRange>;
}

/**
 * The topic's earliest and latest offsets, from the brokers of the run (--broker-list) as its stream user
 * with its stream password — never brokers or a user a server's answer names, nor the password
 * the store's answer carries (docs/trust-boundary.md: a server does not decide where dpgw
 * connects, or as whom). Unknown, with why, without a broker list or a stream password, with
 * --stream-check off, or (auto) when the brokers cannot be reached from here.
 */
async function streamReader(context: ContextOf<TableStatusCommand>): Promise<StreamReader> {
  const settings = await context.settings();
  const mode = streamCheckModeOf(settings);
  const username = streamUserOf(settings);
  const password = settings.values.streamPassword.value === undefined ? undefined : await streamPasswordOf(settings, context.io.env);
  const brokers = settings.values.brokerList.value === undefined ? [] : brokerAddresses(settings);
  const timeout = timeoutMs(settings);
  const connection = mode === 'off' || brokers.length === 0 || (username !== undefined && password === undefined) ? undefined : streamConnection(brokers, username, password);
  const offsets = async (topic: string): Promise<OffsetRange> => {
    if (mode === 'off') return { unknown: 'not asked (--stream-check off)' };
    if (brokers.length === 0) return { unknown: 'no broker list: set --broker-list (dpgw asks only the brokers the run names, not those of the table the store holds)' };
    if (username !== undefined && password === undefined) return { unknown: `no stream password for stream user ${username}: set DPGW_STREAM_PASSWORD or --stream-password` };
    if (mode === 'auto') {
      const why = await unreachableBrokers(brokers, Math.min(timeout, PROBE_TIMEOUT_MS));
      if (why !== undefined) return { unknown: why };
    }
    try {
      return await topicOffsetRange(connection!, topic, timeout);
    } catch (error) {
      if (mode === 'require' || !(error instanceof DpgwError)) throw error;
      return { unknown: serverText(error.toLine()) };
    }
  };
  return { connection, timeoutMs: timeout, offsets };
}

function render(found: Diagnosed, style: ChalkInstance, width: number | undefined): string[] {
  const known = found.partitions.filter((p) => p.consuming !== null);
  const consuming = known.filter((p) => p.consuming).length;
  const verdict =
    found.partitions.length === 0 && found.verdict === 'not-consuming'
      ? style.red.bold('not consuming: the store lists no segment of the table')
      : found.verdict === 'unknown'
      ? style.yellow('consumption unknown')
      : found.verdict === 'consuming'
        ? style.green(`consuming ${consuming} of ${plural(found.partitions.length, 'partition')}`)
        : style.red.bold(`consuming ${consuming} of ${plural(found.partitions.length, 'partition')}${found.tableErrors.length + found.partitions.reduce((n, p) => n + p.errors.length, 0) > 0 ? ', the store reports errors' : ''}`);
  const rows = found.rows === undefined ? 'rows unknown' : `${plural(found.rows, 'row')} stored`;
  const lines = [`table ${found.table}${found.topic ? `, topic ${serverText(found.topic)}` : ''}: ${verdict}; ${rows}`];
  if (found.partitions.length > 0) {
    const dash = '-';
    const cells = found.partitions.map((p) => [String(p.partition), p.consuming === null ? '?' : p.consuming ? 'yes' : 'no', p.state ?? dash, p.rows === undefined ? dash : String(p.rows), p.offset ?? dash, p.latestOffset ?? dash, p.lag ?? dash]);
    lines.push(...textTable(['PARTITION', 'CONSUMING', 'STATE', 'ROWS', 'OFFSET', 'LATEST', 'LAG'], cells, { width, style }));
  }
  for (const error of found.tableErrors) lines.push(style.red(`error: table: ${error}`));
  for (const p of found.partitions) for (const error of p.errors) lines.push(style.red(`error: partition ${p.partition}: ${error}`));
  for (const { read, why } of found.unknown) lines.push(style.dim(`unknown: ${read}: ${why}`));
  if ('unknown' in found.pause) lines.push(style.dim(`unknown: pause flag: ${found.pause.unknown}`));
  // Last, as the answer to "why no rows": one line each, its numbers and the next step.
  for (const finding of found.diagnosis) lines.push(style.yellow(`diagnosis: ${findingLine(finding)}`));
  return lines;
}

