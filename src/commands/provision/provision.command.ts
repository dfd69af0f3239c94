/** `dpgw provision <manifest>`: its definition (flags: provision.flags.ts); the handler is provision.handler.ts, the run src/provision/. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { provisionOptions } from './provision.flags.js';

export const provision = defineCommand({
  usage: 'provision [manifest]',
  description: 'run the whole workflow for every data set of a manifest, in order, safe to re-run',
  example: 'dpgw provision examples/track/provision.yaml',
  moreHelp:
    '  $ dpgw provision examples/track/provision.yaml --plan --prune   what a prune would delete, nothing sent\n\nAt a terminal a run shows its plan and asks before it sends anything; --yes does not ask,\nand in a pipe or CI nothing is asked.\n\nWithout --prune nothing is ever deleted. --prune deletes only tables marked with this\nmanifest\'s name (metadata.customConfigs "dpgw.manifest"), and needs a manifest with a name:\n(one taken from its path is any same-named folder\'s); enablements stay. Without a terminal it\nneeds --yes (exit 2, nothing sent). A table another manifest marked is refused (exit 2)\nunless --adopt. docs/lifecycle.md\n' + askedHelp('<manifest> (the YAML files with dataSets: under this folder)'),
  options: provisionOptions,
  handler: () => import('./provision.handler.js').then((module) => module.provision),
});
