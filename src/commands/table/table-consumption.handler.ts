/**
 * `dpgw table pause <name>` and `dpgw table resume <name>`: the store controller's
 * pauseConsumption / resumeConsumption through the gateway (docs/tables.md, "pause and
 * resume"). As `table delete` asks: at a terminal a question first, without one --yes (exit 2,
 * nothing sent), --dry-run prints the request and sends nothing.
 *
 * Any table the store holds, not only one a manifest marked as dpgw's: a pause loses nothing
 * (the messages stay on the topic, and a resume goes on from the offsets the store holds), and
 * "why no rows" is asked of any table `table status` reads. Delete's ownership rule guards what
 * cannot be undone; this can be, with one command, and the gateway decides who may send it.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { TablePauseCommand, TableResumeCommand } from './table.flags.js';
import { paths } from '../../contract/paths.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { requireName } from '../../names/platform-names.js';
import type { CommandOutput } from '../../output/reporter.js';
import { requireWord } from '../../settings/setting-values.js';
import { serverText } from '../../text/terminal-text.js';
import { renderDryRun } from '../shared/dry-run.js';
import { confirmPrompt } from '../shared/prompts.js';
import { tableNameArgument } from '../shared/store-questions.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where to find a table's name after a name the store does not hold (the command and its --dry-run alike). */
const UNKNOWN_TABLE_HINT = "`dpgw table list` lists the store's tables";

/** How long a resume waits for a pause's consuming segments to commit first. */
const PAUSE_COMMIT_WAIT_MS = 60_000;

/**
 * A pause commits the consuming segments before the store stops (its pauseStatus lists those
 * still committing). Pinot 0.11 resumed in that window made consuming segments for some
 * partitions only, and the others stayed without one until its hourly repair (seen on the
 * end-to-end tier): so a resume waits, bounded, until the pause has committed them all, and
 * then resumes; past the bound it resumes all the same, and says so. A store without the
 * pause status is not waited for.
 */
async function untilPauseCommitted(gateway: GatewayClient, table: string, context: CommandContext): Promise<void> {
  const deadline = Date.now() + PAUSE_COMMIT_WAIT_MS;
  for (;;) {
    const read = await gateway.pauseStatus(table);
    if (read.kind !== 'found' || read.body.pauseFlag !== true) return;
    const committing = Array.isArray(read.body.consumingSegments) ? read.body.consumingSegments.length : 0;
    if (committing === 0) return;
    if (Date.now() >= deadline) {
      context.reporter.warn(`table ${table}: ${committing} consuming segments of the pause were still committing after ${PAUSE_COMMIT_WAIT_MS / 1000} s; resuming all the same (dpgw table status ${table} says whether every partition consumes)`);
      return;
    }
    await sleep(1_000);
  }
}

type Change = 'pause' | 'resume';
type ConsumeFrom = 'smallest' | 'largest';

interface ConsumptionOptions extends Record<string, unknown> {
  yes?: boolean;
  dryRun?: boolean;
}

export const pause: HandlerOf<TablePauseCommand> = async (context) => changeConsumption(context, await tableNameArgument(context), 'pause', undefined);

export const resume: HandlerOf<TableResumeCommand> = async (context) => changeConsumption(context, await tableNameArgument(context), 'resume', context.options.consumeFrom);

/** What each change does, as the question and the success line say it. */
const DOES: Record<Change, string> = {
  pause: 'the store commits its consuming segments and consumes nothing until resumed',
  resume: 'the store makes a consuming segment for each partition and consumes again',
};

/**
 * What --consume-from costs, said in the question: the new consuming segments start at that
 * offset instead of where the store stopped (PinotLLCRealtimeSegmentManager#resumeConsumption),
 * so `largest` skips the messages in between for good and `smallest` reads again those stored.
 */
const LOSES: Record<ConsumeFrom, string> = {
  largest: "from the topic's latest offset: the messages after the offsets the store holds, up to the latest, are skipped and never stored",
  smallest: 'from the earliest offset the topic holds: the messages it stored already are stored again (twice, unless the table dedups or upserts)',
};

async function changeConsumption(context: CommandContext<ConsumptionOptions>, given: string, change: Change, consumeFrom: ConsumeFrom | undefined): Promise<CommandOutput> {
  const { options, reporter } = context;
  const table = requireName('table', given, '<name>');
  const settings = await context.settings();
  const request = { method: 'POST', path: `${paths.olapConsumptionChange(table, change, requireWord(settings, 'olapSegment'))}${consumeFrom ? `?consumeFrom=${consumeFrom}` : ''}` };
  if (options.dryRun === true) return dryRun(context, table, request);
  // Decided before any request: a script without --yes learns it at once, and nothing is sent.
  if (options.yes !== true && !context.canPrompt) {
    throw new DpgwError('CONFIRMATION_REQUIRED', `${change === 'pause' ? 'pausing' : 'resuming'} the consumption of table ${table} needs confirmation, and there is no terminal to ask on; nothing was sent`, {
      where: '--yes',
      hint: `pass --yes to go ahead without asking: dpgw table ${change} ${table} --yes`,
    });
  }
  if (options.yes !== true && !(await confirmPrompt(context, `${change === 'pause' ? 'Pause' : 'Resume'} the consumption of table ${table}? (${DOES[change]}${consumeFrom ? `, ${LOSES[consumeFrom]}` : ''})`, false))) {
    throw new DpgwError('CONFIRMATION_MISMATCH', `the ${change} of table ${table} was not confirmed; nothing was sent`, { hint: `answer yes, or pass --yes: dpgw table ${change} ${table} --yes` });
  }
  const gateway = await context.gateway();
  if (change === 'resume') await untilPauseCommitted(gateway, table, context);
  const answer = await gateway.changeConsumption(table, change, consumeFrom);
  if (answer.kind === 'not-found') {
    throw new DpgwError('TABLE_NOT_FOUND', `the analytics store has no table "${table}" (${serverText(answer.message)})`, { where: answer.url, hint: `${UNKNOWN_TABLE_HINT}; nothing changed` });
  }
  if (answer.kind === 'not-exposed') {
    throw new DpgwError('STORE_CONSUMPTION_NOT_EXPOSED', `the gateway does not pass the store's ${change} of consumption on (POST ${answer.url} answered ${serverText(answer.why)}); nothing changed`, {
      hint: `ask the platform team to pass it on, or an operator to send the store controller's POST /tables/${table}/${change}Consumption${consumeFrom ? `?consumeFrom=${consumeFrom}` : ''}`,
    });
  }
  const from = consumeFrom === 'smallest' ? ", from the earliest offset the topic holds" : consumeFrom === 'largest' ? ", from the topic's latest offset" : change === 'resume' ? ', from the offsets it holds' : '';
  reporter.success(`${change === 'pause' ? 'paused' : 'resumed'} the consumption of table ${table}: ${DOES[change]}${from}`);
  reporter.next(change === 'pause' ? `dpgw table resume ${table}` : `dpgw table status ${table}`);
  return { data: { table, change, ...(consumeFrom ? { consumeFrom } : {}), request, status: answer.status, response: answer.body ?? null }, human: () => [] };
}

/** --dry-run: the table read first (a name the store does not hold is exit 9, as the run's), then the request printed. */
async function dryRun(context: CommandContext<ConsumptionOptions>, table: string, request: { method: string; path: string }): Promise<CommandOutput> {
  try {
    const held = await (await context.gateway()).getTable(table);
    if (held.kind === 'not-found') throw new DpgwError('TABLE_NOT_FOUND', `the analytics store has no table "${table}"`, { where: held.url, hint: `${UNKNOWN_TABLE_HINT}; nothing was sent` });
  } catch (error) {
    if (!(error instanceof DpgwError) || (error.kind !== 'network' && error.kind !== 'auth')) throw error;
    context.reporter.warn(`dry run: the table was not read, as the gateway could not be (${error.toLine()}); the request is shown as it would be sent`);
  }
  return renderDryRun([request], { table });
}
