/** `dpgw health`: its flags; the handler is health.handler.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

const healthOptions = (command: CommandFor<'health [component]'>, kit: OptionKit) =>
  command.addOption(kit.option('--watch <seconds>', 'check again every few seconds (in place on a terminal) until Ctrl-C').argParser(kit.positiveSeconds));
export type HealthCommand = ReturnType<typeof healthOptions>;

export const health = defineCommand({
  usage: 'health [component]',
  description: 'show platform health; exit 6 when not UP',
  example: 'dpgw health mq',
  argumentValues: ['health component'],
  options: healthOptions,
  handler: () => import('./health.handler.js').then((module) => module.health),
});
