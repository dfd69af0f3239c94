/** `dpgw health [component]`: the platform's health as a tree; exit 6 when not UP. */
import type { ChalkInstance } from 'chalk';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { HealthCommand } from './health.flags.js';
import { HEALTH_COMPONENTS, HEALTH_STATUS_UP } from '../../contract/constants.js';
import type { HealthRecord } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import { GatewayError } from '../../gateway/gateway-error.js';
import { serverText } from '../../text/terminal-text.js';
import { watchUntilStopped } from '../shared/watch.js';

export const health: HandlerOf<HealthCommand> = async (context) => {
  const [component] = context.args;
  const gateway = await context.gateway();
  const check = async () => {
    try {
      return (await gateway.health(component)).record;
    } catch (error) {
      if (component !== undefined && error instanceof GatewayError && error.status === 404) {
        throw new DpgwError('HEALTH_COMPONENT_NOT_FOUND', `the gateway has no health component "${component}"`, { where: 'component', hint: `known components: ${Object.keys(HEALTH_COMPONENTS).join(', ')}` });
      }
      throw error;
    }
  };
  const { watch } = context.options;

  let record = await check();
  if (watch !== undefined && !context.reporter.options.json) {
    await watchUntilStopped(context, { seconds: watch, done: 'checked', show: () => renderTree(record, component, context.reporter.out), refresh: async () => void (record = await check()) });
    // Stopped by Ctrl-C or SIGTERM, as a shell reports it.
    return { data: record, printed: true, exitCode: ExitCode.Interrupted };
  }
  return {
    data: record,
    exitCode: record.status === HEALTH_STATUS_UP ? ExitCode.Ok : ExitCode.Unhealthy,
    human: (style) => renderTree(record, component, style),
  };
};

function renderTree(record: HealthRecord, component: string | undefined, style: ChalkInstance): string[] {
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
  return lines;
}

