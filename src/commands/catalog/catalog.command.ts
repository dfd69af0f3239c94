/** `dpgw catalog sources|offers|enablements|datasets|show`: the group and each subcommand's flags; the handlers are catalog.handler.ts. */
import { defineCommand, defineGroup, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { askedHelp } from '../shared/asked-help.js';

const NAME_PATTERN = "only data sets whose name matches (* and ? as wildcards; quote it: 'tr*'); also as the argument";

const offersOptions = (command: CommandFor<'offers [pattern]'>, kit: OptionKit) =>
  command.addOption(kit.name('--datasource <name|id>', 'only this data source', 'data source')).option('--name <pattern>', NAME_PATTERN);
const enablementsOptions = (command: CommandFor<'enablements'>, kit: OptionKit) =>
  command.addOption(kit.name('--datasource <name|id>', 'only this data source', 'data source')).addOption(kit.name('--enablement <name|id>', 'only this enablement', 'enablement'));
const dataSetsOptions = (command: CommandFor<'datasets [pattern]'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--datasource <name|id>', 'only this data source', 'data source'))
    .addOption(kit.name('--enablement <name|id>', 'only this enablement', 'enablement'))
    .option('--name <pattern>', NAME_PATTERN);
const showOptions = (command: CommandFor<'show [dataset]'>, kit: OptionKit) => command.addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'));

export type CatalogSourcesCommand = CommandFor<'sources'>;
export type CatalogOffersCommand = ReturnType<typeof offersOptions>;
export type CatalogEnablementsCommand = ReturnType<typeof enablementsOptions>;
export type CatalogDatasetsCommand = ReturnType<typeof dataSetsOptions>;
export type CatalogShowCommand = ReturnType<typeof showOptions>;

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
