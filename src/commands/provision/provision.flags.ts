/** `dpgw provision <manifest>`: the flags and the types they give its handler; provision.command.ts declares the command with them, and provision.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { DEFAULT_TOPIC_SAMPLE } from '../../schema-inference/sample-size.js';
import { DEFAULT_WAIT_RELOAD_SECONDS } from '../../provision/steps/wait-reload.js';

export const provisionOptions = (command: CommandFor<'provision [manifest]'>, kit: OptionKit) =>
  (['table', 'query', 'create'] as const).reduce(
    (withSettings, scope) => kit.scopedSettings(withSettings, scope),
    command
      .option('--plan', 'show the steps and definitions, send nothing (alias --dry-run)')
      .option('--dry-run', 'same as --plan')
      .addOption(kit.option('--concurrency <n>', 'data sets provisioned at once').argParser(kit.wholeNumber(1, 64, 'concurrency')).default(4))
      .option('--allow-outside-files', "read schema, template and secret files outside the manifest's folder")
      .option('--allow-manifest-endpoints', "let the manifest's settings choose the gateway, identity provider, query engine, dashboard tool, brokers, registry, CA file, or the realm, client and users signed in as")
      .option('--allow-manifest-secrets', "let the manifest's settings name secret references (env:, file:, exec: runs a command)")
      .option('--fail-fast', 'stop at the first failing data set')
      .option('--fail-on-exists', 'treat an existing table as a failure')
      .option('--adopt', "take over the tables another manifest marked: update them and mark them with this manifest's name (without it they are refused, exit 2, nothing of their data sets sent)")
      .option('--allow-replace', "replace the tables whose change the store cannot make in place (the topic, time column, decoder, partitioning, replica groups, upsert, dedup): delete each and create it anew, losing its rows (without it: at a terminal, asks for each table's name; in a script they are refused, exit 2, nothing of their data sets sent)")
      .option('--prune', "delete the tables marked with this manifest's name that it no longer lists, then their schemas no table uses (at a terminal: asks first)")
      .option('-y, --yes', 'apply without asking: at a terminal a run shows its plan and asks first (and --prune needs it without a terminal)')
      .option('--detailed-exitcode', 'exit 0 when nothing changed, 7 when changes were made')
    .addOption(kit.option('--report <kind=file>', 'also write a report GitLab shows in a merge request: junit=FILE (a test case per data set) or codequality=FILE (manifest problems and failures at their lines); repeatable').argParser(kit.keyedFiles(['junit', 'codequality'] as const)))
    .addOption(kit.option('--format <format>', 'how the plan or the summary is printed: text, or markdown (a table for a pull-request comment)').choices(['text', 'markdown'] as const).default('text' as const))
      .addOption(kit.option('--wait-timeout <seconds>', 'how long to wait for each topic').argParser(kit.seconds).default(120))
      .option('--no-stream-check', 'same as --stream-check off: send tables without first signing in to the brokers and finding each topic')
      .addOption(kit.option('--sample <n>', "messages of each topic held against its schema before the table is sent").argParser(kit.wholeNumber(1, 10_000, 'sample')).default(DEFAULT_TOPIC_SAMPLE))
      .option('--no-sample-check', "send tables without first holding the topic's messages against the schema")
      .addOption(kit.option('--sample-ignore <column>', "a column each data set's schema has, which the sample check passes unjudged (per data set: sampleCheck.ignore); repeatable").argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]))
      .addOption(kit.option('--wait-consuming <seconds>', 'after each table step, wait this long for the store to consume every partition (0: do not check)').argParser(kit.seconds).default(60))
      .addOption(kit.option('--wait-reload <seconds>', "after a schema gains columns, wait this long for the store to reload its table's segments (0: send the reload, do not wait)").argParser(kit.seconds).default(DEFAULT_WAIT_RELOAD_SECONDS))
      .option('--force-commit', "after such a reload, commit the table's consuming segments now, so the rows from then on carry the new columns (it makes small segments)"),
  );
export type ProvisionCommand = ReturnType<typeof provisionOptions>;
