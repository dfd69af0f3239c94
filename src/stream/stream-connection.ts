/**
 * How dpgw itself reaches the message stream (to read a topic's messages): the same
 * settings the table definition carries for the analytics store — broker list, stream
 * user and the stream password reference — with SASL_PLAINTEXT and SCRAM-SHA-512.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import { resolveSecretReference } from '../secrets/secret-reference.js';
import { whereSet, type Settings } from '../settings/resolve-settings.js';
import { checkedWhenSet, requireValue } from '../settings/setting-values.js';

export interface StreamConnection {
  brokers: string[];
  /** Unset: the brokers are reached without SASL. */
  username?: string;
  password?: string;
}

export interface StreamSecretInputs {
  settings: Settings;
  env: NodeJS.ProcessEnv;
  prompt?: (message: string) => Promise<string>;
}

/** The stream password: DPGW_STREAM_PASSWORD holds it, any other source a secret reference; else a prompt when one is allowed. */
export async function resolveStreamPassword(inputs: StreamSecretInputs): Promise<string | undefined> {
  const setting = inputs.settings.values.streamPassword;
  if (setting.value === undefined) return inputs.prompt ? inputs.prompt('Stream password:') : undefined;
  if (setting.source.kind === 'env') return setting.value;
  return resolveSecretReference(setting.value, { where: whereSet(setting), env: inputs.env, label: 'stream password', prompt: inputs.prompt });
}

/** The broker list as addresses: comma-separated host:port, each checked before any connection. */
export function brokerAddresses(settings: Settings): string[] {
  requireValue(settings, 'brokerList');
  return checkedWhenSet(settings, 'brokerList', 'give host:port[,host:port…], for example --broker-list kafka-0.stream:9092')!
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}

export async function streamConnection(inputs: StreamSecretInputs): Promise<StreamConnection> {
  const needsPassword = inputs.settings.values.streamUser.value !== undefined;
  return connectionWith(inputs.settings, needsPassword ? await resolveStreamPassword(inputs) : undefined);
}

/** The connection with a stream password resolved already (provision resolves it once for the tables too). */
export function connectionWith(settings: Settings, password: string | undefined): StreamConnection {
  const brokers = brokerAddresses(settings);
  const username = settings.values.streamUser.value;
  if (username === undefined) return { brokers };
  if (password === undefined) {
    throw new DpgwError('usage', `stream user ${username} needs the stream password, and there is no terminal to ask for it`, {
      where: 'streamPassword',
      hint: 'set DPGW_STREAM_PASSWORD, or pass --stream-password env:NAME | file:PATH | exec:CMD',
    });
  }
  return { brokers, username, password };
}
