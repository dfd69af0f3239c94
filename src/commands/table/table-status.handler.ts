/** `dpgw table status <name>`: per partition, whether the store consumes the table's topic and how far behind it is; exit 6 when not. */
import type { ChalkInstance } from 'chalk';
import type { ContextOf, HandlerOf } from '../../command-kit/command-definition.js';
import type { TableStatusCommand } from './table.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import { requireName } from '../../names/platform-names.js';
import { tableNameArgument } from '../shared/store-questions.js';
import { readTableStatus, type TableStatus } from '../../olap/table-status.js';
import { textTable } from '../../output/text-table.js';
import { brokerAddresses, streamCheckModeOf, streamPasswordOf, streamUserOf } from '../../settings/core-options.js';
import { timeoutMs } from '../../settings/setting-values.js';
import { unreachableBrokers } from '../../stream/broker-reachability.js';
import { streamConnection } from '../../stream/stream-connection.js';
import { topicEndOffsets } from '../../stream/topic-end-offsets.js';
import { plural } from '../../text/plural.js';
import { serverText } from '../../text/terminal-text.js';
import { watchUntilStopped } from '../shared/watch.js';

/** How long `auto` waits for a broker's TCP connection before it leaves the latest offsets unknown. */
const PROBE_TIMEOUT_MS = 5_000;

export const status: HandlerOf<TableStatusCommand> = async (context) => {
  const table = requireName('table', await tableNameArgument(context), '<name>');
  const gateway = await context.gateway();
  const endOffsets = await endOffsetsReader(context);
  const read = () => readTableStatus(gateway, table, { endOffsets });
  const { watch } = context.options;

  let found = await read();
  if (watch !== undefined && !context.reporter.options.json) {
    await watchUntilStopped(context, { seconds: watch, done: 'read', show: () => render(found, context.reporter.out, widthOf(context)), refresh: async () => void (found = await read()) });
    return { data: found, printed: true, exitCode: ExitCode.Interrupted };
  }
  const exitCode = found.verdict === 'consuming' ? ExitCode.Ok : found.verdict === 'not-consuming' ? ExitCode.Unhealthy : ExitCode.Rejected;
  const code = found.verdict === 'not-consuming' ? 'TABLE_NOT_CONSUMING' : found.verdict === 'unknown' ? 'STORE_READS_NOT_EXPOSED' : undefined;
  return { data: { ...found, ...(code ? { code } : {}) }, exitCode, human: (style) => render(found, style, widthOf(context)) };
};

/**
 * The topic's latest offsets, from the brokers of the run (--broker-list) as its stream user
 * with its stream password — never brokers or a user a server's answer names, nor the password
 * the store's answer carries (docs/trust-boundary.md: a server does not decide where dpgw
 * connects, or as whom). Unknown, with why, without a broker list or a stream password, with
 * --stream-check off, or (auto) when the brokers cannot be reached from here.
 */
async function endOffsetsReader(context: ContextOf<TableStatusCommand>) {
  const settings = await context.settings();
  const mode = streamCheckModeOf(settings);
  const username = streamUserOf(settings);
  const password = settings.values.streamPassword.value === undefined ? undefined : await streamPasswordOf(settings, context.io.env);
  const brokers = settings.values.brokerList.value === undefined ? [] : brokerAddresses(settings);
  const timeout = timeoutMs(settings);
  return async (topic: string): Promise<Map<number, bigint> | { unknown: string }> => {
    if (mode === 'off') return { unknown: 'not asked (--stream-check off)' };
    if (brokers.length === 0) return { unknown: 'no broker list: set --broker-list (dpgw asks only the brokers the run names, not those of the table the store holds)' };
    if (username !== undefined && password === undefined) return { unknown: `no stream password for stream user ${username}: set DPGW_STREAM_PASSWORD or --stream-password` };
    if (mode === 'auto') {
      const why = await unreachableBrokers(brokers, Math.min(timeout, PROBE_TIMEOUT_MS));
      if (why !== undefined) return { unknown: why };
    }
    try {
      return await topicEndOffsets(streamConnection(brokers, username, password), topic, timeout);
    } catch (error) {
      if (mode === 'require' || !(error instanceof DpgwError)) throw error;
      return { unknown: serverText(error.toLine()) };
    }
  };
}

function render(found: TableStatus, style: ChalkInstance, width: number | undefined): string[] {
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
  return lines;
}

function widthOf(context: ContextOf<TableStatusCommand>): number | undefined {
  const { stdout } = context.io;
  return stdout.isTTY === true && (stdout.columns ?? 0) > 0 ? stdout.columns : undefined;
}
