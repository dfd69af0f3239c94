/**
 * The command tree: names, descriptions, arguments, options and examples. Only
 * commander is loaded here; each handler module is imported when its command
 * runs, so `dpgw --help` loads no handler (its start-up: docs/benchmarks.md).
 */
import type * as Typed from '@commander-js/extra-typings';
import { Argument as CommanderArgument, Command as CommanderCommand, Help, InvalidArgumentError, Option as CommanderOption } from 'commander';
import { SHELLS } from './completion.js';
import { nameProblem, type NameKind } from '../names/platform-names.js';
import { closestMatch } from '../text/closest-match.js';
import { SETTING_DEFINITIONS, type SettingKey, type SettingScope } from '../settings/setting-definitions.js';
import type { HandlerModuleName } from './command-context.js';

/**
 * commander's own classes, seen through @commander-js/extra-typings: each command's options
 * and arguments are typed from its declaration below (types only: nothing more is loaded).
 */
const Command = CommanderCommand as unknown as typeof Typed.Command;
const Option = CommanderOption as unknown as typeof Typed.Option;
const Argument = CommanderArgument as unknown as typeof Typed.Argument;
export type AnyCommand = Typed.CommandUnknownOpts;

/** Runs a parsed command; supplied by run-cli.ts so this module stays light. */
export type Dispatch = (module: HandlerModuleName, command: AnyCommand) => Promise<void>;

interface Example {
  command: string;
  example: string;
}

export function buildProgram(version: string, dispatch: Dispatch): AnyCommand {
  const examples: Example[] = [];
  const program = declareProgram(version);
  declareCommands(program, toolsFor(program, dispatch, examples));
  const width = Math.max(...examples.map((e) => e.command.length));
  program.addHelpText(
    'after',
    `\nExamples:\n${examples.map((e) => `  ${e.command.padEnd(width)}  $ ${e.example}`).join('\n')}\n\nExit codes: 0 ok, 1 failed (a table that would not consume included), 2 usage or invalid input, 3 rejected by the gateway, 4 authentication (the brokers refusing the stream user included), 5 network, 6 unhealthy, 7 changes made (provision --detailed-exitcode), 8 verification failed, 9 not found (schema get, table get), 130 interrupted.\nDocs: README.md and docs/ in the dpgw package.\n`,
  );
  return program;
}

function declareProgram(version: string) {
  const program = new Command('dpgw')
    .description('Provision analytics tables on a data platform gateway: sign in, enable a data set, push its schema, create its real-time table.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    // A command's help describes its own options; the global ones are named compactly after them (globalOptionsText).
    .configureHelp({
      showGlobalOptions: false,
      sortSubcommands: false,
      optionDescription(this: Help, option: CommanderOption) {
        const described = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${described} (required)` : described;
      },
    })
    .optionsGroup('Output:')
    .option('--json', 'write the result as one JSON document on stdout')
    .option('-q, --quiet', 'print only results and errors')
    .option('--verbose', 'trace HTTP requests on stderr (secrets masked)')
    .option('--no-color', 'no colour, even on a terminal')
    .option('--no-input', 'never prompt; fail with the flag to pass instead')
    .optionsGroup('Settings (flag > environment > profile > default; see `dpgw config`):')
    .option('--profile <name>', 'settings profile of config.yaml (env DPGW_PROFILE)');
  // The settings' flags: read through resolveSettings, so they need no static type here.
  for (const definition of SETTING_DEFINITIONS) {
    if (!definition.flag || definition.scope !== undefined) continue;
    program.addOption(new Option(definition.flag, `${definition.description}${definition.env ? ` (env ${definition.env})` : ''}`));
  }
  return program;
}
type Program = ReturnType<typeof declareProgram>;

/** How a command is declared: with its example (collected for the top-level help), as a group, and wired to its handler module. */
function toolsFor(program: Program, dispatch: Dispatch, examples: Example[]) {
  const globals = globalOptionsText(program);
  const action = (module: HandlerModuleName) =>
    async function (this: AnyCommand) {
      await dispatch(module, this);
    };
  const add = <Usage extends string, Args extends unknown[], Opts extends Typed.OptionValues, Global extends Typed.OptionValues>(
    parent: Typed.Command<Args, Opts, Global>,
    name: Usage,
    description: string,
    example: string,
  ) => {
    const command = parent.command(name).description(description).helpOption('-h, --help', 'show help');
    command.addHelpText('after', `\nExample:\n  $ ${example}\n${globals}`);
    examples.push({ command: `${(parent as unknown) === program ? '' : parent.name() + ' '}${name.split(' ')[0]}`, example });
    return command;
  };
  const group = (name: string, description: string) => {
    const command = program.command(name).description(description).helpOption('-h, --help', 'show help').helpCommand(false);
    command.addHelpText('after', globals);
    // Without a subcommand, or with an unknown one, say so in one line (commander would print the whole help).
    // [subcommand...]: a misspelt subcommand with its arguments (`schema pish file.yaml`) is still named as one.
    command.argument('[subcommand...]').usage('<command> [options]').action(function (this: AnyCommand) {
      requireSubcommand(this);
    });
    return command;
  };
  return { action, add, group };
}

/** The global options by name only, wrapped: `dpgw --help` describes them. */
function globalOptionsText(program: Program): string {
  const names = (program as unknown as AnyCommand).options.map((option) => option.flags.replace(/^-\w, /, ''));
  const lines: string[] = [];
  let line = ' ';
  for (const name of names) {
    const next = `${line} ${name}${name === names.at(-1) ? '' : ','}`;
    if (next.length > 80 && line.trim() !== '') {
      lines.push(line);
      line = `  ${name}${name === names.at(-1) ? '' : ','}`;
    } else line = next;
  }
  lines.push(line);
  return `\nGlobal options (\`dpgw --help\` describes them):\n${lines.join('\n')}\n`;
}

/**
 * Every command, returned by its path so each handler takes its options' type from here
 * (OptionsOf<'enable'>): a flag renamed here is a type error in its handler.
 */
function declareCommands(program: Program, { action, add, group }: ReturnType<typeof toolsFor>) {
  const login = add(program, 'login', 'sign in to the identity provider with the password grant and cache the token', 'dpgw login --username admin --password-stdin < password.txt')
    .option('--password-stdin', 'read the password from standard input (else DPGW_PASSWORD, else a hidden prompt)')
    .action(action('session'));
  const logout = add(program, 'logout', 'forget the cached token of the current profile and end the session', 'dpgw logout').action(action('session'));

  const auth = group('auth', 'inspect the signed-in session');
  const authStatus = add(auth, 'status', 'show user, realm, groups and expiry; exit 4 when not signed in', 'dpgw auth status').action(action('session'));
  const authToken = add(auth, 'token', 'print the access token for scripts, refreshing it if needed', 'curl -H "Authorization: Bearer $(dpgw auth token)" …').action(action('session'));

  const enable = add(program, 'enable', 'create (or reuse) an enablement, enable a data set in it and wait for its topic', 'dpgw enable --datasource mock-data-library --dataset track --group track-readers')
    .addOption(nameOption('--datasource <name|id>', 'data source offering the data set', 'data source').makeOptionMandatory())
    .addOption(nameOption('--dataset <name>', 'data set to enable', 'data set').makeOptionMandatory())
    .addOption(nameListOption('--group <group...>', 'group(s) that may read the data set', 'group'))
    .addOption(nameOption('--enablement <name>', 'enablement name (reused when it exists)', 'enablement'))
    .addOption(new Option('--wait-timeout <seconds>', 'how long to wait for the topic').argParser(seconds).default(120))
    .option('--dry-run', 'print the requests and send nothing')
    .action(action('enable'));

  const schema = group('schema', 'analytics schemas');
  const schemaPush = add(schema, 'push <file>', 'validate a schema file (YAML or JSON) and store it in the analytics store', 'dpgw schema push examples/track/schema.yaml')
    .option('--dry-run', 'print the request and send nothing')
    .action(action('schema'));
  const schemaGet = add(schema, 'get <name>', 'print the schema the analytics store holds (YAML; --json: the store\'s JSON)', 'dpgw schema get track')
    .action(action('store-read'));
  const schemaValidate = add(schema, 'validate <file>', 'check a schema file without sending it; lists every problem', 'dpgw schema validate examples/track/schema.yaml').action(action('schema'));
  const schemaInfer = settingOptions(
    add(schema, 'infer [files...]', "infer the schema from messages (JSON Lines or a JSON array; - or none: stdin; or the data set's topic), or --check them against one", 'dpgw schema infer --dataset track -o track-schema.yaml')
      .addOption(nameOption('--dataset <name>', "read the messages from this data set's topic (read-only, from the earliest offset)", 'data set'))
      .addOption(nameOption('--topic <name>', 'read the messages from this topic (no catalog lookup)', 'topic'))
      .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
      .addOption(new Option('--sample <n>', 'read at most this many messages (default: all of the files; 200 of a topic)').argParser(wholeNumber(1, 10_000_000, 'number of messages')))
      .addOption(nameOption('--name <name>', 'schemaName (default: the data set, else the first file name)', 'schema'))
      .option('--time-column <name>', 'the date-time column (default: the one column of epoch milliseconds near now, else time, filled with now())')
      .option('--metric <column...>', 'integer columns to make metrics (decimals are metrics already)')
      .option('--check <schema file>', 'compare the messages with this schema instead: every missing, extra or mistyped column, exit 2 when any')
      .option('-o, --output <file>', 'write the schema here (.json: JSON; else YAML) instead of printing it'),
    ['brokerList', 'streamUser', 'streamPassword'],
  ).action(action('schema'));

  const table = group('table', 'real-time tables');
  // create and render take the same options.
  const tableCommand = (name: 'create' | 'render', description: string, example: string) =>
    scopedSettingOptions(
      add(table, name, description, example)
        .addOption(nameOption('--dataset <name>', 'catalog data set whose topic feeds the table', 'data set').makeOptionMandatory())
        .requiredOption('--schema <file|name>', 'schema file, or the name of a pushed schema')
        .addOption(nameOption('--name <table>', 'table name (default: the schema name)', 'table'))
        .option('--template <file>', 'table template (default: templates/realtime-table.yaml)')
        .addOption(nameOption('--topic <name>', "topic name, overriding the data set's label", 'topic'))
        .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
        .option('--time-column <name>', 'time column, when the schema has several date-time columns or is given by name'),
      'table',
    );
  const tableCreate = tableCommand('create', 'check the stream, fill the table template from the data set, create the real-time table and wait until it consumes', 'dpgw table create --dataset track --schema examples/track/schema.yaml')
    .option('--no-stream-check', "send the table without first signing in to the brokers and finding its topic (where dpgw cannot reach the brokers the store reaches)")
    .addOption(new Option('--wait-consuming <seconds>', 'after creating, wait this long for the store to consume every partition (0: do not check)').argParser(seconds).default(60))
    .option('--dry-run', 'print the request and send nothing')
    .action(action('table'));
  const tableRender = tableCommand('render', 'print the filled table definition (password masked)', 'dpgw table render --dataset track --schema examples/track/schema.yaml').action(action('table'));

  const catalog = group('catalog', 'look up the catalog: data sources, what they offer, enablements, enabled data sets (GET only)');
  const catalogSources = add(catalog, 'sources', 'list the data sources', 'dpgw catalog sources').action(action('catalog'));
  const catalogOffers = add(catalog, 'offers [pattern]', 'list the data sets the data sources offer, and the enablements each is enabled in', 'dpgw catalog offers --datasource mock-data-library')
    .addOption(nameOption('--datasource <name|id>', 'only this data source', 'data source'))
    .option('--name <pattern>', "only data sets whose name matches (* and ? as wildcards; quote it: 'tr*'); also as the argument")
    .action(action('catalog'));
  const catalogEnablements = add(catalog, 'enablements', 'list the enablements and the groups that may read their data sets', 'dpgw catalog enablements --datasource mock-data-library')
    .addOption(nameOption('--datasource <name|id>', 'only this data source', 'data source'))
    .addOption(nameOption('--enablement <name|id>', 'only this enablement', 'enablement'))
    .action(action('catalog'));
  const catalogDataSets = add(catalog, 'datasets [pattern]', 'list the enabled data sets: data source, enablement, groups, topic, storages (* the default), self link', "dpgw catalog datasets --name 'tr*'")
    .addOption(nameOption('--datasource <name|id>', 'only this data source', 'data source'))
    .addOption(nameOption('--enablement <name|id>', 'only this enablement', 'enablement'))
    .option('--name <pattern>', "only data sets whose name matches (* and ? as wildcards; quote it: 'tr*'); also as the argument")
    .action(action('catalog'));
  const catalogShow = add(catalog, 'show <dataset>', 'everything about one enabled data set: ids, topic, storages, groups, the storage touch path, and whether its table exists', 'dpgw catalog show track')
    .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
    .action(action('catalog'));

  const tableGet = add(table, 'get <name>', 'print the table the analytics store holds, as it stores it (YAML; --json: the store\'s JSON; the stream password masked)', 'dpgw table get track')
    .action(action('store-read'));

  const storage = group('storage', 'catalog storages');
  const storageTouch = add(storage, 'touch', 'create store permissions by reading the default storage (platforms older than 1.15.165)', 'dpgw storage touch --dataset track')
    .addOption(nameOption('--dataset <name>', 'catalog data set', 'data set').makeOptionMandatory())
    .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
    .option('--force', 'make the call even when the platform does not need it')
    .option('--dry-run', 'print the request and send nothing')
    .action(action('storage'));

  const health = add(program, 'health [component]', 'show platform health; exit 6 when not UP', 'dpgw health mq')
    .addOption(new Option('--watch <seconds>', 'check again every few seconds (in place on a terminal) until Ctrl-C').argParser(positiveSeconds))
    .action(action('health'));

  const accessControl = group('access-control', "the query engine's access-control.properties (contract step 1)");
  const accessControlRender = scopedSettingOptions(
    add(accessControl, 'render', 'write the coordinator file that delegates access decisions to the policy engine', 'dpgw access-control render --policy-uri http://opa:8181/v1/data/dpgw/query_access/allow -o access-control.properties'),
    'access',
  )
    .option('-o, --output <file>', 'write the file here (default: standard output)')
    .action(action('access-control'));
  const accessControlCheck = scopedSettingOptions(
    add(accessControl, 'check <file>', 'report every missing, misspelt or wrong key with file:line:column; exit 2 when any', 'dpgw access-control check /etc/trino/access-control.properties'),
    'access',
  ).action(action('access-control'));

  const verify = scopedSettingOptions(
    add(program, 'verify', 'prove in the SQL query engine that the signed-in user sees the table and gets rows, or sees nothing (contract steps 7 and 8)', 'dpgw verify --dataset track --profile sandbox-analyst --wait 60'),
    'query',
  )
    .addOption(nameOption('--dataset <name>', 'the data set whose table is checked', 'data set').makeOptionMandatory())
    .addOption(nameOption('--table <name>', 'the table (default: the data set name)', 'table'))
    .addOption(new Option('--expect <outcome>', 'visible: schema, table and rows are there; hidden: none of them is').choices(['visible', 'hidden'] as const).default('visible' as const))
    .addOption(new Option('--min-rows <n>', 'rows the SELECT must return with --expect visible').argParser(wholeNumber(0, 1_000_000_000)).default(1))
    .addOption(new Option('--wait <seconds>', 'with --expect visible, ask again until the checks hold or this time is up (ingestion is asynchronous)').argParser(seconds).default(0))
    .action(action('verify'));

  const dashboard = scopedSettingOptions(
    add(program, 'dashboard', 'save the table as a data set in the dashboard tool, map it (lon, lat) on a dashboard and prove the chart renders (contract step 9)', 'dpgw dashboard --dataset track --dashboard "Tracks"'),
    'dashboard',
  )
    .addOption(nameOption('--dataset <name>', 'the data set whose table is mapped', 'data set').makeOptionMandatory())
    .addOption(nameOption('--table <name>', 'the table (default: the data set name)', 'table'))
    .option('--dashboard <title>', 'dashboard to save the chart to, found by title or created (default: the data set name)')
    .option('--chart <name>', 'chart name (default: "<table> positions")')
    .addOption(new Option('--rows <n>', 'rows of the data set: SELECT * FROM default.<table> LIMIT <n>').argParser(wholeNumber(1, 100_000, 'row count')).default(100))
    .action(action('dashboard'));

  const provision = scopedSettingOptions(
    scopedSettingOptions(
      add(program, 'provision <manifest>', 'run the whole workflow for every data set of a manifest, in order, safe to re-run', 'dpgw provision examples/track/provision.yaml')
        .option('--plan', 'show the steps and definitions, send nothing (alias --dry-run)')
        .option('--dry-run', 'same as --plan')
        .addOption(new Option('--concurrency <n>', 'data sets provisioned at once').argParser(wholeNumber(1, 64, 'concurrency')).default(4))
        .option('--allow-outside-files', "read schema, template and secret files outside the manifest's folder")
        .option('--allow-manifest-endpoints', "let the manifest's settings choose the gateway, identity provider, query engine, dashboard tool, brokers, registry or CA file")
        .option('--allow-manifest-secrets', "let the manifest's settings name secret references (env:, file:, exec: runs a command)")
        .option('--fail-fast', 'stop at the first failing data set')
        .option('--fail-on-exists', 'treat an existing table as a failure')
        .option('--detailed-exitcode', 'exit 0 when nothing changed, 7 when changes were made')
        .addOption(new Option('--wait-timeout <seconds>', 'how long to wait for each topic').argParser(seconds).default(120))
        .option('--no-stream-check', "send tables without first signing in to the brokers and finding each topic (where dpgw cannot reach the brokers the store reaches)")
        .addOption(new Option('--wait-consuming <seconds>', "after each table step, wait this long for the store to consume every partition (0: do not check)").argParser(seconds).default(60)),
      'table',
    ),
    'query',
  ).action(action('provision'));

  const sandbox = add(program, 'sandbox', 'run a local gateway, identity provider, message stream, query engine and dashboard tool on 127.0.0.1 to try dpgw on; Ctrl-C stops it', 'dpgw sandbox --write-profile sandbox')
    .addOption(new Option('--port <port>', 'gateway port (0: any free port)').argParser(port).default(8080))
    .addOption(new Option('--auth-port <port>', 'identity provider port (0: any free port)').argParser(port).default(8180))
    .addOption(new Option('--query-port <port>', 'query engine port (0: any free port)').argParser(port).default(8190))
    .addOption(new Option('--dashboard-port <port>', 'dashboard tool port (0: any free port)').argParser(port).default(8188))
    .addOption(new Option('--stream-port <port>', 'message stream (Kafka protocol) port (0: any free port)').argParser(port).default(9092))
    .option('--platform-version <version>', 'platform version to emulate (default 1.15.164, before the storage-touch threshold)')
    .option('--users <file>', 'YAML file of users and clients with their passwords (default: generated and printed)')
    .addOption(new Option('--topic-delay <ms>', 'how long after enabling a data set its topic appears').argParser(wholeNumber(0, 3_600_000)).default(1000))
    .addOption(new Option('--token-lifetime <seconds>', 'lifetime of access tokens').argParser(wholeNumber(1, 86_400)).default(300))
    .addOption(new Option('--latency <ms>', 'delay every gateway answer (fault injection)').argParser(wholeNumber(0, 600_000)).default(0))
    .option('--down <component...>', 'report health components DOWN, e.g. mq or mq.connection')
    .option('--log <file>', 'append every request (secrets masked) to this file as JSON lines')
    .option('--write-profile [name]', 'write the settings as a profile of config.yaml (default name: sandbox), and <name>-<user> for the other users')
    .action(action('sandbox'));

  const completion = add(program, 'completion', 'print the shell completion script (bash, zsh or fish): commands, options, choices and profile names', 'eval "$(dpgw completion bash)"')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText('after', '\nInstall:\n  bash  eval "$(dpgw completion bash)"   in ~/.bashrc\n  zsh   eval "$(dpgw completion zsh)"    in ~/.zshrc, after compinit\n  fish  dpgw completion fish > ~/.config/fish/completions/dpgw.fish\n')
    .action(action('completion'));

  const config = group('config', 'show and edit settings and profiles');
  const configShow = add(config, 'show', 'show the effective settings and where each came from (secrets masked)', 'dpgw config show --profile dev').action(action('config'));
  const configSet = add(config, 'set <key> <value>', 'set a key in a profile (the current one unless --profile)', 'dpgw config set gateway https://gateway.example --profile dev').action(action('config'));
  const configUnset = add(config, 'unset <key>', 'remove a key from a profile', 'dpgw config unset platformVersion').action(action('config'));
  const configUse = add(config, 'use <profile>', 'make a profile the current one', 'dpgw config use dev').action(action('config'));
  const configProfiles = add(config, 'profiles', 'list the profiles', 'dpgw config profiles').action(action('config'));
  const configPath = add(config, 'path', 'print the config file path', 'dpgw config path').action(action('config'));
  // Plain `dpgw config` shows the settings; `dpgw config bogus` is still an unknown subcommand.
  const showConfig = action('config');
  config.action(async function (this: AnyCommand) {
    if (this.args.length > 0) requireSubcommand(this);
    await showConfig.call(this);
  });

  return {
    login,
    logout,
    'auth status': authStatus,
    'auth token': authToken,
    enable,
    'schema push': schemaPush,
    'schema get': schemaGet,
    'schema validate': schemaValidate,
    'schema infer': schemaInfer,
    'table create': tableCreate,
    'table render': tableRender,
    'table get': tableGet,
    'catalog sources': catalogSources,
    'catalog offers': catalogOffers,
    'catalog enablements': catalogEnablements,
    'catalog datasets': catalogDataSets,
    'catalog show': catalogShow,
    'storage touch': storageTouch,
    health,
    'access-control render': accessControlRender,
    'access-control check': accessControlCheck,
    verify,
    dashboard,
    provision,
    sandbox,
    completion,
    config: configShow,
    'config show': configShow,
    'config set': configSet,
    'config unset': configUnset,
    'config use': configUse,
    'config profiles': configProfiles,
    'config path': configPath,
  };
}

/** Every command by its path, as declared. */
export type Commands = ReturnType<typeof declareCommands>;
export type CommandName = keyof Commands;
/** A command's options merged with the global ones, typed from its declaration. */
export type OptionsOf<Name extends CommandName> = ReturnType<Commands[Name]['optsWithGlobals']>;
/** A command's positional arguments, typed from its declaration. */
export type ArgsOf<Name extends CommandName> = Commands[Name]['processedArgs'];

/** The settings of one scope (table: stream, retention, tenants, classes; access; query) as flags of a command. */
function scopedSettingOptions<C extends AnyCommand>(command: C, scope: SettingScope): C {
  return settingOptions(command, SETTING_DEFINITIONS.filter((d) => d.scope === scope).map((d) => d.key));
}

/** Some settings as flags of a command; read through resolveSettings, so their flags need no static type. */
function settingOptions<C extends AnyCommand>(command: C, keys: readonly SettingKey[]): C {
  for (const definition of SETTING_DEFINITIONS) {
    if (keys.includes(definition.key) && definition.flag) command.addOption(new Option(definition.flag, `${definition.description} (env ${definition.env}; profile key ${definition.profileKey})`));
  }
  return command;
}

function requireSubcommand(group: AnyCommand): never {
  const names = group.commands.map((c) => c.name());
  const given = group.args[0];
  const path = `dpgw ${group.name()}`;
  if (given === undefined) group.error(`${path} needs a subcommand: ${names.join(', ')}`, { code: 'dpgw.missingSubcommand', exitCode: 2 });
  // The same nearness as every other "did you mean" of dpgw (src/text/closest-match.ts).
  const near = closestMatch(given, names);
  group.error(`unknown command '${given}' for '${path}'${near ? ` (Did you mean ${near}?)` : ''}; its subcommands: ${names.join(', ')}`, { code: 'dpgw.unknownSubcommand', exitCode: 2 });
}

/** A name is refused as commander reads the flag (src/names/platform-names.ts): nothing is sent with a bad name. */
function checkedName(kind: NameKind, value: string): string {
  const problem = nameProblem(kind, value);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value;
}

/** A flag that names one thing on the platform. */
function nameOption<Usage extends string>(flags: Usage, description: string, kind: NameKind) {
  return new Option(flags, description).argParser((value: string) => checkedName(kind, value));
}

/** A flag that names several (`--group a --group b`, or `--group a b`). */
function nameListOption<Usage extends string>(flags: Usage, description: string, kind: NameKind) {
  return new Option(flags, description).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), checkedName(kind, value)]);
}

// Numbers are checked as commander reads them, so a handler gets a number, never a string to check.
function seconds(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a number of seconds (0 or more)`);
  return parsed;
}

function positiveSeconds(value: string): number {
  const parsed = seconds(value);
  if (parsed <= 0) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a number of seconds above 0`);
  return parsed;
}

function wholeNumber(min: number, max: number, what = 'whole number'): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a ${what} from ${min} to ${max}`);
    return parsed;
  };
}

function port(value: string): number {
  return wholeNumber(0, 65_535, 'port number')(value);
}
