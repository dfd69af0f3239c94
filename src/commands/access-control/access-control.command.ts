/** `dpgw access-control render|check`: the group and its definition (flags: access-control.flags.ts); the handlers are access-control.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { renderOptions, checkOptions } from './access-control.flags.js';

export const accessControl = defineGroup({
  name: 'access-control',
  description: "the query engine's access-control.properties (contract step 1)",
  commands: [
    defineCommand({
      usage: 'render',
      description: 'write the coordinator file that delegates access decisions to the policy engine',
      example: 'dpgw access-control render --policy-uri http://opa:8181/v1/data/dpgw/query_access/allow -o access-control.properties',
      options: renderOptions,
      handler: () => import('./access-control.handler.js').then((module) => module.render),
    }),
    defineCommand({
      usage: 'check <file>',
      description: 'report every missing, misspelt or wrong key with file:line:column; exit 2 when any',
      example: 'dpgw access-control check /etc/trino/access-control.properties',
      options: checkOptions,
      handler: () => import('./access-control.handler.js').then((module) => module.check),
    }),
  ],
});
