/**
 * Questions answered from the live catalog (issue #36): the data sources, what one offers
 * (enabled or not), its enablements with their groups, the enabled data sets. Names the
 * platform would refuse are shown but cannot be chosen, as a flag would refuse them.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import { catalogDataSources, catalogEnablements, catalogOffers, enabledDataSets } from '../../catalog/catalog-lookup.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { nameProblem, type NameKind } from '../../names/platform-names.js';
import { choosePrompt, textPrompt, type Choice } from './prompts.js';

type Asking = Pick<CommandContext, 'io'>;

function choice<Value>(kind: NameKind, name: string, value: Value, detail?: string): Choice<Value> {
  const problem = nameProblem(kind, name);
  return { value, name: detail ? `${name}  (${detail})` : name, short: name, ...(problem !== undefined ? { disabled: 'a name dpgw cannot send' } : {}) };
}

export async function askDataSource(context: Asking, gateway: GatewayClient): Promise<string> {
  const sources = await catalogDataSources(gateway);
  if (sources.length === 0) throw new DpgwError('DATA_SOURCE_NOT_FOUND', 'the catalog lists no data sources to choose from', { hint: 'check the gateway and profile: dpgw catalog sources' });
  return choosePrompt(
    context,
    'Data source:',
    sources.map((source) => choice('data source', source.name, source.name)),
    { searchable: true },
  );
}

/** A data set the source offers, each shown enabled (and where) or not. */
export async function askOfferedDataSet(context: Asking, gateway: GatewayClient, dataSource: string): Promise<string> {
  const offers = await catalogOffers(gateway, { dataSource });
  if (offers.length === 0) throw new DpgwError('DATA_SET_NOT_FOUND', `data source ${dataSource} offers no data sets`, { where: '--datasource', hint: 'choose another: dpgw catalog sources' });
  return choosePrompt(
    context,
    'Data set:',
    offers.map((offer) => choice('data set', offer.offered.name, offer.offered.name, offer.enabledIn.length > 0 ? `enabled in ${offer.enabledIn.map((e) => e.name ?? e.id).join(', ')}` : 'not enabled')),
    { searchable: true },
  );
}

/** An enabled data set (a table needs its topic); the enablement too when the name is enabled in several. */
export async function askEnabledDataSet(context: Asking, gateway: GatewayClient): Promise<{ dataSet: string; enablement?: string }> {
  const views = await enabledDataSets(gateway, {});
  if (views.length === 0) throw new DpgwError('DATA_SET_NOT_FOUND', 'no data set is enabled yet: a table needs the topic of an enabled one', { where: '--dataset', hint: 'enable one first: dpgw enable' });
  const counts = new Map<string, number>();
  for (const view of views) counts.set(view.name, (counts.get(view.name) ?? 0) + 1);
  const index = await choosePrompt(
    context,
    'Data set:',
    views.map((view, at) => choice('data set', view.name, at, `${view.dataSource.name ?? view.dataSource.id}, enablement ${view.enablement.name ?? view.enablement.id}, topic ${view.topic ?? 'not yet'}`)),
    { searchable: true },
  );
  const chosen = views[index]!;
  return { dataSet: chosen.name, ...(counts.get(chosen.name)! > 1 ? { enablement: chosen.enablement.name ?? chosen.enablement.id } : {}) };
}

const NEW_ENABLEMENT = Symbol('new enablement');

/** An enablement of the source: an existing one (the one holding the data set first), or a new name. */
export async function askEnablement(context: Asking, gateway: GatewayClient, dataSource: string, dataSet: string): Promise<{ name: string; exists: boolean; groups: string[] }> {
  const [enablements, holding] = await Promise.all([catalogEnablements(gateway, { dataSource }), enabledDataSets(gateway, { dataSource, name: dataSet })]);
  const holds = new Set(holding.map((view) => view.enablement.id));
  const choices: Array<Choice<string | typeof NEW_ENABLEMENT>> = [
    ...enablements.map(({ enablement }) => choice('enablement', enablement.name, enablement.id, [holds.has(enablement.id) ? `holds ${dataSet}` : undefined, `groups ${enablement.groups.join(', ') || 'none'}`].filter(Boolean).join('; '))),
    { value: NEW_ENABLEMENT, name: 'a new enablement…' },
  ];
  const preferred = enablements.find(({ enablement }) => holds.has(enablement.id)) ?? enablements.find(({ enablement }) => enablement.name === dataSet);
  const answer = await choosePrompt(context, 'Enablement:', choices, { preferred: preferred?.enablement.id ?? NEW_ENABLEMENT });
  if (answer !== NEW_ENABLEMENT) {
    const { enablement } = enablements.find((e) => e.enablement.id === answer)!;
    return { name: enablement.name, exists: true, groups: enablement.groups };
  }
  const taken = new Set(enablements.map(({ enablement }) => enablement.name));
  const name = await textPrompt(context, 'Name of the new enablement:', {
    default: taken.has(dataSet) ? undefined : dataSet,
    check: (typed) => nameProblem('enablement', typed) ?? (taken.has(typed) ? `enablement ${typed} exists: choose it from the list, or another name` : undefined),
  });
  return { name, exists: false, groups: [] };
}

/** Whether the source has an enablement of this name (a new one needs groups). */
export async function enablementExists(gateway: GatewayClient, dataSource: string, name: string): Promise<boolean> {
  return (await catalogEnablements(gateway, { dataSource })).some(({ enablement }) => enablement.name === name || enablement.id === name);
}

/** The groups of a new enablement, separated by spaces or commas. */
export async function askGroups(context: Asking, enablement: string): Promise<string[]> {
  const typed = await textPrompt(context, `Groups that may read it (new enablement ${enablement}; separate with spaces):`, {
    check: (answer) => {
      const groups = groupsOf(answer);
      if (groups.length === 0) return 'a new enablement needs at least one group';
      return groups.map((group) => nameProblem('group', group)).find((problem) => problem !== undefined);
    },
  });
  return groupsOf(typed);
}

function groupsOf(typed: string): string[] {
  return [...new Set(typed.split(/[\s,]+/).filter((word) => word !== ''))];
}
