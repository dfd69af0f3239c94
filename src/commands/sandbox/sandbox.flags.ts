/** `dpgw sandbox`: the flags and the types they give its handler; sandbox.command.ts declares the command with them, and sandbox.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const sandboxOptions = (command: CommandFor<'sandbox'>, kit: OptionKit) =>
  command
    .addOption(kit.option('--port <port>', 'gateway port (0: any free port)').argParser(kit.port).default(8080))
    .addOption(kit.option('--auth-port <port>', 'identity provider port (0: any free port)').argParser(kit.port).default(8180))
    .addOption(kit.option('--query-port <port>', 'query engine port (0: any free port)').argParser(kit.port).default(8190))
    .addOption(kit.option('--dashboard-port <port>', 'dashboard tool port (0: any free port)').argParser(kit.port).default(8188))
    .addOption(kit.option('--stream-port <port>', 'message stream (Kafka protocol) port (0: any free port)').argParser(kit.port).default(9092))
    .option('--platform-version <version>', 'platform version to emulate (default 1.15.164, before the storage-touch threshold)')
    .option('--users <file>', 'YAML file of users and clients with their passwords (default: generated and printed)')
    .addOption(kit.option('--topic-delay <ms>', 'how long after enabling a data set its topic appears').argParser(kit.wholeNumber(0, 3_600_000)).default(1000))
    .addOption(kit.option('--token-lifetime <seconds>', 'lifetime of access tokens').argParser(kit.wholeNumber(1, 86_400)).default(300))
    .addOption(kit.option('--latency <ms>', 'delay every gateway answer (fault injection)').argParser(kit.wholeNumber(0, 600_000)).default(0))
    .option('--down <component...>', 'report health components DOWN, e.g. mq or mq.connection')
    .option('--log <file>', 'append every request (secrets masked) to this file as JSON lines')
    .option('--write-profile [name]', 'write the settings as a profile of config.yaml (default name: sandbox), and <name>-<user> for the other users');
export type SandboxCommand = ReturnType<typeof sandboxOptions>;
