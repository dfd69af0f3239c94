/**
 * `dpgw catalog sources|offers|enablements|datasets|show`: the catalog's hierarchy, one
 * level a subcommand (data sources → what they offer → enablements → enabled data sets),
 * GET requests only, thin over catalog/catalog-lookup.ts.
 */
import type { ChalkInstance } from 'chalk';
import type { CommandContext } from '../../command-kit/command-context.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { CatalogSourcesCommand, CatalogOffersCommand, CatalogEnablementsCommand, CatalogDatasetsCommand, CatalogShowCommand } from './catalog.flags.js';
import { catalogEnablements, catalogOffers, enabledDataSets, selectDataSources, storagePathOf, type CatalogFilter, type EnabledDataSetView } from '../../catalog/catalog-lookup.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { CommandOutput } from '../../output/reporter.js';
import { textTable } from '../../output/text-table.js';
import { closestMatch } from '../../text/closest-match.js';
import { plural } from '../../text/plural.js';
import { serverText } from '../../text/terminal-text.js';
import { Questions } from '../shared/questions.js';
import { askEnabledDataSet } from '../shared/catalog-questions.js';
import { terminalWidth } from '../../output/terminal-width.js';

/**
 * A listing: its records as the document, a table for a person, and a note (not an error) when it is empty. The
 * document is made only when it is read (--json): a table of 10,000 data sets has no use for 10,000 copied records.
 */
function listing<T>(context: CommandContext, records: T[], what: string, filtered: boolean, header: string[], row: (record: T) => string[], document: () => unknown = () => records): CommandOutput {
  if (records.length === 0) context.reporter.info(`no ${what}${filtered ? ' match the filters' : ' in the catalog'}`);
  let data: unknown;
  return {
    get data() {
      return (data ??= document());
    },
    human: (style) => (records.length === 0 ? [] : textTable(header, records.map(row), { width: terminalWidth(context.io.stdout), style })),
  };
}

/** The filters of a listing; a name pattern as --name or as the argument (`dpgw catalog datasets 'tr*'`). */
function filterOf(options: { datasource?: string; enablement?: string; name?: string }, pattern?: string): CatalogFilter {
  if (pattern !== undefined && options.name !== undefined && pattern !== options.name) {
    throw new DpgwError('CONFLICTING_ARGUMENTS', `two name patterns: "${pattern}" and --name "${options.name}"`, { where: '--name', hint: 'give one of them' });
  }
  return { dataSource: options.datasource, enablement: options.enablement, name: options.name ?? pattern };
}

export const sources: HandlerOf<CatalogSourcesCommand> = async (context) => {
  const records = await selectDataSources(await context.gateway(), undefined);
  return listing(context, records, 'data sources', false, ['DATA SOURCE', 'ID'], (s) => [s.name, s.id]);
};

export const offers: HandlerOf<CatalogOffersCommand> = async (context) => {
  const filter = filterOf(context.options, context.args[0]);
  const views = await catalogOffers(await context.gateway(), filter);
  return listing(
    context,
    views,
    'offered data sets',
    filter.dataSource !== undefined || filter.name !== undefined,
    ['DATA SET', 'DATA SOURCE', 'ENABLED IN'],
    (v) => [v.offered.name, v.dataSource.name, v.enabledIn.map((e) => e.name ?? e.id).join(', ') || '-'],
    () => views.map((v) => ({ ...v.offered, dataSource: v.dataSource, enabledIn: v.enabledIn })),
  );
};

export const enablements: HandlerOf<CatalogEnablementsCommand> = async (context) => {
  const filter = filterOf(context.options);
  const views = await catalogEnablements(await context.gateway(), filter);
  return listing(
    context,
    views,
    'enablements',
    filter.dataSource !== undefined,
    ['ENABLEMENT', 'DATA SOURCE', 'GROUPS', 'ID'],
    (v) => [v.enablement.name, v.dataSource.name, (v.enablement.groups ?? []).join(', ') || '-', v.enablement.id],
    () => views.map((v) => ({ ...v.enablement, dataSource: v.dataSource })),
  );
};

export const dataSets: HandlerOf<CatalogDatasetsCommand> = async (context) => {
  const filter = filterOf(context.options, context.args[0]);
  const views = await enabledDataSets(await context.gateway(), filter);
  return listing(
    context,
    views,
    'enabled data sets',
    Object.values(filter).some((v) => v !== undefined),
    ['DATA SET', 'DATA SOURCE', 'ENABLEMENT', 'GROUPS', 'TOPIC', 'STORAGES', 'SELF'],
    (v) => [v.name, v.dataSource.name ?? v.dataSource.id, v.enablement.name ?? v.enablement.id, (v.enablement.groups ?? []).join(', ') || '-', v.topic ?? '-', storagesOf(v), v.selfHref ?? '-'],
    () => views.map(dataSetRecord),
  );
};

/**
 * A data set as --json lists it: the catalog's record with what the table shows beside it (its data
 * source, its enablement and that enablement's groups, its topic), so a script needs no second call.
 * All of it comes from the listing's own reads (catalog-lookup.ts enabledDataSets: the data sources,
 * each one's enablements, one listing of the data sets), none from a request per data set. dpgw's
 * keys come last: a record of the catalog's that held keys of those names does not hide them.
 */
function dataSetRecord(view: EnabledDataSetView) {
  const { dataSource, enablement } = view;
  return {
    ...view.record,
    dataSource: { id: dataSource.id, name: dataSource.name ?? null },
    enablement: { id: enablement.id, name: enablement.name ?? null, groups: enablement.groups ?? [] },
    topic: view.topic ?? null,
  };
}

export const show: HandlerOf<CatalogShowCommand> = async (context) => {
  // The data set as given, else chosen among the enabled ones at a terminal (its enablement too when several hold the name).
  const questions = new Questions(context);
  let enablement = context.options.enablement;
  const name = await questions.operand('<dataset>', context.args[0], async () => {
    const chosen = await askEnabledDataSet(context, await context.gateway());
    if (enablement === undefined && chosen.enablement !== undefined) questions.answered('--enablement', (enablement = chosen.enablement));
    return chosen.dataSet;
  });
  questions.done();
  refusePattern(name);
  const gateway = await context.gateway();
  // Every enabled data set (the same one listing as asked for one name), so a misspelt name gets the nearest enabled one.
  const enabled = await enabledDataSets(gateway, { enablement });
  const matches = enabled.filter((view) => view.name === name);
  if (matches.length === 0) {
    const near = closestMatch(name, [...new Set(enabled.map((view) => view.name))]);
    throw new DpgwError('DATA_SET_NOT_ENABLED', `data set "${name}" is not enabled${enablement ? ` in enablement ${enablement}` : ''}: the catalog lists no enabled data set of that name`, {
      where: 'dataset',
      hint: near
        ? serverText(`did you mean "${near}"?`)
        : `see what is enabled with \`dpgw catalog datasets\`, or enable it with \`dpgw enable --datasource <source> --dataset ${name} --group <group>\``,
    });
  }
  if (matches.length > 1) {
    throw new DpgwError('ENABLEMENT_AMBIGUOUS', `data set "${name}" is enabled in ${plural(matches.length, 'enablement')}`, {
      where: 'dataset',
      hint: `choose one with --enablement: ${serverText(matches.map((m) => m.enablement.name ?? m.enablement.id).join(', '))}`,
    });
  }
  const view = matches[0]!;
  const table = await gateway.getTable(view.name);
  const tableState =
    table.kind === 'found'
      ? { exists: true, checked: true, url: table.url }
      : table.kind === 'not-found'
        ? { exists: false, checked: true, url: table.url }
        : { exists: null, checked: false, url: table.url, why: `this gateway does not expose reads of the analytics store (${table.why})` };
  const data = {
    dataSet: view.record,
    dataSource: view.dataSource,
    enablement: view.enablement,
    topic: view.topic ?? null,
    storagePath: storagePathOf(view) ?? null,
    table: { name: view.name, ...tableState },
  };
  return { data, human: (style) => renderShow(view, data.table, style) };
};

function renderShow(view: EnabledDataSetView, table: { name: string; exists: boolean | null; why?: string }, style: ChalkInstance): string[] {
  // Every value is the catalog's words, escaped before dpgw's own styling goes around them: one line each, whatever they hold.
  const id = (text: string) => style.dim(`(${serverText(text)})`);
  const storagePath = storagePathOf(view);
  const rows: Array<[string, string]> = [
    ['data set', `${serverText(view.name)} ${id(view.record.id ?? 'no id')}`],
    ['data source', `${serverText(view.dataSource.name ?? '?')} ${id(view.dataSource.id)}`],
    ['enablement', `${serverText(view.enablement.name ?? '?')} ${id(view.enablement.id)}`],
    ['groups', serverText((view.enablement.groups ?? []).join(', ') || '-')],
    ['topic', serverText(view.topic ?? '- (no topic label)')],
    ['storages', serverText(storagesOf(view))],
    ['self link', serverText(view.selfHref ?? '-')],
    ['storage touch', serverText(storagePath ? `GET ${storagePath}` : '- (no default storage)')],
    ['table', serverText(table.exists === true ? `${table.name} exists in the analytics store` : table.exists === false ? `no table ${table.name} in the analytics store` : `not checked: ${table.why}`)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${style.bold(label.padEnd(width))}  ${value}`);
}

/** `default* (s-1), archive (s-2)`: the storage `storage touch` reads is starred. */
function storagesOf(view: EnabledDataSetView): string {
  return view.storages.map((s) => `${s.name}${s.default ? '*' : ''} (${s.id})`).join(', ') || '-';
}

/** `catalog show` takes one name, not a pattern: wildcards in it are refused, with the listing that takes them. */
function refusePattern(name: string): void {
  if (/[*?]/.test(name)) throw new DpgwError('INVALID_ARGUMENT', `"${name}" is a pattern: \`catalog show\` takes one data set's name`, { where: 'dataset', hint: `list the matching ones with \`dpgw catalog datasets --name '${name}'\`` });
}

