/** `dpgw export --output DIR`: its definition (flags: export.flags.ts); the handler is export.handler.ts, the work src/export/. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { exportOptions } from './export.flags.js';

export const exportCommand = defineCommand({
  usage: 'export',
  description: "write the platform's tables as a provision manifest and schema files that plan no changes (GET requests only)",
  example: 'dpgw export --output exported --dataset track',
  moreHelp:
    "\nIt writes exported/provision.yaml and a schema file per table. A table it cannot map back to a data\nset through its topic, or reproduce under this run's settings, is named in a warning and left out.\nNo endpoint, stream user or secret is written: the run that provisions the manifest brings its\nown. Under the same settings the export plans no changes (docs/export.md):\n  $ dpgw provision exported/provision.yaml --plan --detailed-exitcode    # exit 0\n",
  options: exportOptions,
  handler: () => import('./export.handler.js').then((module) => module.exportToFolder),
});
