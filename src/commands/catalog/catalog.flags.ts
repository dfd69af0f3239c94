/** `dpgw catalog sources|offers|enablements|datasets|show`: the flags of each subcommand and the types they give its handlers; catalog.command.ts declares the command with them, and catalog.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

const NAME_PATTERN = "only data sets whose name matches (* and ? as wildcards; quote it: 'tr*'); also as the argument";

export const offersOptions = (command: CommandFor<'offers [pattern]'>, kit: OptionKit) =>
  command.addOption(kit.name('--datasource <name|id>', 'only this data source', 'data source')).option('--name <pattern>', NAME_PATTERN);
export const enablementsOptions = (command: CommandFor<'enablements'>, kit: OptionKit) =>
  command.addOption(kit.name('--datasource <name|id>', 'only this data source', 'data source')).addOption(kit.name('--enablement <name|id>', 'only this enablement', 'enablement'));
export const dataSetsOptions = (command: CommandFor<'datasets [pattern]'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--datasource <name|id>', 'only this data source', 'data source'))
    .addOption(kit.name('--enablement <name|id>', 'only this enablement', 'enablement'))
    .option('--name <pattern>', NAME_PATTERN);
export const showOptions = (command: CommandFor<'show [dataset]'>, kit: OptionKit) => command.addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'));

export type CatalogSourcesCommand = CommandFor<'sources'>;
export type CatalogOffersCommand = ReturnType<typeof offersOptions>;
export type CatalogEnablementsCommand = ReturnType<typeof enablementsOptions>;
export type CatalogDatasetsCommand = ReturnType<typeof dataSetsOptions>;
export type CatalogShowCommand = ReturnType<typeof showOptions>;
