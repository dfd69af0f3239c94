/** `dpgw health`: its definition (flags: health.flags.ts); the handler is health.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { healthOptions } from './health.flags.js';

export const health = defineCommand({
  usage: 'health [component]',
  description: 'show platform health; exit 6 when not UP',
  example: 'dpgw health mq',
  argumentValues: ['health component'],
  options: healthOptions,
  handler: () => import('./health.handler.js').then((module) => module.health),
});
