/**
 * Every error's code: upper snake case, stable across releases, one per kind of failure a
 * pipeline may want to tell apart (docs/error-codes.md lists them; a test keeps that page
 * and this list in step). An error without a code of its own carries its kind's general one.
 */
import { ExitCode, type ExitCodeValue } from './exit-code.js';

export interface ErrorCodeEntry {
  exit: ExitCodeValue;
  meaning: string;
  next: string;
}

export const ERROR_CODES = {
  // Usage: flags and arguments, as the command line parser finds them.
  UNKNOWN_COMMAND: { exit: ExitCode.Usage, meaning: 'no command of that name', next: 'see `dpgw --help`; a close name is suggested' },
  UNKNOWN_OPTION: { exit: ExitCode.Usage, meaning: 'a flag the command does not take', next: 'see the command\'s `--help`' },
  MISSING_ARGUMENT: { exit: ExitCode.Usage, meaning: 'a required argument or flag is missing', next: 'see the command\'s `--help`' },
  INVALID_ARGUMENT: { exit: ExitCode.Usage, meaning: 'a flag\'s or argument\'s value is refused (a name, a number, a choice)', next: 'the message says what it must be' },
  USAGE_ERROR: { exit: ExitCode.Usage, meaning: 'the command cannot run as given (a general usage error)', next: 'the message and hint say what to change' },
  // Settings and input files.
  SETTING_MISSING: { exit: ExitCode.Usage, meaning: 'a setting the command needs is set nowhere', next: 'set it with its flag, variable or `dpgw config set`, as the hint says' },
  SETTING_INVALID: { exit: ExitCode.Usage, meaning: 'a setting\'s value is refused (a URL, a word, a control character, …)', next: 'fix it where the message says it was set' },
  PROFILE_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'the profile named is not in config.yaml', next: 'the hint lists the profiles that exist' },
  MANIFEST_INVALID: { exit: ExitCode.Usage, meaning: 'the provision manifest has problems (each at its file:line:column)', next: 'fix the manifest; nothing was sent' },
  SCHEMA_INVALID: { exit: ExitCode.Usage, meaning: 'an analytics schema or table template has problems', next: 'fix the file at the line named; nothing was sent' },
  INPUT_INVALID: { exit: ExitCode.Usage, meaning: 'an input file or value is refused (a general input error)', next: 'the message names the file or value' },
  // The platform's answers.
  REQUEST_REJECTED: { exit: ExitCode.Rejected, meaning: 'the gateway or another server refused the request (4xx other than 401, 5xx)', next: 'the message carries the server\'s reason' },
  ANSWER_UNUSABLE: { exit: ExitCode.Rejected, meaning: 'a server answered something dpgw cannot use (a wrong shape, an unknown encoding, a link it does not follow)', next: 'check the URL setting; the message names the endpoint and the field' },
  ANSWER_TOO_LARGE: { exit: ExitCode.Rejected, meaning: 'an answer, or a run\'s answers in all, passed the bounds dpgw reads', next: 'check the URL setting (docs/secrets.md, "Answers")' },
  // Signing in.
  NOT_SIGNED_IN: { exit: ExitCode.Auth, meaning: 'no session, or one for another identity provider', next: 'run `dpgw login`, or set DPGW_TOKEN' },
  SIGN_IN_REFUSED: { exit: ExitCode.Auth, meaning: 'the identity provider refused the sign-in (user, password, client, grant)', next: 'the hint names what to check' },
  SESSION_EXPIRED: { exit: ExitCode.Auth, meaning: 'the session ended and cannot be refreshed', next: 'run `dpgw login` again' },
  AUTH_FAILED: { exit: ExitCode.Auth, meaning: 'authentication failed (a general authentication error; a 401 of a server)', next: 'the message says which server refused' },
  // Reaching servers.
  SERVER_UNREACHABLE: { exit: ExitCode.Network, meaning: 'a server could not be reached (no name, refused, no route, TLS)', next: 'check the URL setting, the network and the proxy variables' },
  SERVER_TIMEOUT: { exit: ExitCode.Network, meaning: 'a server gave no answer within --timeout', next: 'check that it is up, or allow longer with --timeout' },
  STREAM_UNREACHABLE: { exit: ExitCode.Network, meaning: 'the brokers could not be reached, or broke off the exchange', next: 'check --broker-list, or --stream-check' },
  NETWORK_ERROR: { exit: ExitCode.Network, meaning: 'a network failure (a general one)', next: 'the message names the server' },
  // The stream and the workflow.
  STREAM_USER_REFUSED: { exit: ExitCode.Auth, meaning: 'the brokers refused the stream user or its password', next: 'check --stream-user and the stream password' },
  SCHEMA_CHANGE_REFUSED: { exit: ExitCode.Usage, meaning: 'the schema would remove or retype columns the analytics store holds, which it refuses', next: 'give the schema and its table new names; nothing of the data set was sent' },
  TABLE_EXISTS: { exit: ExitCode.Rejected, meaning: 'the table exists already and the command was told to create it, not to reuse it', next: 'use it as it is, choose another name with --name, or run provision (it compares and updates)' },
  TOPIC_NOT_FOUND: { exit: ExitCode.Failure, meaning: 'the table\'s topic is not on the brokers', next: 'check the data set\'s topic label, or --topic' },
  DATA_SET_NOT_ENABLED: { exit: ExitCode.Failure, meaning: 'the data set is not enabled in the catalog', next: 'run `dpgw enable` first' },
  NOT_CONSUMING: { exit: ExitCode.Failure, meaning: 'a table was created but does not consume every partition in time', next: 'the store\'s reason is in the message; check the stream settings the table carries' },
  FAILURE: { exit: ExitCode.Failure, meaning: 'the command failed (a general failure)', next: 'the message and hint say why' },
  UNHEALTHY: { exit: ExitCode.Unhealthy, meaning: 'a health check reported a status other than UP', next: 'the message names the components not UP' },
  VERIFICATION_FAILED: { exit: ExitCode.VerificationFailed, meaning: 'the access the contract requires is not in place', next: 'the message names the check, what was expected and what the engine answered' },
  NOT_FOUND: { exit: ExitCode.NotFound, meaning: 'the store holds no schema or table of that name', next: 'check the name (`dpgw catalog` lists what exists)' },
  INTERRUPTED: { exit: ExitCode.Interrupted, meaning: 'stopped by Ctrl-C or SIGTERM', next: 'run the same command again to finish: it is safe to repeat' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
