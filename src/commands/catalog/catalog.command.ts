/** `dpgw catalog sources|offers|enablements|datasets|show`: the group and each subcommand's definition (flags: catalog.flags.ts); the handlers are catalog.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { offersOptions, enablementsOptions, dataSetsOptions, showOptions } from './catalog.flags.js';

export const catalog = defineGroup({
  name: 'catalog',
  description: 'look up the catalog: data sources, what they offer, enablements, enabled data sets (GET only)',
  commands: [
    defineCommand({
      usage: 'sources',
      description: 'list the data sources',
      example: 'dpgw catalog sources',
      handler: () => import('./catalog.handler.js').then((module) => module.sources),
    }),
    defineCommand({
      usage: 'offers [pattern]',
      description: 'list the data sets the data sources offer, and the enablements each is enabled in',
      example: 'dpgw catalog offers --datasource mock-data-library',
      options: offersOptions,
      handler: () => import('./catalog.handler.js').then((module) => module.offers),
    }),
    defineCommand({
      usage: 'enablements',
      description: 'list the enablements and the groups that may read their data sets',
      example: 'dpgw catalog enablements --datasource mock-data-library',
      options: enablementsOptions,
      handler: () => import('./catalog.handler.js').then((module) => module.enablements),
    }),
    defineCommand({
      usage: 'datasets [pattern]',
      description: 'list the enabled data sets: data source, enablement, groups, topic, storages (* the default), self link',
      example: "dpgw catalog datasets --name 'tr*'",
      options: dataSetsOptions,
      handler: () => import('./catalog.handler.js').then((module) => module.dataSets),
    }),
    defineCommand({
      usage: 'show [dataset]',
      description: 'everything about one enabled data set: ids, topic, storages, groups, the storage touch path, and whether its table exists',
      example: 'dpgw catalog show track',
      moreHelp: askedHelp('<dataset> (the enabled data sets)'),
      argumentValues: ['data set'],
      options: showOptions,
      handler: () => import('./catalog.handler.js').then((module) => module.show),
    }),
  ],
});
