/**
 * The edge between settings and the domain core: the resolved settings (values and where
 * each came from) become the typed options the core takes. No core module reads `Settings`;
 * the commands call these, once, and pass what they return.
 */
import type { Grant } from '../auth/grants.js';
import type { IdentityOptions, NamedIdentity, SessionOptions } from '../auth/session.js';
import { certificateAuthorities } from '../net/trust-and-proxy.js';
import type { TableSettings } from '../olap/build-table.js';
import type { ProvisionSettings } from '../provision/provision-run.js';
import { streamConnection, type StreamConnection } from '../stream/stream-connection.js';
import type { StreamCheckMode } from '../stream/stream-check-mode.js';
import { resolveSecretReference } from '../secrets/secret-reference.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { holdsControlCharacter } from '../text/terminal-text.js';
import { whereSet, type Settings } from './resolve-settings.js';
import { checkedWhenSet, optionalUrl, requireValue, requireWord, timeoutMs } from './setting-values.js';
import { SESSION_IDENTITY_KEYS } from './setting-definitions.js';

/** The session options of a run's settings; where to sign in is read and checked when first needed. */
export function sessionOptionsOf(settings: Settings, env: NodeJS.ProcessEnv): SessionOptions {
  const { values } = settings;
  let identity: IdentityOptions | undefined;
  return {
    profile: settings.profile,
    profileNamed: settings.profileSource.kind === 'flag' || settings.profileSource.kind === 'manifest',
    token: checkedWhenSet(settings, 'token', 'set DPGW_TOKEN to the access token alone'),
    grant: (checkedWhenSet(settings, 'grant', 'give password, client-credentials or device') ?? 'password') as Grant,
    username: checkedWhenSet(settings, 'username'),
    named: () => {
      const named: NamedIdentity = {};
      for (const part of SESSION_IDENTITY_KEYS) {
        const setting = values[part];
        // A default names nobody: `grant: password` by default is any session's grant.
        if (setting.value === undefined || setting.source.kind === 'default' || setting.source.kind === 'unset') continue;
        named[part] = { value: part === 'authUrl' ? optionalUrl(settings, 'authUrl')! : checkedWhenSet(settings, part)!, where: whereSet(setting) };
      }
      return named;
    },
    gateway: () => {
      // A gateway set wrongly is the gateway client's error to say; here it names no origin.
      const origin = originOf(values.gateway.value);
      return origin === undefined ? undefined : { value: origin, where: whereSet(values.gateway) };
    },
    identity: () =>
      (identity ??= {
        authUrl: optionalUrl(settings, 'authUrl'),
        realm: checkedWhenSet(settings, 'realm'),
        clientId: checkedWhenSet(settings, 'clientId'),
        clientSecret:
          values.clientSecret.value === undefined
            ? undefined
            : values.clientSecret.source.kind === 'env'
              ? { kind: 'secret', secret: values.clientSecret.value, from: values.clientSecret.source.name }
              : { kind: 'reference', reference: values.clientSecret.value, where: whereSet(values.clientSecret) },
        clientAuth: (checkedWhenSet(settings, 'clientAuth') ?? 'post') as 'post' | 'basic',
        timeoutMs: timeoutMs(settings),
        certificateAuthorities: certificateAuthorities(values.caFile.value, whereSet(values.caFile), env),
      }),
  };
}

/** The origin (scheme, host, port) of an http(s) URL; undefined for anything else. */
function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    return /^https?:$/.test(parsed.protocol) ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The settings a table definition is filled from. */
export function tableSettingsOf(settings: Settings): TableSettings {
  const value = (key: keyof Settings['values']) => settings.values[key].value;
  // The password is read only when needed (a reference may prompt or run a command), but one given in the
  // environment is known already: checked here, before any request.
  const password = settings.values.streamPassword;
  if (password.source.kind === 'env') lineSafeStreamPassword(password.value!, whereSet(password));
  return {
    streamType: requireWord(settings, 'streamType'),
    decoderClass: value('decoderClass'),
    consumerFactoryClass: value('consumerFactoryClass'),
    brokerList: value('brokerList'),
    registryUrl: value('registryUrl'),
    streamUser: streamUserOf(settings),
    streamPasswordSet: value('streamPassword') !== undefined,
    retentionDays: value('retentionDays'),
    brokerTenant: value('brokerTenant'),
    serverTenant: value('serverTenant'),
  };
}

/** The stream user, checked: it goes into the table's `sasl.jaas.config` line. */
export function streamUserOf(settings: Settings): string | undefined {
  return checkedWhenSet(settings, 'streamUser');
}

/**
 * The stream password: DPGW_STREAM_PASSWORD holds it, any other source a secret reference; else a prompt when one is
 * allowed. A line break in it would end the quoted value of the table's JAAS line and make the rest new options of the
 * store's consumer, so a control character from any source is refused before anything is sent.
 */
export async function streamPasswordOf(settings: Settings, env: NodeJS.ProcessEnv, prompt?: (message: string) => Promise<string>): Promise<string | undefined> {
  const setting = settings.values.streamPassword;
  if (setting.value === undefined) return prompt ? lineSafeStreamPassword(await prompt('Stream password:'), 'the prompt') : undefined;
  if (setting.source.kind === 'env') return lineSafeStreamPassword(setting.value, whereSet(setting));
  return lineSafeStreamPassword(await resolveSecretReference(setting.value, { where: whereSet(setting), env, label: 'stream password', prompt }), whereSet(setting));
}

function lineSafeStreamPassword(password: string, where: string): string {
  if (!holdsControlCharacter(password)) return password;
  throw new DpgwError('SETTING_INVALID', "the stream password holds a line break or another control character, which would forge options of the table's sasl.jaas.config line", {
    where,
    hint: 'set the stream password again without it; nothing was sent',
  });
}

/** The broker list as addresses: comma-separated host:port, each checked before any connection. */
export function brokerAddresses(settings: Settings): string[] {
  requireValue(settings, 'brokerList');
  return checkedWhenSet(settings, 'brokerList', 'give host:port[,host:port…], for example --broker-list kafka-0.stream:9092')!
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}

/** The stream pre-flight's mode (auto, require, off), checked. */
export function streamCheckModeOf(settings: Settings): StreamCheckMode {
  return checkedWhenSet(settings, 'streamCheck', 'give auto, require or off') as StreamCheckMode;
}

/** How dpgw reaches the brokers: the broker list, the stream user, and its password (resolved by the caller, once). */
export function streamConnectionOf(settings: Settings, password: string | undefined): StreamConnection {
  return streamConnection(brokerAddresses(settings), streamUserOf(settings), password);
}

/** The run's settings provision's steps read, around the table settings the manifest was checked with. */
export function provisionSettingsOf(settings: Settings, table: TableSettings): ProvisionSettings {
  return { table, olapSegment: requireWord(settings, 'olapSegment'), platformVersion: checkedWhenSet(settings, 'platformVersion') };
}
