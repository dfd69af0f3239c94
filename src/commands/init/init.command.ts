/** `dpgw init [dir]`: its definition (flags: init.flags.ts); the handler is init.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { initOptions } from './init.flags.js';

export const init = defineCommand({
  usage: 'init [dir]',
  description: "write a provision manifest and its schema for a data set, inferred from a sample of its topic (asks at a terminal; sends nothing)",
  example: 'dpgw init track --datasource mock-data-library --dataset track --group track-readers',
  moreHelp:
    "\nAt a terminal, `dpgw init` alone asks for each value from the live catalog and the topic's messages,\nshows the inferred columns, then offers to run the plan. Every question has a flag, so with\n--no-input (or without a terminal) the same flags write the same files. It writes DIR/provision.yaml\nand DIR/schema.yaml (DIR: the current folder by default) and replaces neither without --force;\nbeside them provision-manifest.schema.json, which the manifest's first line points editors at.\nA data set not enabled yet has no topic to read: pass --schema FILE or --from-messages FILE,\nor --infer-at-first-run (the manifest's schema: { infer }, inferred once the first run has enabled it).\n  $ dpgw provision track/provision.yaml --plan    what the first run would change\n",
  options: initOptions,
  handler: () => import('./init.handler.js').then((module) => module.init),
});
