/** `dpgw health [component]`: the platform's health as a tree; exit 6 when not UP. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChalkInstance } from 'chalk';
import type { HandlerOf } from '../../cli/command-definition.js';
import type { HealthCommand } from './health.command.js';
import { HEALTH_COMPONENTS, HEALTH_STATUS_UP } from '../../contract/constants.js';
import type { HealthRecord } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import { onStopSignal } from '../../cli/interruption.js';
import { GatewayError } from '../../gateway/gateway-error.js';
import { serverText, terminalSafe } from '../../text/terminal-text.js';

export const health: HandlerOf<HealthCommand> = async (context) => {
  const [component] = context.args;
  const gateway = await context.gateway();
  const check = async () => {
    try {
      return (await gateway.health(component)).record;
    } catch (error) {
      if (component !== undefined && error instanceof GatewayError && error.status === 404) {
        throw new DpgwError('usage', `the gateway has no health component "${component}"`, { code: 'HEALTH_COMPONENT_NOT_FOUND', where: 'component', hint: `known components: ${Object.keys(HEALTH_COMPONENTS).join(', ')}` });
      }
      throw error;
    }
  };
  const { watch } = context.options;

  let record = await check();
  if (watch !== undefined && !context.reporter.options.json) {
    // Refresh in place on a terminal, a new block per check otherwise; until Ctrl-C.
    const tty = context.io.stdout.isTTY === true;
    let stopped = false;
    const stopWatching = onStopSignal(() => (stopped = true));
    try {
      for (;;) {
        const text = renderTree(record, component, context.reporter.out) + `\n${context.reporter.out.dim(`checked ${new Date().toISOString()}; every ${watch} s, Ctrl-C stops`)}\n`;
        context.io.stdout.write(tty ? `\u001b[H\u001b[2J${terminalSafe(text)}` : `${terminalSafe(text)}\n`);
        for (let waited = 0; waited < watch * 1000 && !stopped; waited += 100) await sleep(100);
        if (stopped) break;
        record = await check();
      }
    } finally {
      stopWatching();
    }
    // Stopped by Ctrl-C or SIGTERM, as a shell reports it.
    return { data: record, printed: true, exitCode: ExitCode.Interrupted };
  }
  return {
    data: record,
    exitCode: record.status === HEALTH_STATUS_UP ? ExitCode.Ok : ExitCode.Unhealthy,
    human: (style) => renderTree(record, component, style),
  };
};

function renderTree(record: HealthRecord, component: string | undefined, style: ChalkInstance): string {
  // Names and statuses are the server's words: escaped, so none can forge a line of the tree.
  const status = (s: string) => (s === HEALTH_STATUS_UP ? style.green(s) : style.red.bold(serverText(String(s))));
  const lines = [`${style.bold(component ?? 'platform')} ${status(record.status)}`];
  const entries = Object.entries(record.components ?? {});
  entries.forEach(([name, child], index) => {
    const last = index === entries.length - 1;
    lines.push(`${last ? '└─' : '├─'} ${serverText(name)} ${status(child.status)}`);
    const subs = Object.entries(child.components ?? {});
    subs.forEach(([subName, sub], subIndex) => lines.push(`${last ? '   ' : '│  '}${subIndex === subs.length - 1 ? '└─' : '├─'} ${serverText(subName)} ${status(sub.status)}`));
  });
  return lines.join('\n');
}

