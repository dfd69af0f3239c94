/**
 * The provision manifest: settings, and the data sets to provision in the
 * contract's order. Described once with zod, which also emits the JSON Schema
 * editors validate against (docs/provision-manifest.schema.json). Every problem
 * is reported with the manifest's file:line:column before any request.
 */
import { objectAt } from '../olap/object-at.js';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { lazyLocation, locatedValue, readLocatedDocument, type LocatedDocument, type PathPart } from '../olap/located-document.js';
import { whereText, type SourceLocation } from '../errors/source-location.js';
import { issueAt, type ValidationIssue } from '../olap/schema-validation.js';
import { failOnIssues } from '../olap/table-template.js';
import { namePattern, nameProblem, type NameKind } from '../names/platform-names.js';
import { isSecretReference, notAReference } from '../secrets/secret-reference.js';
import { PROFILE_KEYS, SETTING_DEFINITIONS } from '../settings/setting-definitions.js';
import { closestMatch, unknownNameSuffix } from '../text/closest-match.js';
import { TIME_COLUMN_HELP } from '../schema-inference/time-column-help.js';

const name = z.string().min(1);
/** A name sent to the platform: the one rule of src/names/platform-names.ts, also as the JSON Schema's pattern for editors. */
const platformName = (kind: NameKind) => z.string().regex(namePattern(kind), { error: (issue) => nameProblem(kind, String(issue.input)) });
/** Settings that hold secrets: a manifest names them by reference only, and only when the run allows it. */
const REFERENCE_KEYS = new Set(SETTING_DEFINITIONS.flatMap((d) => (d.display === 'reference' && d.profileKey ? [d.profileKey] : [])));
/**
 * Settings that say where dpgw connects, which file it reads, or who the run's secrets sign in as: the run's own,
 * unless it allows the manifest's (or the manifest repeats the run's value).
 */
const RUN_CHOSEN_KEYS = new Map(SETTING_DEFINITIONS.flatMap((d) => ((d.endpoint || d.identity) && d.profileKey ? [[d.profileKey, d] as const] : [])));

const tableSettings = z.strictObject({
  name: platformName('table').optional().describe('table name (default: the schema name)'),
  template: name.optional().describe('table template file, relative to the manifest (default: templates/realtime-table.yaml)'),
  topic: platformName('topic').optional().describe("topic name, overriding the data set's catalog label"),
  timeColumn: name.optional().describe('time column, when the schema has several date-time columns'),
  retentionDays: z.number().int().positive().optional().describe('segment retention in days'),
});

const settingValue = z.union([z.string(), z.number()]);
const settingsShape = Object.fromEntries(PROFILE_KEYS.map((key) => [key, settingValue.optional()])) as Record<string, z.ZodOptional<typeof settingValue>>;

const profileNames = z.array(name).min(1);
const verifySettings = z.strictObject({
  visible: profileNames.optional().describe('profiles whose users must see schema default, the table and rows in the query engine (contract step 7)'),
  hidden: profileNames.optional().describe('profiles whose users must see no schema and no table, and be denied the SELECT (contract step 8)'),
  minRows: z.number().int().nonnegative().optional().describe('rows the SELECT must return for the visible profiles (default 1)'),
  wait: z.number().nonnegative().optional().describe('seconds to keep asking until the visible checks hold, as ingestion is asynchronous (default 0)'),
});

const dashboardSettings = z.strictObject({
  profile: name.optional().describe("profile whose dashboard user builds it (a permitted user, contract step 9; default: the run's settings)"),
  title: name.optional().describe('dashboard title, found or created (default: the data set name)'),
  chart: name.optional().describe('chart name (default: "<table> positions")'),
  rows: z.number().int().positive().max(100_000).optional().describe('rows of the data set: SELECT * FROM default.<table> LIMIT <rows> (default 100)'),
});

const inferSettings = z.strictObject({
  sample: z.number().int().positive().max(100_000).optional().describe('messages to read from the earliest offset of the topic (default 200)'),
  name: platformName('schema').optional().describe('schemaName (default: the data set name)'),
  timeColumn: name.optional().describe(TIME_COLUMN_HELP),
  metrics: z.array(name).optional().describe('integer columns to make metrics (decimals are metrics already)'),
});

export type InferSettings = z.infer<typeof inferSettings>;

export const dataSetEntry = z.strictObject({
  datasource: platformName('data source').describe('data source offering the data set (name or id)'),
  dataset: platformName('data set').describe('data set to provision'),
  groups: z.array(platformName('group')).optional().describe('groups that may read the data set (needed to create the enablement)'),
  enablement: platformName('enablement').optional().describe('enablement name (reused when it exists; default: the data set name)'),
  schema: z
    .union([
      name,
      z.strictObject({ infer: inferSettings }),
      // Only what tells an inline schema apart: its shape has one rule, schema-validation.ts, as for a schema file.
      z.looseObject({ schemaName: z.string() }).describe('the analytics schema inline (schemaName, dimensionFieldSpecs, metricFieldSpecs, dateTimeFieldSpecs), checked as `dpgw schema validate` checks a file'),
    ])
    .describe("schema file (relative to the manifest), the schema inline, or { infer: … }: inferred from the data set's topic once it is enabled"),
  table: tableSettings.optional().describe('table settings'),
  sampleCheck: z
    .strictObject({ ignore: z.array(name).min(1).optional().describe('columns of the schema the check passes unjudged, as `--sample-ignore` does (a column the schema lacks is refused)') })
    .optional()
    .describe("the topic's sampled messages held against the schema before the table (docs/tables.md)"),
  verify: verifySettings.optional().describe('after the storage touch, check access in the SQL query engine as these profiles (each signed in with `dpgw login --profile …`)'),
  dashboard: dashboardSettings.optional().describe('last: the table as a data set, a map chart (lon, lat) and a dashboard in the dashboard tool, proven to render'),
});

export type VerifySettings = z.infer<typeof verifySettings>;

export const manifestSchema = z
  .strictObject({
    version: z.literal(1).optional().describe('manifest format version'),
    name: platformName('manifest')
      .optional()
      .describe("the manifest's name, marked on every table it creates or updates (metadata.customConfigs[\"dpgw.manifest\"]); a table another name marked is refused without --adopt, and provision --prune deletes only tables with this mark and needs this key. Default: the file's name without its extension, or the folder's name for provision.yaml"),
    profile: name.optional().describe('settings profile of config.yaml to start from'),
    settings: z.strictObject(settingsShape).optional().describe("settings over the profile: platformVersion, stream settings, tenants, …; endpoints and identities (realm, clientId, username, streamUser, dashboardUser) only with --allow-manifest-endpoints or when equal to the run's own, secret references only with --allow-manifest-secrets"),
    healthCheck: z.union([z.boolean(), name]).optional().describe('check platform health (true) or one component after provisioning'),
    dataSets: z.array(dataSetEntry).min(1).describe('the data sets to provision, each in the contract order'),
  })
  .describe('dpgw provision manifest');

export type DataSetEntry = z.infer<typeof dataSetEntry>;
export type Manifest = z.infer<typeof manifestSchema>;

export interface LoadedManifest {
  file: string;
  /** The manifest's name: its `name:`, else derived from its path (manifestNameOf); its tables carry it as their mark. */
  name: string;
  /**
   * Whether the name is the manifest's own `name:`. One derived from the path is shared by every folder of that
   * name (teamA/analytics and teamB/analytics), so it proves nothing: `--prune` needs a `name:` (docs/lifecycle.md).
   */
  named: boolean;
  manifest: Manifest;
  document: LocatedDocument;
  /** Settings from the manifest with their locations, for the settings' sources. */
  settings: Map<string, { value: string; location: string }>;
  /** Entries with paths resolved from the manifest's folder and their locations; an entry that is not well formed is left out (its problems are in `problems`). */
  entries: Array<DataSetEntry & { index: number; schemaFile?: string; templateFile?: string; inferAt?: { readonly location: SourceLocation }; sampleIgnoreAt?: SourceLocation }>;
  /**
   * The schema files of the entries left out, well formed or not, that the rules let dpgw read (inside the
   * manifest's folder, or --allow-outside-files, and there): prepare reads and checks them too, so their
   * problems come in the same run as the entries'. `dataset` is absent when the entry names none.
   */
  leftOutSchemaFiles: Array<{ index: number; dataset?: string; schemaFile: string }>;
  /** What is wrong with the manifest itself; reported with the data sets' problems, all at once, before any request (provision-run.ts `prepare`). */
  problems: ValidationIssue[];
}

export function manifestJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(manifestSchema), title: 'dpgw provision manifest' };
}

export interface ManifestOptions {
  /** Schema, template and secret files may lie outside the manifest's folder (--allow-outside-files). */
  allowOutsideFiles?: boolean;
  /** The manifest's settings may name endpoints, the CA file and the identity signed in as (--allow-manifest-endpoints). */
  allowEndpoints?: boolean;
  /**
   * The value the run has for a setting without the manifest (flags, environment, profile, default): a manifest
   * that repeats it chooses nothing. Absent: every endpoint or identity key of the manifest needs the flag.
   */
  runValue?: (profileKey: string, manifestProfile: string | undefined) => string | undefined;
  /** The manifest's settings may name secret references, exec: included (--allow-manifest-secrets). */
  allowSecrets?: boolean;
}

export async function loadManifest(file: string, options: ManifestOptions = {}): Promise<LoadedManifest> {
  const document = await readLocatedDocument(file, 'manifest', 'MANIFEST_NOT_FOUND');
  const issues: ValidationIssue[] = [];
  const issue: IssueAt = (path, message, atKey = false) => issues.push(issueAt(document, path, message, { atKey }));

  const parsed = manifestSchema.safeParse(document.value);
  if (!parsed.success) shapeIssues(document, parsed.error.issues, issue);
  // A manifest with problems is checked on: every entry and setting that is well formed by
  // itself goes through the other checks too, so one run lists every problem.
  const manifest = parsed.success ? parsed.data : usableParts(document.value, issues);
  const folder = dirname(resolve(file));
  const check: ManifestCheck = { document, issues, issue, folder, outsideProblem: outsideProblemOf(folder, options.allowOutsideFiles === true) };

  // Indexes, not positions: a position costs a full parse with the yaml library, paid only for a problem.
  const seen = new Map<string, number>();
  const leftOutSchemaFiles: LoadedManifest['leftOutSchemaFiles'] = [];
  const entries = manifest.dataSets.flatMap((entry, index) => {
    if (entry === undefined) {
      // Not well formed (its problems are listed already): its files are checked when it names them by a text.
      // A hole is only ever left in a list of data sets (usableParts).
      const raw = objectAt(document.value, 'dataSets', index);
      const { schemaFile, schemaReadable } = checkFiles(check, index, raw.schema, objectAt(raw, 'table').template);
      if (schemaReadable) leftOutSchemaFiles.push({ index, schemaFile: schemaFile!, ...(typeof raw.dataset === 'string' && raw.dataset !== '' ? { dataset: raw.dataset } : {}) });
      return [];
    }
    return checkedEntry(check, entry, index, seen, leftOutSchemaFiles);
  });

  const settings = manifestSettings(check, manifest, options);
  const name = manifest.name ?? manifestNameOf(file);
  if (manifest.name === undefined && nameProblem('manifest', name) !== undefined) {
    issue([], `${nameProblem('manifest', name)!}; this name comes from the manifest's path, and its tables are marked with it: give the manifest a name: of its own`);
  }
  return { file, name, named: manifest.name !== undefined, manifest: manifest as Manifest, document, settings, entries, leftOutSchemaFiles, problems: issues };
}

type IssueAt = (path: readonly PathPart[], message: string, atKey?: boolean) => void;
/** What is wrong with a file the manifest names being read, by its path; undefined when it may be. `opened`: the path as the reader opens it. */
type OutsideProblem = (what: string, path: string, opened?: string) => string | undefined;

/** One manifest being checked: its document, its problems so far and where they go, its folder and the rule on files outside it. */
interface ManifestCheck {
  document: LocatedDocument;
  issues: ValidationIssue[];
  issue: IssueAt;
  folder: string;
  outsideProblem: OutsideProblem;
}

/** The manifest's shape problems (its JSON schema's), each at its place: a misspelt key once, at the misspelling. */
function shapeIssues(document: LocatedDocument, problems: readonly z.core.$ZodIssue[], issue: IssueAt): void {
  const pathOf = (problem: z.core.$ZodIssue) => problem.path.filter((p): p is string | number => typeof p !== 'symbol');
  // A misspelt key (`dataSet:`) leaves the key it meant missing: one problem, said at the misspelling, not two.
  const meant = new Set<string>();
  for (const problem of problems) {
    if (problem.code !== 'unrecognized_keys') continue;
    const path = pathOf(problem);
    for (const key of problem.keys) {
      const near = closestMatch(key, knownKeysAt(path));
      if (near !== undefined && objectAt(document.value, ...path)[near] === undefined) meant.add(JSON.stringify([...path, near]));
    }
  }
  // Only a key the manifest needs: an optional one left out is no problem of its own.
  const needed = new Set(problems.filter((problem) => problem.code !== 'unrecognized_keys').map((problem) => JSON.stringify(pathOf(problem))));
  for (const path of meant) if (!needed.has(path)) meant.delete(path);
  for (const problem of problems) {
    const path = pathOf(problem);
    if (problem.code === 'unrecognized_keys') {
      for (const key of problem.keys) {
        const known = knownKeysAt(path);
        const near = closestMatch(key, known);
        const missing = near !== undefined && meant.has(JSON.stringify([...path, near]));
        issue([...path, key], missing ? `unknown key "${key}" (did you mean ${near}? the manifest needs it)` : `unknown key "${key}"${unknownNameSuffix(key, known)}`, true);
      }
    } else if (!meant.has(JSON.stringify(path))) {
      issue(path, friendly(problem));
    }
  }
}

/**
 * A manifest from a pull request must not make a CI job read (and send) any file it can reach: not by its path,
 * and not through a symbolic link committed inside its folder. "Inside" is decided twice, on the path as written
 * and on the real path (every link resolved), here as the manifest is loaded, before any file it names is read (a
 * link swapped in the instants between needs write access to the checkout during the run: not checked again at the
 * open); a link that stays inside is fine.
 * `opened` is the path as the reader will open it, when that differs from the one shown (`sub/../x` is opened
 * through sub, wherever it leads, but shown resolved as text).
 */
function outsideProblemOf(folder: string, allowOutsideFiles: boolean): OutsideProblem {
  let realFolder: string | undefined;
  return (what, path, opened = path) => {
    if (allowOutsideFiles) return undefined;
    if (!within(folder, path)) return `${what} ${path} is outside the manifest's folder ${folder}: move it there, or pass --allow-outside-files to read it`;
    const real = realPathOf(opened);
    if (within((realFolder ??= realPathOf(folder)), real)) return undefined;
    const how = isLink(opened) ? 'is a link to' : 'leads through a link to';
    return `${what} ${path} ${how} ${real}, outside the manifest's folder ${folder}: move it there, or pass --allow-outside-files to read it`;
  };
}

/**
 * The files an entry names. A file outside the folder is refused before anything looks at it, and only a
 * schema file that passed both checks is read (by prepare). Checked for an entry that is not well formed
 * too, whenever its file can be told, so one run lists its file problems with its other problems.
 */
function checkFiles({ folder, outsideProblem, issue }: ManifestCheck, index: number, schema: unknown, template: unknown) {
  const fromManifest = (path: string) => (isAbsolute(path) ? path : resolve(folder, path));
  const schemaFile = typeof schema === 'string' && schema !== '' ? fromManifest(schema) : undefined;
  let schemaReadable = false;
  const schemaOutside = schemaFile && outsideProblem('schema file', schemaFile);
  if (schemaOutside) issue(['dataSets', index, 'schema'], schemaOutside);
  else if (schemaFile && !existsSync(schemaFile)) issue(['dataSets', index, 'schema'], `schema file ${schemaFile} does not exist`);
  else schemaReadable = schemaFile !== undefined;
  const templateFile = typeof template === 'string' && template !== '' ? fromManifest(template) : undefined;
  const templateOutside = templateFile && outsideProblem('template', templateFile);
  if (templateOutside) issue(['dataSets', index, 'table', 'template'], templateOutside);
  else if (templateFile && !existsSync(templateFile)) issue(['dataSets', index, 'table', 'template'], `template ${templateFile} does not exist`);
  return { schemaFile, templateFile, schemaReadable };
}

/** A well-formed entry, checked: itself when the manifest found nothing wrong with it, else nothing (its schema file is read either way). */
function checkedEntry(check: ManifestCheck, entry: DataSetEntry, index: number, seen: Map<string, number>, leftOutSchemaFiles: LoadedManifest['leftOutSchemaFiles']): LoadedManifest['entries'] {
  const { document, issues, issue } = check;
  const problemsBefore = issues.length;
  const key = `${entry.datasource}/${entry.enablement ?? entry.dataset}/${entry.dataset}`;
  const first = seen.get(key);
  if (first !== undefined) issue(['dataSets', index, 'dataset'], `data set ${entry.dataset} of ${entry.datasource} (enablement ${entry.enablement ?? entry.dataset}) is listed twice (first at ${whereText(document.at(['dataSets', first, 'dataset']))})`);
  else seen.set(key, index);
  const { schemaFile, templateFile, schemaReadable } = checkFiles(check, index, entry.schema, entry.table?.template);
  if (entry.verify && !entry.verify.visible && !entry.verify.hidden) issue(['dataSets', index, 'verify'], 'name the profiles to check: visible, hidden, or both');
  for (const profile of entry.verify?.visible ?? []) {
    if (entry.verify?.hidden?.includes(profile)) issue(['dataSets', index, 'verify'], `profile ${profile} is listed as both visible and hidden`);
  }
  // Where `infer` is, found only when a message needs it.
  const inferAt = typeof entry.schema === 'object' && 'infer' in entry.schema ? lazyLocation(document, ['dataSets', index, 'schema', 'infer']) : undefined;
  // Its table is filled only when the manifest found nothing wrong with it; its schema file is read either way.
  const sampleIgnoreAt = entry.sampleCheck?.ignore ? document.at(['dataSets', index, 'sampleCheck', 'ignore']) : undefined;
  if (issues.length === problemsBefore) return [{ ...entry, index, schemaFile, templateFile, inferAt, ...(sampleIgnoreAt !== undefined ? { sampleIgnoreAt } : {}) }];
  if (schemaReadable) leftOutSchemaFiles.push({ index, dataset: entry.dataset, schemaFile: schemaFile! });
  return [];
}

/** The manifest's settings with their places, each checked: a secret's source, an endpoint or identity the run chose, a file outside the folder. */
function manifestSettings({ document, issue, outsideProblem }: ManifestCheck, manifest: Pick<Manifest, 'settings' | 'profile'>, options: ManifestOptions): LoadedManifest['settings'] {
  const settings: LoadedManifest['settings'] = new Map();
  for (const [key, raw] of Object.entries(manifest.settings ?? {})) {
    if (raw === undefined) continue;
    const value = String(raw);
    const problem = settingProblem(key, value, manifest.profile, options, outsideProblem);
    if (problem !== undefined) issue(['settings', key], problem);
    settings.set(key, locatedValue(document, ['settings', key], value));
  }
  return settings;
}

/** What is wrong with a setting the manifest gives; undefined when nothing is. */
function settingProblem(key: string, value: string, profile: string | undefined, options: ManifestOptions, outsideProblem: OutsideProblem): string | undefined {
  const runChosen = RUN_CHOSEN_KEYS.get(key);
  if (REFERENCE_KEYS.has(key)) {
    if (!isSecretReference(value)) return notAReference(key);
    // A reference runs a command or reads a file on the machine that runs the manifest.
    if (!options.allowSecrets) return `a manifest may not name where the ${key} comes from (a reference can run a command or read a file): set it in the profile, the environment or a flag, or pass --allow-manifest-secrets to trust this manifest`;
    const file = referencedFile(value);
    return file && outsideProblem(`the ${key} file`, file.shown, file.opened);
  }
  if (runChosen && !options.allowEndpoints && !sameSetting(value, options.runValue?.(key, profile))) {
    const consequence = runChosen.identity ? "dpgw would send the run's password or secret for it" : 'dpgw would send your credentials or data there';
    return `a manifest may not choose the ${runChosen.description} (${key}): ${consequence}; set it in the profile, ${runChosen.env ?? 'the environment'} or ${runChosen.flag?.split(' ')[0] ?? 'a flag'}, or pass --allow-manifest-endpoints to trust this manifest`;
  }
  if (key === 'caFile') return outsideProblem('the CA file', readPath(value), value);
  return undefined;
}

/** The file name without its extension, or the folder's name for a file named provision (examples/track/provision.yaml: track). */
export function manifestNameOf(file: string): string {
  const path = resolve(file);
  const base = basename(path).replace(/\.(ya?ml|json)$/i, '');
  return base === 'provision' ? basename(dirname(path)) : base;
}

/** Whether a manifest's value is the run's own: equal, or the same URL but for trailing slashes. */
function sameSetting(manifestValue: string, runValue: string | undefined): boolean {
  return runValue !== undefined && manifestValue.replace(/\/+$/, '') === runValue.replace(/\/+$/, '');
}

/**
 * The parts of a manifest that failed its schema which are well formed by themselves: each
 * data set entry (the others stay holes, keeping every index) and each setting. Without a
 * list of data sets there is nothing more to check, and the problems found so far stop it.
 */
function usableParts(value: unknown, issues: ValidationIssue[]): Omit<Manifest, 'dataSets'> & { dataSets: Array<DataSetEntry | undefined> } {
  const raw = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  if (!Array.isArray(raw.dataSets)) failOnIssues(issues, 'manifest');
  const settings = Object.entries(raw.settings !== null && typeof raw.settings === 'object' ? raw.settings : {}).filter(([key, setting]) => Object.hasOwn(settingsShape, key) && settingsShape[key]!.safeParse(setting).success);
  return {
    dataSets: (raw.dataSets as unknown[]).map((entry) => {
      const parsed = dataSetEntry.safeParse(entry);
      return parsed.success ? parsed.data : undefined;
    }),
    settings: Object.fromEntries(settings),
    ...(manifestSchema.shape.profile.safeParse(raw.profile).data !== undefined ? { profile: raw.profile as string } : {}),
    ...(manifestSchema.shape.name.safeParse(raw.name).data !== undefined ? { name: raw.name as string } : {}),
    ...(manifestSchema.shape.healthCheck.safeParse(raw.healthCheck).data !== undefined ? { healthCheck: raw.healthCheck as Manifest['healthCheck'] } : {}),
  };
}

/**
 * The file a `file:` reference (also under `base64:`) reads: as shown (resolved), and as the reader opens it
 * (secret-reference.ts: `~/` from the home folder, anything else as written, from the working folder).
 */
function referencedFile(reference: string): { shown: string; opened: string } | undefined {
  const inner = reference.trim().replace(/^(base64:)+/, '');
  if (!inner.startsWith('file:')) return undefined;
  const path = inner.slice('file:'.length);
  return { shown: readPath(path), opened: path.startsWith('~/') ? `${homedir()}${path.slice(1)}` : path };
}

/** A path as a setting's reader opens it: `~/` from the home folder, a relative one from the working folder. */
function readPath(path: string): string {
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : resolve(path);
}

/** Whether `path` (absolute, normalized) is `folder` or lies below it, as text. */
function within(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return !(rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest));
}

/**
 * Where a path really leads, every link resolved as the system resolves them when it opens the path (`link/..` is
 * the link's target's parent). A path that does not exist (yet) leads where its existing part leads, following a
 * dangling link too, so a link to a file that appears later is judged by where it points.
 */
function realPathOf(path: string, hops = 0): string {
  try {
    return realpathSync.native(path);
  } catch {
    // Missing, or a dangling link on the way: resolved part by part below.
  }
  const parent = dirname(path);
  if (parent === path || hops > 64) return resolve(path);
  const at = join(realPathOf(parent, hops), basename(path));
  let target: string;
  try {
    target = readlinkSync(at);
  } catch {
    return at;
  }
  return realPathOf(isAbsolute(target) ? target : `${dirname(at)}${sep}${target}`, hops + 1);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function knownKeysAt(path: readonly (string | number)[]): string[] {
  const last = path.filter((p) => typeof p === 'string');
  const tail = last[last.length - 1];
  if (path.length === 0) return Object.keys(manifestSchema.shape);
  if (tail === 'settings') return [...PROFILE_KEYS];
  if (tail === 'table') return Object.keys(tableSettings.shape);
  if (tail === 'verify') return Object.keys(verifySettings.shape);
  if (tail === 'dashboard') return Object.keys(dashboardSettings.shape);
  if (tail === 'infer') return Object.keys(inferSettings.shape);
  if (tail === 'dataSets') return Object.keys(dataSetEntry.shape);
  return [];
}

function friendly(problem: z.core.$ZodIssue): string {
  if (problem.code === 'invalid_type') return `expected ${problem.expected}${problem.message.includes('received') ? `, ${problem.message.split('received ')[1] ? `got ${problem.message.split('received ')[1]}` : ''}` : ''}`;
  if (problem.code === 'too_small' && problem.origin === 'array') return 'must list at least one entry';
  if (problem.code === 'invalid_union') return 'expected a schema file name, an inline schema (schemaName: …) or { infer: { sample: … } }';
  return problem.message;
}

