/**
 * Every error's code: upper snake case, stable across releases, one per kind of failure a
 * pipeline may want to tell apart (docs/error-codes.md lists them by area, in this order; a
 * test keeps that page and this list in step). A code decides its error's exit code and kind
 * (dpgw-error.ts); an error without a code of its own is given a general one (USAGE_ERROR, FAILURE, …).
 */
import { ExitCode, type ExitCodeValue } from './exit-code.js';

export interface ErrorCodeEntry {
  exit: ExitCodeValue;
  meaning: string;
  next: string;
}

export const ERROR_CODES = {
  // Usage: flags and arguments.
  UNKNOWN_COMMAND: { exit: ExitCode.Usage, meaning: 'no command of that name', next: 'see `dpgw --help`; a close name is suggested' },
  UNKNOWN_OPTION: { exit: ExitCode.Usage, meaning: 'a flag the command does not take', next: 'see the command\'s `--help`' },
  MISSING_ARGUMENT: { exit: ExitCode.Usage, meaning: 'a required argument or flag is missing', next: 'see the command\'s `--help`' },
  INVALID_ARGUMENT: { exit: ExitCode.Usage, meaning: 'a flag\'s or argument\'s value is refused (a name, a number, a choice)', next: 'the message says what it must be' },
  CONFLICTING_ARGUMENTS: { exit: ExitCode.Usage, meaning: 'two arguments or flags that exclude each other were given', next: 'give one of them, as the hint says' },
  NAME_INVALID: { exit: ExitCode.Usage, meaning: 'a data set, schema, table, topic or profile name breaks the naming rules', next: 'the message names the character and the rule; nothing was sent' },
  PASSWORD_MISSING: { exit: ExitCode.Usage, meaning: '`dpgw login` has no password: none piped in, and no terminal to ask on', next: 'pipe it to --password-stdin, or set DPGW_PASSWORD' },
  OUTPUT_EXISTS: { exit: ExitCode.Usage, meaning: 'a file dpgw would write (--output, init\'s files) exists, empty or not (access-control render: and differs from what it would write)', next: 'pass --force to replace it, or choose another file' },
  OUTPUT_IS_LINK: { exit: ExitCode.Usage, meaning: 'a file dpgw would write (--output, --report, init\'s files, config.yaml, a cache) is a symbolic link: dpgw never writes through one', next: 'remove the link; --force, where the command has it, replaces the link itself, never its target' },
  CONFIRMATION_REQUIRED: { exit: ExitCode.Usage, meaning: 'a deletion, or a pause or resume of a table\'s consumption, needs confirmation, and there is no terminal to ask on', next: 'pass --yes to go ahead without asking; nothing was sent' },
  CONFIRMATION_MISMATCH: { exit: ExitCode.Usage, meaning: 'the name typed at the prompt is not the name to delete or replace, or a provision plan, a prune, pause or resume was not confirmed', next: 'run it again and type the name as shown (or answer yes); nothing was deleted or changed' },
  USAGE_ERROR: { exit: ExitCode.Usage, meaning: 'the command cannot run as given (a general usage error)', next: 'the message and hint say what to change' },
  // Settings and config.yaml.
  SETTING_MISSING: { exit: ExitCode.Usage, meaning: 'a setting the command needs is set nowhere', next: 'set it with its flag, variable or `dpgw config set`, as the hint says' },
  SETTING_INVALID: { exit: ExitCode.Usage, meaning: 'a setting\'s value is refused (a URL, a word, a control character, …)', next: 'fix it where the message says it was set' },
  SETTING_UNKNOWN: { exit: ExitCode.Usage, meaning: '`dpgw config` was given a setting of no known name', next: 'the hint names the closest setting' },
  PROFILE_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'the profile named is not in config.yaml', next: 'the hint lists the profiles that exist' },
  CONFIG_INVALID: { exit: ExitCode.Usage, meaning: 'config.yaml does not parse, or holds a key or value of the wrong shape', next: 'fix it at the line named, or rewrite the value with `dpgw config set`' },
  CONFIG_UNREADABLE: { exit: ExitCode.Usage, meaning: 'config.yaml exists but cannot be read', next: 'check its permissions, or point DPGW_CONFIG_DIR elsewhere' },
  CONFIG_UNSAFE: { exit: ExitCode.Usage, meaning: 'config.yaml, or its folder, can be changed by another user, so dpgw does not use it', next: 'the hint gives the chmod to run' },
  CA_FILE_INVALID: { exit: ExitCode.Usage, meaning: 'the --ca-file (or NODE_EXTRA_CA_CERTS) holds no PEM certificate', next: 'give a PEM file of CA certificates' },
  // Secret references (env:, file:, exec:, base64:, prompt).
  SECRET_REFERENCE_INVALID: { exit: ExitCode.Usage, meaning: 'a secret setting is not a reference, or a reference is malformed', next: 'write it as env:NAME, file:PATH or exec:CMD (docs/secrets.md)' },
  SECRET_UNAVAILABLE: { exit: ExitCode.Usage, meaning: 'a well-formed reference gives no secret (variable unset, file missing, command failed, empty, no terminal to ask on)', next: 'the message names the reference; check its source' },
  // Input files.
  MANIFEST_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'no provision manifest at the path given', next: 'check the path; nothing was sent' },
  MANIFEST_INVALID: { exit: ExitCode.Usage, meaning: 'the provision manifest has problems (each at its file:line:column)', next: 'fix the manifest; nothing was sent' },
  MANIFEST_NAME_REQUIRED: { exit: ExitCode.Usage, meaning: '`provision --prune` was given a manifest without `name:`: a name taken from its path is shared by every folder of that name, so its mark proves nothing', next: 'give the manifest a name: of its own; nothing was sent' },
  SCHEMA_INVALID: { exit: ExitCode.Usage, meaning: 'an analytics schema or table template has problems', next: 'fix the file at the line named; nothing was sent' },
  SYNTAX_INVALID: { exit: ExitCode.Usage, meaning: 'a YAML or JSON file (manifest, schema, template) does not parse', next: 'fix it at the file:line:column named' },
  DOCUMENT_TOO_COMPLEX: { exit: ExitCode.Usage, meaning: 'a YAML or JSON file nests too deep, or its aliases expand too far', next: 'write the values out, or nest less' },
  FILE_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'no file at a path given', next: 'check the path' },
  FILE_UNREADABLE: { exit: ExitCode.Usage, meaning: 'a file given cannot be read (permissions, a folder, an I/O error)', next: 'the message says why' },
  FILE_NOT_REGULAR: { exit: ExitCode.Usage, meaning: 'a path given is a folder, FIFO, device or socket, not a regular file', next: 'give the path of a regular file' },
  FILE_TOO_LARGE: { exit: ExitCode.Usage, meaning: 'an input file, or standard input, is larger than dpgw reads for it', next: 'the message gives the limit' },
  FILE_UNWRITABLE: { exit: ExitCode.Usage, meaning: 'a file cannot be written (a full disk, permissions, a missing folder)', next: 'the hint says what to free or fix; run again' },
  NO_USABLE_MESSAGES: { exit: ExitCode.Usage, meaning: '`schema infer` found no JSON object message to infer from', next: 'give JSON Lines or a JSON array of objects' },
  MESSAGE_FIELD_INVALID: { exit: ExitCode.Usage, meaning: 'a message field cannot become a column', next: 'rename the field where it is produced, or infer without it' },
  ACCESS_CONTROL_INVALID: { exit: ExitCode.Usage, meaning: 'the access-control file dpgw would render does not pass its own check', next: 'fix the policy settings the message names; nothing was written' },
  SANDBOX_USERS_INVALID: { exit: ExitCode.Usage, meaning: 'the sandbox\'s --users file has problems', next: 'see README "Sandbox" for its format' },
  INPUT_INVALID: { exit: ExitCode.Usage, meaning: 'an input file or value is refused (a general input error)', next: 'the message names the file or value' },
  // The platform's answers.
  REQUEST_REJECTED: { exit: ExitCode.Rejected, meaning: 'the gateway or another server refused the request (a 4xx other than 401, 403 and 429)', next: 'the message carries the server\'s reason' },
  REQUEST_FORBIDDEN: { exit: ExitCode.Rejected, meaning: 'a server answered 403: the signed-in user may not do this', next: 'sign in as a user who may, or ask for the permission' },
  REQUEST_THROTTLED: { exit: ExitCode.Rejected, meaning: 'a server answered 429 after dpgw\'s retries', next: 'wait and run again' },
  SERVER_FAILED: { exit: ExitCode.Rejected, meaning: 'a server answered 5xx after dpgw\'s retries', next: 'check `dpgw health`, then run again' },
  ANSWER_UNUSABLE: { exit: ExitCode.Rejected, meaning: 'a server answered something dpgw cannot use (a wrong shape, an unknown encoding, a link it does not follow)', next: 'check the URL setting; the message names the endpoint and the field' },
  ANSWER_TOO_LARGE: { exit: ExitCode.Rejected, meaning: 'an answer, or a run\'s answers in all, passed the bounds dpgw reads', next: 'check the URL setting (docs/secrets.md, "Answers")' },
  // Signing in.
  NOT_SIGNED_IN: { exit: ExitCode.Auth, meaning: 'no session, or one for another identity provider or grant', next: 'run `dpgw login`, or set DPGW_TOKEN' },
  SESSION_OTHER_IDENTITY: { exit: ExitCode.Auth, meaning: 'the cached session is of another user, client, grant, realm or gateway than the settings name, and no password is at hand to sign in as theirs', next: 'run the `dpgw login` the hint gives, or set DPGW_PASSWORD' },
  SIGN_IN_REFUSED: { exit: ExitCode.Auth, meaning: 'the identity provider refused the sign-in (user, password, client, grant, realm)', next: 'the hint names what to check' },
  SESSION_EXPIRED: { exit: ExitCode.Auth, meaning: 'the session ended and cannot be refreshed', next: 'run `dpgw login` again' },
  IDENTITY_PROVIDER_UNTRUSTED: { exit: ExitCode.Auth, meaning: 'the identity provider names another issuer, endpoints outside its realm, or a device sign-in page on another origin; dpgw sends it nothing', next: 'check --auth-url and --realm, or the provider\'s frontend URL' },
  AUTH_FAILED: { exit: ExitCode.Auth, meaning: 'authentication failed (a general authentication error; a 401 of a server)', next: 'the message says which server refused' },
  SIGN_IN_FAILED: { exit: ExitCode.Failure, meaning: 'the exchange with the identity provider failed in a way dpgw does not know', next: 'run with --verbose for the exchange' },
  TOKEN_CACHE_UNREADABLE: { exit: ExitCode.Failure, meaning: 'the session cache exists but cannot be read', next: 'check its permissions, or remove it and run `dpgw login`' },
  TOKEN_CACHE_LOCKED: { exit: ExitCode.Failure, meaning: 'another dpgw holds the session cache\'s lock, and has for long', next: 'wait for it, or remove the lock file the message names if no dpgw runs' },
  // Reaching servers.
  SERVER_UNREACHABLE: { exit: ExitCode.Network, meaning: 'a server could not be reached (no name, refused, no route, TLS)', next: 'check the URL setting, the network and the proxy variables' },
  SERVER_TIMEOUT: { exit: ExitCode.Network, meaning: 'a server gave no answer within --timeout', next: 'check that it is up, or allow longer with --timeout' },
  STREAM_UNREACHABLE: { exit: ExitCode.Network, meaning: 'the brokers could not be reached, or broke off the exchange', next: 'check --broker-list, or --stream-check' },
  NETWORK_ERROR: { exit: ExitCode.Network, meaning: 'a network failure (a general one)', next: 'the message names the server' },
  // The catalog.
  DATA_SOURCE_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'the catalog has no data source of that name or id', next: 'the hint names the closest one, or lists them' },
  DATA_SET_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'the data source offers no data set of that name', next: 'the hint lists what it offers' },
  ENABLEMENT_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'no enablement of that name, or none that holds the data set', next: 'the hint lists the enablements there are' },
  ENABLEMENT_AMBIGUOUS: { exit: ExitCode.Usage, meaning: 'the data set is enabled in several enablements', next: 'choose one with --enablement' },
  DATA_SET_NOT_ENABLED: { exit: ExitCode.NotFound, meaning: 'the catalog lists no enabled data set of that name (`catalog show`, and every command that takes --dataset)', next: 'run `dpgw enable` first; a misspelt name gets the nearest enabled one' },
  STORAGE_NOT_LISTED: { exit: ExitCode.Failure, meaning: 'the catalog lists no self link or no default storage for the data set, so its storage cannot be touched', next: 'check the catalog entry of the data set (`dpgw catalog show`)' },
  TOPIC_LABEL_MISSING: { exit: ExitCode.Failure, meaning: 'the data set has no topic label in the catalog', next: 'name the topic with --topic' },
  TOPIC_NOT_READY: { exit: ExitCode.Failure, meaning: 'the data set was enabled, but its topic did not appear within --wait-timeout', next: 'run the same command again later (it is safe to repeat), or raise --wait-timeout' },
  // The analytics store.
  SCHEMA_NOT_FOUND: { exit: ExitCode.NotFound, meaning: 'the store holds no schema of that name', next: 'check the name, or push it with `dpgw schema push`' },
  TABLE_NOT_FOUND: { exit: ExitCode.NotFound, meaning: 'the store holds no table of that name', next: 'check the name (`dpgw catalog datasets`), or create it' },
  NOTHING_TO_EXPORT: { exit: ExitCode.NotFound, meaning: '`dpgw export` found no table to write back (none, none of the filters\' tables, or every one left out)', next: 'the warning names each table left out and why; nothing was written' },
  NOT_FOUND: { exit: ExitCode.NotFound, meaning: 'the store holds nothing of that name (a general one)', next: 'check the name (`dpgw catalog` lists what exists)' },
  STORE_READS_NOT_EXPOSED: { exit: ExitCode.Rejected, meaning: 'the gateway does not pass reads of the store\'s schemas and tables on', next: 'ask the platform team, or check --olap-segment' },
  SCHEMA_CHANGE_REFUSED: { exit: ExitCode.Usage, meaning: 'the schema would remove or retype columns the analytics store holds, which it refuses', next: 'give the schema and its table new names; nothing of the data set was sent' },
  MESSAGES_DO_NOT_FIT: { exit: ExitCode.Usage, meaning: 'sampled messages of the topic do not carry a column of the schema, or hold values the store cannot read as its type', next: 'fix the schema (the message names each column, and the field likely meant); nothing of the table was sent' },
  TABLE_EXISTS: { exit: ExitCode.Rejected, meaning: 'the table exists already and the command was told to create it, not to reuse it', next: 'use it as it is, choose another name with --name, or run provision (it compares and updates)' },
  TABLE_DIFFERS: { exit: ExitCode.Usage, meaning: 'dpgw table create was asked for a table the store holds with other settings; it creates tables and never changes one', next: 'change it with dpgw provision (the hint says how), or give this table another name with --name; nothing was sent' },
  TABLE_OWNED_ELSEWHERE: { exit: ExitCode.Usage, meaning: 'a table the manifest lists is marked by another manifest (metadata.customConfigs "dpgw.manifest"), and this run may not take it over', next: 'pass --adopt to update it and mark it as this manifest\'s, or give the data set another table name; nothing of the data set was sent' },
  REPLACE_NEEDED: { exit: ExitCode.Usage, meaning: 'a table differs from the manifest in a field the store cannot change in place (the topic, the time column, the decoder, partitioning, replica groups, upsert, dedup), and the run may not replace it', next: 'pass --allow-replace to delete it and create it anew (its rows are lost), undo the change, or give the data set another table name; nothing of the data set was sent' },
  TABLE_UPDATE_UNSUPPORTED: { exit: ExitCode.Rejected, meaning: 'a table differs from the manifest, and the gateway cannot update tables', next: 'update it in the store by hand, or use another table name' },
  STORE_LISTING_NOT_EXPOSED: { exit: ExitCode.Rejected, meaning: 'the gateway does not list the store\'s tables (or schemas), which `table list`, `schema list` and `provision --prune` (to find the tables a manifest marked) need', next: 'ask the platform team to pass GET /api/internal/<olap>/tables (and /schemas) on; nothing was deleted' },
  STORE_DELETES_NOT_EXPOSED: { exit: ExitCode.Rejected, meaning: 'the gateway does not pass deletes of the store\'s tables and schemas on', next: 'ask the platform team, or check --olap-segment; nothing was deleted' },
  STORE_CONSUMPTION_NOT_EXPOSED: { exit: ExitCode.Rejected, meaning: 'the gateway does not pass the store\'s pause or resume of a table\'s consumption on (`table pause`, `table resume`)', next: 'ask the platform team, or an operator to send the store\'s call the hint names; nothing changed' },
  SCHEMA_IN_USE: { exit: ExitCode.Rejected, meaning: 'a schema to delete is still used by a table (seen by dpgw before sending, or refused by the store with 409)', next: 'delete the table the message names first; nothing was deleted' },
  DELETE_NOT_FINISHED: { exit: ExitCode.Failure, meaning: 'the store took the DELETE, but still held the table or schema when --timeout was over (it drops tables in the background)', next: 'check with `dpgw table get` before creating that name again, or wait longer with --timeout' },
  NOT_CONSUMING: { exit: ExitCode.Unhealthy, meaning: 'a table was created but does not consume every partition in time: unhealthy, as `table status` says it', next: 'the diagnosis ends the message (why no rows arrive, with its numbers and the next step); `dpgw table status NAME` reads the topic too' },
  RELOAD_NOT_FINISHED: { exit: ExitCode.Failure, meaning: 'the store took the reload of a table whose schema gained columns (or its force commit), but had not finished it when --wait-reload was over, or reports errors', next: 'the message says how many segments are done; the store goes on: follow the job the message names (a run again does not reload, the schema matches the store now); allow longer with --wait-reload' },
  TABLE_NOT_CONSUMING: { exit: ExitCode.Unhealthy, meaning: '`table status`: a partition of the table is not consumed, or the store reports an error for the table or a segment', next: 'the output names each partition\'s state and the store\'s reasons (docs/tables.md, "table status")' },
  TABLE_ROWS_LOST: { exit: ExitCode.Unhealthy, meaning: '`table status`: every partition is consumed, and the diagnosis finds rows that do not arrive (the decoder drops messages, rows lost to the topic\'s retention)', next: 'each diagnosis line gives its numbers and the next step ([docs/tables.md](tables.md#why-a-table-has-no-rows))' },
  // The stream.
  STREAM_USER_REFUSED: { exit: ExitCode.Auth, meaning: 'the brokers refused the stream user or its password', next: 'check --stream-user and the stream password' },
  STREAM_SASL_UNSUPPORTED: { exit: ExitCode.Auth, meaning: 'the brokers do not offer SASL SCRAM-SHA-512 for the stream user', next: 'point --broker-list at their SASL_PLAINTEXT listener' },
  TOPIC_NOT_FOUND: { exit: ExitCode.Failure, meaning: 'the table\'s topic is not on the brokers', next: 'check the data set\'s topic label, or --topic' },
  TOPIC_EMPTY: { exit: ExitCode.Failure, meaning: 'the topic holds no messages yet', next: 'produce some first, or infer from a file' },
  TOPIC_NO_LEADER: { exit: ExitCode.Failure, meaning: 'partitions of the topic have no leader', next: 'ask the platform team about the brokers' },
  STREAM_READ_FAILED: { exit: ExitCode.Failure, meaning: 'reading the topic failed with a broker\'s error', next: 'try again; the message carries the broker\'s error' },
  // The query engine.
  QUERY_FAILED: { exit: ExitCode.Rejected, meaning: 'the query engine refused or failed a statement', next: 'the message carries the engine\'s reason' },
  QUERY_ACCESS_DENIED: { exit: ExitCode.Rejected, meaning: 'the query engine denied the user the access a statement needs', next: 'check the user\'s groups and the access policy (docs/query-access.md)' },
  QUERY_TOKEN_REFUSED: { exit: ExitCode.Auth, meaning: 'the query engine refused the token', next: 'run `dpgw login`; the engine must trust the identity provider\'s keys' },
  QUERY_ENGINE_NEEDS_HTTPS: { exit: ExitCode.Auth, meaning: 'the query engine takes tokens over HTTPS only', next: 'use its https:// URL for --query-engine' },
  QUERY_TIMEOUT: { exit: ExitCode.Network, meaning: 'a statement did not finish within --timeout and was cancelled', next: 'check the engine\'s workers and queue, or allow longer with --timeout' },
  QUERY_ANSWER_UNUSABLE: { exit: ExitCode.Failure, meaning: 'the --query-engine URL answered no statement document', next: 'check that --query-engine is the query engine' },
  QUERY_NEXT_PAGE_REFUSED: { exit: ExitCode.Failure, meaning: 'the engine named a next page that is no URL, or on another origin; dpgw sends the token nowhere else', next: 'use the URL the engine knows itself by for --query-engine' },
  // The dashboard tool.
  DASHBOARD_SIGN_IN_REFUSED: { exit: ExitCode.Auth, meaning: 'the dashboard tool refused the dashboard user\'s sign-in', next: 'check --dashboard-user and the --dashboard-password reference' },
  DASHBOARD_FORBIDDEN: { exit: ExitCode.Rejected, meaning: 'the dashboard user\'s role may not create data sets, charts or dashboards', next: 'give the user the Alpha role, or one with those permissions' },
  DASHBOARD_DATABASE_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'the dashboard tool has no database connection of that name the user can see', next: 'check --dashboard-database, or ask for access to it' },
  DASHBOARD_TABLE_NOT_VISIBLE: { exit: ExitCode.Rejected, meaning: 'the query engine shows the dashboard user no such table', next: 'check the user\'s groups in the enablement; nothing was created' },
  DASHBOARD_ACCESS_DENIED: { exit: ExitCode.Rejected, meaning: 'the query engine refused the dashboard user the table\'s rows', next: 'check the user\'s groups and the access policy' },
  DASHBOARD_DATA_SET_REFUSED: { exit: ExitCode.Rejected, meaning: 'the dashboard tool could not save the SQL as a data set', next: 'run the SQL in SQL Lab to see why' },
  DASHBOARD_MAP_COLUMNS_MISSING: { exit: ExitCode.Usage, meaning: 'the table has no longitude and latitude columns for a map', next: 'map a table whose schema has them; nothing was created' },
  DASHBOARD_CSRF_MISSING: { exit: ExitCode.Failure, meaning: 'the dashboard tool gave no CSRF token and session cookie', next: 'check --dashboard-url' },
  DASHBOARD_CHART_INVALID: { exit: ExitCode.Failure, meaning: 'a chart was made but renders no points, or points outside the map', next: 'check the table\'s rows and its longitude and latitude columns' },
  // Health, checks, the sandbox, and anything else.
  HEALTH_COMPONENT_NOT_FOUND: { exit: ExitCode.Usage, meaning: 'the gateway has no health component of that name', next: 'the hint lists the known components' },
  UNHEALTHY: { exit: ExitCode.Unhealthy, meaning: 'a health check reported a status other than UP', next: 'the message names the components not UP' },
  VERIFICATION_FAILED: { exit: ExitCode.VerificationFailed, meaning: 'the access the contract requires is not in place', next: 'the message names the check, what was expected and what the engine answered' },
  SANDBOX_PORT_IN_USE: { exit: ExitCode.Failure, meaning: 'a port the sandbox needs is in use', next: 'pass other ports, or 0 for any free port' },
  UNEXPECTED_FAILURE: { exit: ExitCode.Failure, meaning: 'a failure dpgw did not foresee (a bug)', next: 'run again with --verbose and report it with the trace' },
  DATA_SET_FAILED: { exit: ExitCode.Failure, meaning: 'a data set of a provision run failed (its own error, with its code, is in the run\'s --json result)', next: 'the line names the data set and its step; fix it and run the same manifest again' },
  FAILURE: { exit: ExitCode.Failure, meaning: 'the command failed (a general failure)', next: 'the message and hint say why' },
  INTERRUPTED: { exit: ExitCode.Interrupted, meaning: 'stopped by Ctrl-C or SIGTERM', next: 'run the same command again to finish: it is safe to repeat' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
