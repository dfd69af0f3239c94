/**
 * The command tree: names, descriptions, arguments, options and examples. Only
 * commander is loaded here; each handler module is imported when its command
 * runs, so `dpgw --help` and `dpgw --version` stay as fast as node itself.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { nameProblem, type NameKind } from '../names/platform-names.js';
import { closestMatch } from '../text/closest-match.js';
import { SETTING_DEFINITIONS, type SettingKey, type SettingScope } from '../settings/setting-definitions.js';
import type { HandlerModuleName } from './command-context.js';

/** Runs a parsed command; supplied by run-cli.ts so this module stays light. */
export type Dispatch = (module: HandlerModuleName, command: Command) => Promise<void>;

interface Example {
  command: string;
  example: string;
}

export function buildProgram(version: string, dispatch: Dispatch): Command {
  const examples: Example[] = [];
  const program = new Command('dpgw')
    .description('Provision analytics tables on a data platform gateway: sign in, enable a data set, push its schema, create its real-time table.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .optionsGroup('Output:')
    .option('--json', 'write the result as one JSON document on stdout')
    .option('-q, --quiet', 'print only results and errors')
    .option('--verbose', 'trace HTTP requests on stderr (secrets masked)')
    .option('--no-color', 'no colour, even on a terminal')
    .option('--no-input', 'never prompt; fail with the flag to pass instead')
    .optionsGroup('Settings (flag > environment > profile > default; see `dpgw config`):')
    .option('--profile <name>', 'settings profile of config.yaml (env DPGW_PROFILE)');
  for (const definition of SETTING_DEFINITIONS) {
    if (!definition.flag || definition.scope !== undefined) continue;
    program.addOption(new Option(definition.flag, `${definition.description}${definition.env ? ` (env ${definition.env})` : ''}`));
  }

  const action = (module: HandlerModuleName) =>
    async function (this: Command) {
      await dispatch(module, this);
    };
  const add = (parent: Command, name: string, description: string, example: string): Command => {
    const command = parent.command(name).description(description).helpOption('-h, --help', 'show help');
    command.addHelpText('after', `\nExample:\n  $ ${example}\n`);
    examples.push({ command: `${parent === program ? '' : parent.name() + ' '}${name.split(' ')[0]}`, example });
    return command;
  };
  const group = (name: string, description: string): Command => {
    const command = program.command(name).description(description).helpOption('-h, --help', 'show help').helpCommand(false);
    // Without a subcommand, or with an unknown one, say so in one line (commander would print the whole help).
    // [subcommand...]: a misspelt subcommand with its arguments (`schema pish file.yaml`) is still named as one.
    command.argument('[subcommand...]').usage('<command> [options]').action(function (this: Command) {
      requireSubcommand(this);
    });
    return command;
  };

  add(program, 'login', 'sign in to the identity provider with the password grant and cache the token', 'dpgw login --username admin --password-stdin < password.txt')
    .option('--password-stdin', 'read the password from standard input (else DPGW_PASSWORD, else a hidden prompt)')
    .action(action('session'));
  add(program, 'logout', 'forget the cached token of the current profile and end the session', 'dpgw logout').action(action('session'));

  const auth = group('auth', 'inspect the signed-in session');
  add(auth, 'status', 'show user, realm, groups and expiry; exit 4 when not signed in', 'dpgw auth status').action(action('session'));
  add(auth, 'token', 'print the access token for scripts, refreshing it if needed', 'curl -H "Authorization: Bearer $(dpgw auth token)" …').action(action('session'));

  add(program, 'enable', 'create (or reuse) an enablement, enable a data set in it and wait for its topic', 'dpgw enable --datasource mock-data-library --dataset track --group track-readers')
    .addOption(nameOption('--datasource <name|id>', 'data source offering the data set', 'data source').makeOptionMandatory())
    .addOption(nameOption('--dataset <name>', 'data set to enable', 'data set').makeOptionMandatory())
    .addOption(nameOption('--group <group...>', 'group(s) that may read the data set', 'group'))
    .addOption(nameOption('--enablement <name>', 'enablement name (reused when it exists)', 'enablement'))
    .option('--wait-timeout <seconds>', 'how long to wait for the topic', '120')
    .option('--dry-run', 'print the requests and send nothing')
    .action(action('enable'));

  const schema = group('schema', 'analytics schemas');
  add(schema, 'push <file>', 'validate a schema file (YAML or JSON) and store it in the analytics store', 'dpgw schema push examples/track/schema.yaml')
    .option('--dry-run', 'print the request and send nothing')
    .action(action('schema'));
  add(schema, 'validate <file>', 'check a schema file without sending it; lists every problem', 'dpgw schema validate examples/track/schema.yaml').action(action('schema'));
  const infer = add(schema, 'infer [files...]', "infer the schema from messages (JSON Lines or a JSON array; - or none: stdin; or the data set's topic), or --check them against one", 'dpgw schema infer --dataset track -o track-schema.yaml')
    .addOption(nameOption('--dataset <name>', "read the messages from this data set's topic (read-only, from the earliest offset)", 'data set'))
    .addOption(nameOption('--topic <name>', 'read the messages from this topic (no catalog lookup)', 'topic'))
    .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
    .option('--sample <n>', 'read at most this many messages (default: all of the files; 200 of a topic)')
    .addOption(nameOption('--name <name>', 'schemaName (default: the data set, else the first file name)', 'schema'))
    .option('--time-column <name>', 'the date-time column (default: the one column of epoch milliseconds near now, else time, filled with now())')
    .option('--metric <column...>', 'integer columns to make metrics (decimals are metrics already)')
    .option('--check <schema file>', 'compare the messages with this schema instead: every missing, extra or mistyped column, exit 2 when any')
    .option('-o, --output <file>', 'write the schema here (.json: JSON; else YAML) instead of printing it');
  settingOptions(infer, ['brokerList', 'streamUser', 'streamPassword']).action(action('schema'));

  const table = group('table', 'real-time tables');
  const tableOptions = (command: Command): Command => {
    command
      .addOption(nameOption('--dataset <name>', 'catalog data set whose topic feeds the table', 'data set').makeOptionMandatory())
      .requiredOption('--schema <file|name>', 'schema file, or the name of a pushed schema')
      .addOption(nameOption('--name <table>', 'table name (default: the schema name)', 'table'))
      .option('--template <file>', 'table template (default: templates/realtime-table.yaml)')
      .addOption(nameOption('--topic <name>', "topic name, overriding the data set's label", 'topic'))
      .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
      .option('--time-column <name>', 'time column, when the schema has several date-time columns or is given by name');
    return tableSettingOptions(command);
  };
  tableOptions(add(table, 'create', 'fill the table template from the data set and create the real-time table', 'dpgw table create --dataset track --schema examples/track/schema.yaml'))
    .option('--dry-run', 'print the request and send nothing')
    .action(action('table'));
  tableOptions(add(table, 'render', 'print the filled table definition (password masked)', 'dpgw table render --dataset track --schema examples/track/schema.yaml')).action(action('table'));

  const storage = group('storage', 'catalog storages');
  add(storage, 'touch', 'create store permissions by reading the default storage (platforms older than 1.15.165)', 'dpgw storage touch --dataset track')
    .addOption(nameOption('--dataset <name>', 'catalog data set', 'data set').makeOptionMandatory())
    .addOption(nameOption('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
    .option('--force', 'make the call even when the platform does not need it')
    .option('--dry-run', 'print the request and send nothing')
    .action(action('storage'));

  add(program, 'health [component]', 'show platform health; exit 6 when not UP', 'dpgw health mq')
    .option('--watch <seconds>', 'check again every few seconds (in place on a terminal) until Ctrl-C')
    .action(action('health'));

  const accessControl = group('access-control', "the query engine's access-control.properties (contract step 1)");
  scopedSettingOptions(
    add(accessControl, 'render', 'write the coordinator file that delegates access decisions to the policy engine', 'dpgw access-control render --policy-uri http://opa:8181/v1/data/dpgw/query_access/allow -o access-control.properties'),
    'access',
  )
    .option('-o, --output <file>', 'write the file here (default: standard output)')
    .action(action('access-control'));
  scopedSettingOptions(add(accessControl, 'check <file>', 'report every missing, misspelt or wrong key with file:line:column; exit 2 when any', 'dpgw access-control check /etc/trino/access-control.properties'), 'access').action(
    action('access-control'),
  );

  scopedSettingOptions(
    add(program, 'verify', 'prove in the SQL query engine that the signed-in user sees the table and gets rows, or sees nothing (contract steps 7 and 8)', 'dpgw verify --dataset track --profile analyst --wait 60'),
    'query',
  )
    .addOption(nameOption('--dataset <name>', 'the data set whose table is checked', 'data set').makeOptionMandatory())
    .addOption(nameOption('--table <name>', 'the table (default: the data set name)', 'table'))
    .addOption(new Option('--expect <outcome>', 'visible: schema, table and rows are there; hidden: none of them is').choices(['visible', 'hidden']).default('visible'))
    .option('--min-rows <n>', 'rows the SELECT must return with --expect visible', '1')
    .option('--wait <seconds>', 'with --expect visible, ask again until the checks hold or this time is up (ingestion is asynchronous)', '0')
    .action(action('verify'));

  scopedSettingOptions(
    add(program, 'dashboard', 'save the table as a data set in the dashboard tool, map it (lon, lat) on a dashboard and prove the chart renders (contract step 9)', 'dpgw dashboard --dataset track --dashboard "Tracks"'),
    'dashboard',
  )
    .addOption(nameOption('--dataset <name>', 'the data set whose table is mapped', 'data set').makeOptionMandatory())
    .addOption(nameOption('--table <name>', 'the table (default: the data set name)', 'table'))
    .option('--dashboard <title>', 'dashboard to save the chart to, found by title or created (default: the data set name)')
    .option('--chart <name>', 'chart name (default: "<table> positions")')
    .option('--rows <n>', 'rows of the data set: SELECT * FROM default.<table> LIMIT <n>', '100')
    .action(action('dashboard'));

  const provision = add(program, 'provision <manifest>', 'run the whole workflow for every data set of a manifest, in order, safe to re-run', 'dpgw provision examples/track/provision.yaml')
    .option('--plan', 'show the steps and definitions, send nothing (alias --dry-run)')
    .option('--dry-run', 'same as --plan')
    .option('--concurrency <n>', 'data sets provisioned at once', '4')
    .option('--allow-outside-files', "read schema and template files outside the manifest's folder")
    .option('--fail-fast', 'stop at the first failing data set')
    .option('--fail-on-exists', 'treat an existing table as a failure')
    .option('--detailed-exitcode', 'exit 0 when nothing changed, 7 when changes were made')
    .option('--wait-timeout <seconds>', 'how long to wait for each topic', '120');
  scopedSettingOptions(tableSettingOptions(provision), 'query').action(action('provision'));

  add(program, 'sandbox', 'run a local gateway, identity provider, query engine and dashboard tool on 127.0.0.1 to try dpgw on; Ctrl-C stops it', 'dpgw sandbox --write-profile sandbox')
    .option('--port <port>', 'gateway port (0: any free port)', '8080')
    .option('--auth-port <port>', 'identity provider port (0: any free port)', '8180')
    .option('--query-port <port>', 'query engine port (0: any free port)', '8190')
    .option('--dashboard-port <port>', 'dashboard tool port (0: any free port)', '8188')
    .option('--platform-version <version>', 'platform version to emulate (default 1.15.164, before the storage-touch threshold)')
    .option('--users <file>', 'YAML file of users and clients with their passwords (default: generated and printed)')
    .option('--topic-delay <ms>', 'how long after enabling a data set its topic appears', '1000')
    .option('--token-lifetime <seconds>', 'lifetime of access tokens', '300')
    .option('--latency <ms>', 'delay every gateway answer (fault injection)', '0')
    .option('--down <component...>', 'report health components DOWN, e.g. mq or mq.connection')
    .option('--log <file>', 'append every request (secrets masked) to this file as JSON lines')
    .option('--write-profile [name]', 'write the settings as a profile of config.yaml (default name: sandbox), and <name>-<user> for the other users')
    .action(action('sandbox'));

  add(program, 'completion <shell>', 'print the shell completion script (bash, zsh or fish): commands, options, choices and profile names', 'eval "$(dpgw completion bash)"')
    .addHelpText('after', '\nInstall:\n  bash  eval "$(dpgw completion bash)"   in ~/.bashrc\n  zsh   eval "$(dpgw completion zsh)"    in ~/.zshrc, after compinit\n  fish  dpgw completion fish > ~/.config/fish/completions/dpgw.fish\n')
    .action(action('completion'));

  const config = group('config', 'show and edit settings and profiles');
  const configHandlers: HandlerModuleName = 'config';
  add(config, 'show', 'show the effective settings and where each came from (secrets masked)', 'dpgw config show --profile dev').action(action(configHandlers));
  add(config, 'set <key> <value>', 'set a key in a profile (the current one unless --profile)', 'dpgw config set gateway https://gateway.example --profile dev').action(action(configHandlers));
  add(config, 'unset <key>', 'remove a key from a profile', 'dpgw config unset platformVersion').action(action(configHandlers));
  add(config, 'use <profile>', 'make a profile the current one', 'dpgw config use dev').action(action(configHandlers));
  add(config, 'profiles', 'list the profiles', 'dpgw config profiles').action(action(configHandlers));
  add(config, 'path', 'print the config file path', 'dpgw config path').action(action(configHandlers));
  // Plain `dpgw config` shows the settings; `dpgw config bogus` is still an unknown subcommand.
  const showConfig = action(configHandlers);
  config.action(async function (this: Command) {
    if (this.args.length > 0) requireSubcommand(this);
    await showConfig.call(this);
  });

  const width = Math.max(...examples.map((e) => e.command.length));
  program.addHelpText(
    'after',
    `\nExamples:\n${examples.map((e) => `  ${e.command.padEnd(width)}  $ ${e.example}`).join('\n')}\n\nExit codes: 0 ok, 1 failed, 2 usage or invalid input, 3 rejected by the gateway, 4 authentication, 5 network, 6 unhealthy, 7 changes made (provision --detailed-exitcode), 8 verification failed, 130 interrupted.\nDocs: README.md and docs/ in the dpgw package.\n`,
  );
  return program;
}

/** The settings of one scope (table: stream, retention, tenants, classes; access; query) as flags of a command. */
function scopedSettingOptions(command: Command, scope: SettingScope): Command {
  return settingOptions(command, SETTING_DEFINITIONS.filter((d) => d.scope === scope).map((d) => d.key));
}

const tableSettingOptions = (command: Command): Command => scopedSettingOptions(command, 'table');

/** Some settings as flags of a command. */
function settingOptions(command: Command, keys: readonly SettingKey[]): Command {
  for (const definition of SETTING_DEFINITIONS) {
    if (keys.includes(definition.key) && definition.flag) command.addOption(new Option(definition.flag, `${definition.description} (env ${definition.env}; profile key ${definition.profileKey})`));
  }
  return command;
}

function requireSubcommand(group: Command): never {
  const names = group.commands.map((c) => c.name());
  const given = group.args[0];
  const path = `dpgw ${group.name()}`;
  if (given === undefined) group.error(`${path} needs a subcommand: ${names.join(', ')}`, { code: 'dpgw.missingSubcommand', exitCode: 2 });
  // The same nearness as every other "did you mean" of dpgw (src/text/closest-match.ts).
  const near = closestMatch(given, names);
  group.error(`unknown command '${given}' for '${path}'${near ? ` (Did you mean ${near}?)` : ''}; its subcommands: ${names.join(', ')}`, { code: 'dpgw.unknownSubcommand', exitCode: 2 });
}

/** A flag that names something on the platform, checked as commander reads it: nothing is sent with a bad name. */
function nameOption(flags: string, description: string, kind: NameKind): Option {
  const check = (value: string): string => {
    const problem = nameProblem(kind, value);
    if (problem !== undefined) throw new InvalidArgumentError(problem);
    return value;
  };
  const option = new Option(flags, description);
  return option.variadic ? option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), check(value)]) : option.argParser(check);
}
