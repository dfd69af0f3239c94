/**
 * Sessions: signing in, the token every gateway call takes, refreshing it, and
 * signing out. One place decides where a token comes from:
 *   DPGW_TOKEN (a raw bearer for pipelines) > the profile's token cache > none.
 * A cached session serves a run only when it is of the identity the run's settings name
 * (identity provider, realm, client, grant, user) and for the run's gateway: another one
 * never acts in its place (lookUpSession).
 * An access token near its expiry is refreshed before the call; a 401 from the
 * gateway asks for a forced refresh once (http-transport.ts).
 */
import { plainHttpWarning } from '../net/plain-http.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { DpgwError } from '../errors/dpgw-error.js';
import type { TokenSupplier } from '../gateway/http-transport.js';
import { registerSecret } from '../secrets/redaction.js';
import { resolveSecretReference } from '../secrets/secret-reference.js';
import { missingSetting, missingSettings, SESSION_IDENTITY_KEYS } from '../settings/setting-definitions.js';
import type { DeviceCode, IdentityClient, IdentitySettings, IssuedTokens } from './identity-client.js';
import { readClaims } from './jwt-claims.js';
import type { Grant } from './grants.js';
import { serverText } from '../text/terminal-text.js';
import { TokenCache, type CachedSession, type StoredSession } from './token-cache.js';

/** Who signs in where, as the run's settings name it (settings/core-options.ts maps them). */
export interface SessionOptions {
  profile: string;
  /** The profile was named (--profile, a manifest): a hint to sign in names it too. */
  profileNamed: boolean;
  /** DPGW_TOKEN: a bearer token used as is, over the token cache. */
  token?: string;
  /** How to sign in: the password grant (default), the client's service account, or a device code approved in a browser. */
  grant: Grant;
  username?: string;
  /**
   * The identity the settings name, each part with where it was set; a part they leave unset
   * (or at its default, as the grant's `password`) is not named, and any session's serves.
   */
  named(): NamedIdentity;
  /** The origin of the run's gateway and where it was set, when one is: a cached token goes to the gateway it was signed in for only. */
  gateway(): Named | undefined;
  /**
   * Where and how to sign in, read when a sign-in, a refresh or a sign-out needs it: a value
   * set wrongly is an error then, and a command that needs no identity provider never meets it.
   */
  identity(): IdentityOptions;
}

/** A value of the settings and where it was set (`--username`, `DPGW_USERNAME`, config.yaml:3:15). */
export interface Named {
  value: string;
  where: string;
}

export type IdentityPart = (typeof SESSION_IDENTITY_KEYS)[number];
export type NamedIdentity = Partial<Record<IdentityPart, Named>>;

export interface IdentityOptions {
  /** Checked already: an http(s) URL without a trailing slash. */
  authUrl?: string;
  realm?: string;
  clientId?: string;
  clientSecret?: ClientSecretSource;
  clientAuth: 'post' | 'basic';
  timeoutMs: number;
  certificateAuthorities?: string[];
}

/** The client secret itself (DPGW_CLIENT_SECRET), or a reference to it (env:, file:, exec:) and where that was set, for messages. */
export type ClientSecretSource = { kind: 'secret'; secret: string; from: string } | { kind: 'reference'; reference: string; where: string };

export interface SessionContext {
  session: SessionOptions;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  /** Told when the session signs in by itself (DPGW_PASSWORD). */
  info?: (message: string) => void;
  trace?: (line: string) => void;
  /** A hidden prompt when a person is there; undefined otherwise. */
  prompt?: (message: string) => Promise<string>;
}

export interface SessionSummary {
  profile: string;
  source: 'env' | 'cache';
  username?: string;
  realm?: string;
  issuer?: string;
  groups: string[];
  accessTokenExpiresAt?: string;
  refreshTokenExpiresAt?: string;
  cacheFile?: string;
  /** From a login whose identity provider's clock disagrees with this machine's (IssuedTokens.clockSkewMs). */
  clockSkewMs?: number | 'unknown';
  /** How the session was signed in. */
  grant?: Grant;
  /** The client whose service account the session is (--grant client-credentials). */
  serviceAccountOf?: string;
  /** The gateway origin the session's token goes to. */
  gateway?: string;
}

/** The longest an access token is used before its expiry; short-lived tokens get a tenth of their life. */
const MAX_EXPIRY_MARGIN_MS = 30_000;

export function tokenCacheFor(context: SessionContext): TokenCache {
  return new TokenCache(context.env, context.session.profile, context.warn);
}

/** Where to sign in (auth URL, realm, client and a way to its secret), checked before anyone is asked for a password. */
export function requireIdentitySettings(context: SessionContext): void {
  const identity = context.session.identity();
  // Every one that is missing, in one error: not one per run.
  const unset = (['authUrl', 'realm', 'clientId'] as const).filter((key) => identity[key] === undefined);
  const noSecret = identity.clientSecret === undefined && !context.prompt && context.session.grant !== 'device';
  if (unset.length > 0) throw missingSettings(noSecret ? [...unset, 'clientSecret'] : unset);
  if (noSecret) throw noClientSecret(identity.clientId!);
}

function noClientSecret(clientId: string): DpgwError {
  return new DpgwError('SETTING_MISSING', `no client secret for client ${clientId}`, {
    where: 'clientSecret',
    hint: 'set a reference with `dpgw config set clientSecret env:NAME|file:PATH|exec:CMD`, pass --client-secret <ref>, or set DPGW_CLIENT_SECRET',
  });
}

/**
 * The identity provider settings; the client secret comes from DPGW_CLIENT_SECRET or a secret
 * reference of the settings, never from the token cache (a cache file must not make dpgw run
 * a command or read a file). `fallback`: the session being refreshed, for what the settings leave unset.
 */
export async function identitySettings(context: SessionContext, fallback?: CachedSession, grant: Grant = context.session.grant): Promise<IdentitySettings> {
  const identity = context.session.identity();
  const authUrl = identity.authUrl ?? fallback?.authUrl ?? missing('authUrl');
  const realm = identity.realm ?? fallback?.realm ?? missing('realm');
  const clientId = identity.clientId ?? fallback?.clientId ?? missing('clientId');
  const given = identity.clientSecret;
  let clientSecret: string | undefined;
  let clientSecretFrom: string | undefined;
  if (given === undefined && grant === 'device') {
    // The device grant works with a public client: its id alone, no secret to ask for.
  } else if (given?.kind === 'secret') {
    clientSecret = given.secret;
    clientSecretFrom = given.from;
    registerSecret(clientSecret);
  } else {
    const reference = given?.reference ?? (context.prompt ? 'prompt' : undefined);
    if (reference === undefined) {
      throw noClientSecret(clientId);
    }
    const where = given?.where ?? 'the prompt';
    clientSecret = await resolveSecretReference(reference, { where, env: context.env, label: 'client secret', prompt: context.prompt });
    clientSecretFrom = reference === 'prompt' ? 'the prompt' : `the clientSecret reference (${where})`;
  }
  return {
    authUrl,
    realm,
    clientId,
    clientSecret,
    clientSecretFrom,
    clientAuth: identity.clientAuth,
    timeoutMs: identity.timeoutMs,
    certificateAuthorities: identity.certificateAuthorities,
    trace: context.trace,
  };
}

function missing(key: 'authUrl' | 'realm' | 'clientId'): never {
  throw missingSetting(key);
}

async function identityClient(settings: IdentitySettings): Promise<IdentityClient> {
  const { IdentityClient } = await import('./identity-client.js');
  return new IdentityClient(settings);
}

export async function login(context: SessionContext, username: string, password: string): Promise<SessionSummary> {
  const { stored, clockSkewMs } = await signIn(context, username, password);
  return { ...summary(stored), ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) };
}

/** `dpgw login --grant client-credentials`: the client's service account; no username or password is read or sent. */
export async function loginAsServiceAccount(context: SessionContext): Promise<SessionSummary> {
  const { stored, clockSkewMs } = await signInWith(context, (client) => client.clientCredentialsGrant(), 'client-credentials');
  return { ...summary(stored), ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) };
}

/** `dpgw login --grant device`: a code approved in a browser (single sign-on, MFA); `show` says where. */
export async function loginWithDevice(context: SessionContext, show: (code: DeviceCode) => void, signal?: AbortSignal): Promise<SessionSummary> {
  const { stored, clockSkewMs } = await signInWith(context, (client) => client.deviceGrant(show, signal), 'device');
  return { ...summary(stored), ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) };
}

/**
 * The one line for an identity provider whose clock disagrees with this machine's. Every
 * time dpgw keeps (the cache, `auth status`, refresh decisions) is on this machine's clock;
 * the gateway checks the token's exp on its own.
 */
export function clockSkewWarning(skewMs: number | 'unknown'): string {
  const clocks = skewMs === 'unknown'
    ? 'the identity provider\'s clock is behind this machine\'s (its token had expired by this machine\'s clock when it was issued)'
    : `the identity provider's clock is ${duration(Math.abs(skewMs))} ${skewMs < 0 ? 'behind' : 'ahead of'} this machine's`;
  return `${clocks}; token times are shown on this machine's clock`;
}

/** 5 min 3 s, 1 h 2 min, 45 s. */
function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const parts: string[] = [];
  if (seconds >= 3600) parts.push(`${Math.floor(seconds / 3600)} h`);
  if (seconds % 3600 >= 60) parts.push(`${Math.floor((seconds % 3600) / 60)} min`);
  if (seconds % 60 || parts.length === 0) parts.push(`${seconds % 60} s`);
  return parts.join(' ');
}

/**
 * The password grant, its session cached under the token lock (so it never lands in the
 * middle of another process's refresh) and returned: a command goes on with the session
 * it signed in, whatever another process writes to the cache afterwards. A provider whose
 * clock disagrees with this machine's is said once (clockSkewWarning).
 */
async function signIn(context: SessionContext, username: string, password: string): Promise<{ stored: StoredSession; clockSkewMs?: number | 'unknown' }> {
  return signInWith(context, (client) => client.passwordGrant(username, password), 'password', username);
}

/**
 * A grant, its session cached under the token lock, in the file of its identity (no other
 * identity's session is replaced), bound to the run's gateway. A session without a username
 * is named by its token (a service account, a device approval).
 */
async function signInWith(context: SessionContext, grant: (client: IdentityClient) => Promise<IssuedTokens>, kind: Grant, username?: string): Promise<{ stored: StoredSession; clockSkewMs?: number | 'unknown' }> {
  const identity = await identitySettings(context, undefined, kind);
  const sent = kind === 'password' ? 'the password and the client secret' : kind === 'device' ? 'the device code' : 'the client secret';
  const unencrypted = plainHttpWarning(identity.authUrl, 'the identity provider', sent);
  if (unencrypted) context.warn(unencrypted);
  const client = await identityClient(identity);
  try {
    const issued = await grant(client);
    const claims = readClaims(issued.accessToken);
    const who = username ?? claims?.preferred_username ?? claims?.sub ?? (kind === 'client-credentials' ? `service-account-${identity.clientId}` : 'unknown');
    const named = context.session.named().username;
    if (kind === 'device' && named !== undefined && !sameUser(who, named.value)) {
      // The person who approved is not the one the settings name: their session would serve no command of these settings.
      throw new DpgwError('SESSION_OTHER_IDENTITY', `the device sign-in was approved as ${serverText(who)}, not as ${named.value} whom ${named.where} names; nothing was cached`, {
        hint: `approve the code as ${named.value}, or run \`dpgw login${profileFlag(context)} --grant device --username ${serverText(who)}\` to act as ${serverText(who)}`,
      });
    }
    const gateway = context.session.gateway()?.value;
    const session: CachedSession = { ...toSession(context.session.profile, identity, who, issued), grant: kind, ...(gateway !== undefined ? { gateway } : {}), signedInAt: new Date().toISOString() };
    const cache = tokenCacheFor(context);
    const file = await cache.withLock(() => cache.write(session));
    if (issued.clockSkewMs !== undefined) context.warn(clockSkewWarning(issued.clockSkewMs));
    return { stored: { file, session }, clockSkewMs: issued.clockSkewMs };
  } finally {
    await client.close();
  }
}

/** Signs out of every session of the profile that is of the identity the settings name: the provider's sessions end (best effort), the files go. */
export async function logout(context: SessionContext): Promise<{ wasSignedIn: boolean; providerSessionEnded: boolean; cacheFile: string; signedOut: string[]; kept: string[] }> {
  const cache = tokenCacheFor(context);
  const named = context.session.named();
  const gateway = context.session.gateway();
  const stored = await cache.sessions();
  const serving = stored.filter(({ session }) => differenceOf(session, named, gateway) === undefined);
  // The profile's sessions of other identities stay: each ends with its own logout (they are said, so "signed out" is never read as "nobody is").
  const kept = stored.filter((entry) => !serving.includes(entry)).map(({ session }) => whoseSession(session));
  let providerSessionEnded = false;
  let removed = false;
  for (const { file, session } of serving) {
    if (session.refreshToken) {
      try {
        const client = await identityClient(await identitySettingsForRefresh(context, session));
        try {
          providerSessionEnded = (await client.endSession(session.refreshToken, session.endSessionEndpoint)) || providerSessionEnded;
        } finally {
          await client.close();
        }
      } catch {
        // Signing out locally must work without the provider or its secret.
      }
    }
    removed = (await cache.remove(file)) || removed;
  }
  return { wasSignedIn: removed || serving.length > 0, providerSessionEnded, cacheFile: serving[0]?.file ?? cache.directory, signedOut: serving.map(({ session }) => whoseSession(session)), kept };
}

/**
 * Who is signed in, from DPGW_TOKEN or the cache; undefined when nobody is. A cached session
 * of another identity is the same error a command meets (lookUpSession), so `auth status`
 * and `auth token` agree.
 */
export async function sessionStatus(context: SessionContext): Promise<SessionSummary | undefined> {
  const raw = context.session.token;
  if (raw !== undefined) {
    const claims = readClaims(raw);
    return {
      profile: context.session.profile,
      source: 'env',
      username: claims?.preferred_username ?? claims?.sub,
      issuer: claims?.iss,
      realm: claims?.iss?.split('/realms/')[1],
      groups: claims?.groups ?? [],
      accessTokenExpiresAt: claims?.exp ? new Date(claims.exp * 1000).toISOString() : undefined,
    };
  }
  const lookup = await lookUpSession(context, tokenCacheFor(context));
  if (lookup.kind === 'other') throw otherIdentity(context, lookup.stored.session, lookup.difference);
  return lookup.kind === 'found' ? summary(lookup.stored) : undefined;
}

/** The cached session that would serve the run, without refreshing, signing in or binding it (Tab completion); undefined when none does. */
export async function cachedSession(context: SessionContext): Promise<CachedSession | undefined> {
  const lookup = await lookUpSession(context, tokenCacheFor(context));
  return lookup.kind === 'found' ? lookup.stored.session : undefined;
}

/**
 * The token supplier for the gateway client. It fails with exit 4 and the
 * command to run when there is no session, and refreshes under the cache lock
 * so concurrent dpgw processes share one refresh.
 */
export function sessionTokenSupplier(context: SessionContext): TokenSupplier {
  const raw = context.session.token;
  if (raw !== undefined) return async () => raw;
  const cache = tokenCacheFor(context);
  // One session for a whole run: the cache file is read once, and again only to refresh.
  // The run keeps its identity: a `dpgw login` as someone else meanwhile is not adopted.
  let known: StoredSession | undefined;
  let refreshing: Promise<StoredSession> | undefined;
  return async ({ forceRefresh, refused }) => {
    known ??= await applicableSession(context, cache).catch((error: unknown) => signInFromEnvironment(context, error));
    // A token refused after this process already replaced it: the replacement serves.
    const replaced = refused !== undefined && refused !== known.session.accessToken;
    if ((!forceRefresh || replaced) && !nearExpiry(known.session)) return known.session.accessToken;
    const stale = known;
    // Concurrent requests of one process share a refresh, as processes do through the lock.
    refreshing ??= renewed(context, cache, stale, forceRefresh).finally(() => (refreshing = undefined));
    known = await refreshing;
    return known.session.accessToken;
  };
}

/**
 * A new token for a session whose token nears its expiry or was refused. When the refresh
 * token is dead (the identity provider restarted, the session ended) a pipeline with
 * DPGW_PASSWORD signs in again; when the identity provider is down, a token that is still
 * valid and was not refused goes on serving (said once), else the run stops with exit 5.
 */
async function renewed(context: SessionContext, cache: TokenCache, seen: StoredSession, refused: boolean): Promise<StoredSession> {
  try {
    return await refreshed(context, cache, seen);
  } catch (error) {
    if (!(error instanceof DpgwError)) throw error;
    if (error.kind === 'network' && !refused && Date.parse(seen.session.accessTokenExpiresAt) > Date.now()) {
      context.warn(`cannot refresh the token (${error.message}); going on with the current one until it expires at ${seen.session.accessTokenExpiresAt}`);
      return seen;
    }
    if (error.kind === 'auth') return signInFromEnvironment(context, error);
    throw error;
  }
}

/** The access token to use now, refreshing if needed (`dpgw auth token`). */
export async function currentAccessToken(context: SessionContext): Promise<string> {
  const token = await sessionTokenSupplier(context)({ forceRefresh: false });
  if (token === undefined) throw notSignedIn(context);
  return token;
}

/**
 * Signed in before a long run starts, so its first request does not stop at a prompt:
 * a token already at hand (DPGW_TOKEN, a valid or refreshable session) is enough;
 * otherwise the password comes from DPGW_PASSWORD, else the terminal's prompt.
 */
export async function ensureSignedIn(context: SessionContext): Promise<void> {
  if (context.session.token !== undefined) return;
  try {
    await currentAccessToken(context);
  } catch (error) {
    if (!(error instanceof DpgwError) || error.kind !== 'auth') throw error;
    const password = context.env.DPGW_PASSWORD ?? (context.prompt ? await context.prompt('Password:') : undefined);
    const username = context.session.username;
    if (password === undefined || username === undefined) throw error;
    await login(context, username, password);
    context.info?.(`signed in as ${username}`);
  }
}

/**
 * Not signed in as the identity the settings name (no session, one of another identity or
 * gateway, one that ended), in a pipeline that set DPGW_PASSWORD and a username: every
 * command signs in as `dpgw login` would, and caches the session for the next command.
 */
async function signInFromEnvironment(context: SessionContext, error: unknown): Promise<StoredSession> {
  const password = context.env.DPGW_PASSWORD;
  const username = context.session.username;
  if (!(error instanceof DpgwError && error.kind === 'auth')) throw error;
  // A service account needs no one: any command asks for its token by itself, a fresh cache needs no login.
  if (context.session.grant === 'client-credentials') {
    const { stored } = await signInWith(context, (client) => client.clientCredentialsGrant(), 'client-credentials');
    context.info?.(`signed in as ${stored.session.username} (the service account of client ${stored.session.clientId})`);
    return stored;
  }
  if (!password || username === undefined || context.session.grant === 'device') {
    // The identity provider's "run `dpgw login` again" names the profile a run used.
    const hint = error.hint?.replace('`dpgw login`', loginHint(context).replace(/^run | again$/g, ''));
    throw hint !== error.hint ? new DpgwError(error.errorCode, error.message, { where: error.where, hint, details: error.details, cause: error }) : error;
  }
  const { stored } = await signIn(context, username, password);
  context.info?.(`signed in as ${username}`);
  return stored;
}

/** What a lookup of the token cache found for the run's settings. */
type SessionLookup = { kind: 'found'; stored: StoredSession } | { kind: 'none' } | { kind: 'other'; stored: StoredSession; difference: Difference };

/** The first part of a cached session's identity that is not the one the settings name. */
interface Difference {
  part: IdentityPart | 'gateway';
  named: Named;
  cached: string;
}

/**
 * The one decision of which cached session serves a run, for every command (`auth status`
 * and `auth token` too): the latest sign-in of the profile whose identity is the one the
 * settings name and whose gateway is the run's. None: `none` when the profile has no session,
 * else `other` with the latest session and how it differs, for the message.
 */
async function lookUpSession(context: SessionContext, cache: TokenCache): Promise<SessionLookup> {
  const named = context.session.named();
  const gateway = context.session.gateway();
  const stored = (await cache.sessions()).sort((a, b) => signedInAt(b.session) - signedInAt(a.session));
  const serving = stored.filter(({ session }) => differenceOf(session, named, gateway) === undefined);
  // A session bound to this gateway before one that is bound to none yet.
  const chosen = serving.find(({ session }) => session.gateway !== undefined) ?? serving[0];
  if (chosen) return { kind: 'found', stored: chosen };
  const latest = stored[0];
  return latest === undefined ? { kind: 'none' } : { kind: 'other', stored: latest, difference: differenceOf(latest.session, named, gateway)! };
}

function signedInAt(session: CachedSession): number {
  return Date.parse(session.signedInAt ?? session.obtainedAt) || 0;
}

/** How a session differs from the identity and gateway the settings name; undefined when it is theirs. */
function differenceOf(session: CachedSession, named: NamedIdentity, gateway: Named | undefined): Difference | undefined {
  const cached: Record<IdentityPart, string> = { authUrl: session.authUrl.replace(/\/+$/, ''), realm: session.realm, clientId: session.clientId, grant: session.grant ?? 'password', username: session.username };
  for (const part of SESSION_IDENTITY_KEYS) {
    const wanted = named[part];
    if (wanted === undefined) continue;
    // A service account is named by its client: a username the settings name is for the other grants.
    if (part === 'username' && named.grant?.value === 'client-credentials') continue;
    const same = part === 'username' ? sameUser(cached[part], wanted.value) : part === 'authUrl' ? cached[part] === wanted.value.replace(/\/+$/, '') : cached[part] === wanted.value;
    if (!same) return { part, named: wanted, cached: cached[part] };
  }
  if (gateway !== undefined && session.gateway !== undefined && session.gateway !== gateway.value) return { part: 'gateway', named: gateway, cached: session.gateway };
  return undefined;
}

/** Usernames as the identity provider compares them (Keycloak keeps them lower case). */
function sameUser(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * The session that serves the run, bound to the run's gateway when it was bound to none yet
 * (a login that named no gateway): from then on its token goes to that gateway only.
 */
async function applicableSession(context: SessionContext, cache: TokenCache): Promise<StoredSession> {
  const lookup = await lookUpSession(context, cache);
  if (lookup.kind === 'none') throw notSignedIn(context);
  if (lookup.kind === 'other') throw otherIdentity(context, lookup.stored.session, lookup.difference);
  const gateway = context.session.gateway()?.value;
  const { file, session } = lookup.stored;
  if (gateway === undefined || session.gateway !== undefined) return lookup.stored;
  const bound: CachedSession = { ...session, gateway };
  const boundFile = await cache.withLock(async () => {
    const written = await cache.write(bound);
    if (written !== file) await cache.remove(file);
    return written;
  });
  return { file: boundFile, session: bound };
}

/** Whose session the cache holds, in words: `admin@data-platform via client dpgw-backend (password grant)`. */
function whoseSession(session: CachedSession): string {
  const grant = session.grant ?? 'password';
  if (grant === 'client-credentials') return `the service account of client ${session.clientId} in realm ${session.realm}`;
  return `${serverText(session.username)}@${session.realm} via client ${session.clientId} (${grant} grant)`;
}

const PART_WORDS: Record<Difference['part'], string> = { authUrl: 'identity provider', realm: 'realm', clientId: 'client', grant: 'grant', username: 'user', gateway: 'gateway' };

/**
 * A cached session of another identity or gateway, and no password at hand to sign in as the one
 * named: exit 4, whose session is cached, what the settings name, and the login to run.
 */
function otherIdentity(context: SessionContext, session: CachedSession, difference: Difference): DpgwError {
  const { part, named, cached } = difference;
  const message =
    part === 'gateway'
      ? `the cached session of profile "${session.profile}" (${whoseSession(session)}) is for the gateway ${cached}, not ${named.value} that ${named.where} names; its token goes to no other gateway`
      : `the cached session of profile "${session.profile}" is ${whoseSession(session)}, not for the ${PART_WORDS[part]} ${named.value} that ${named.where} names`;
  // The flags a run gave name the identity for the login too.
  const flags = Object.values({ ...context.session.named(), gateway: context.session.gateway() })
    .filter((given): given is Named => given !== undefined && given.where.startsWith('--'))
    .map((given) => ` ${given.where} ${given.value}`)
    .join('');
  const pipeline = context.session.grant === 'password' ? ' (in a pipeline, DPGW_USERNAME and DPGW_PASSWORD sign in by themselves)' : '';
  return new DpgwError('SESSION_OTHER_IDENTITY', message, {
    hint: `run \`dpgw login${profileFlag(context)}${flags}\` to sign in as the identity the settings name${pipeline}`,
  });
}

function profileFlag(context: { session: Pick<SessionOptions, 'profile' | 'profileNamed'> }): string {
  return context.session.profileNamed ? ` --profile ${context.session.profile}` : '';
}

/** Attempts of a refresh that found the identity provider down (5xx, unreachable), with waits of 0.5, 1 s between them. */
const REFRESH_ATTEMPTS = 3;

/** The session refreshed under the profile's lock; its file keeps it (one of an earlier dpgw version moves to its identity's file). */
async function refreshed(context: SessionContext, cache: TokenCache, seen: StoredSession): Promise<StoredSession> {
  return cache.withLock(async () => {
    // Another dpgw may have refreshed while this one waited for the lock; a session of
    // another identity written there meanwhile is left to its owner.
    const cached = await cache.read(seen.file);
    const ours = cached !== undefined && sameIdentity(cached, seen.session);
    const current = ours ? cached : seen.session;
    if (current.accessToken !== seen.session.accessToken && !nearExpiry(current)) return { file: seen.file, session: current };
    const keep = async (next: CachedSession): Promise<StoredSession> => {
      if (!ours && cached !== undefined) return { file: seen.file, session: next };
      const file = await cache.write(next);
      if (file !== seen.file) await cache.remove(seen.file);
      return { file, session: next };
    };
    if (current.grant === 'client-credentials' && !current.refreshToken) {
      // Keycloak gives a service account no refresh token: a new grant is its refresh.
      const settings = await identitySettingsForRefresh(context, current);
      const client = await identityClient(settings);
      try {
        return await keep(toSession(current.profile, settings, current.username, await client.clientCredentialsGrant(), current));
      } finally {
        await client.close();
      }
    }
    if (!current.refreshToken || (current.refreshTokenExpiresAt && Date.parse(current.refreshTokenExpiresAt) <= Date.now())) {
      throw new DpgwError('SESSION_EXPIRED', `the session of profile "${current.profile}" has expired`, { hint: loginHint(context) });
    }
    const settings = await identitySettingsForRefresh(context, current);
    const client = await identityClient(settings);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const issued = await client.refreshGrant(current.refreshToken, { issuer: current.issuer, tokenEndpoint: current.tokenEndpoint });
          return await keep(toSession(current.profile, settings, current.username, issued, current));
        } catch (error) {
          if (!(error instanceof DpgwError && error.kind === 'network') || attempt >= REFRESH_ATTEMPTS) throw error;
          await sleep(500 * 2 ** (attempt - 1));
        }
      }
    } finally {
      await client.close();
    }
  });
}

/** The same user of the same client at the same identity provider, for the same gateway. */
function sameIdentity(a: CachedSession, b: CachedSession): boolean {
  return a.username === b.username && a.issuer === b.issuer && a.clientId === b.clientId && (a.grant ?? 'password') === (b.grant ?? 'password') && a.gateway === b.gateway;
}

/** `dpgw login`, with the profile that needs it when it is not the one chosen by default. */
export function loginHint(context: { session: Pick<SessionOptions, 'profile' | 'profileNamed'> }): string {
  return `run \`dpgw login${profileFlag(context)}\` again`;
}

/** Refreshing and signing out take the client secret from the settings (never from the cache); what they leave unset, from the session. */
async function identitySettingsForRefresh(context: SessionContext, session: CachedSession): Promise<IdentitySettings> {
  return identitySettings(context, session, session.grant ?? 'password');
}

function nearExpiry(session: CachedSession): boolean {
  return Date.now() >= refreshDueAt(session);
}

/** The last session's dates, read once: every request of a run asks about the same token (two date parses each). */
let lastRefreshDue: { accessTokenExpiresAt: string; obtainedAt: string; dueAt: number } | undefined;

/** When a session's token is near enough its expiry to be refreshed: a tenth of its lifetime before, at most MAX_EXPIRY_MARGIN_MS. */
function refreshDueAt({ accessTokenExpiresAt, obtainedAt }: CachedSession): number {
  if (lastRefreshDue?.accessTokenExpiresAt === accessTokenExpiresAt && lastRefreshDue.obtainedAt === obtainedAt) return lastRefreshDue.dueAt;
  const expiresAt = Date.parse(accessTokenExpiresAt);
  const lifetime = expiresAt - Date.parse(obtainedAt);
  const margin = Math.min(MAX_EXPIRY_MARGIN_MS, Math.max(0, lifetime / 10));
  lastRefreshDue = { accessTokenExpiresAt, obtainedAt, dueAt: expiresAt - margin };
  return lastRefreshDue.dueAt;
}

/** A session of tokens only: what it is for, never how to get a secret (the settings say that). */
function toSession(profile: string, identity: IdentitySettings, username: string, issued: IssuedTokens, previous?: CachedSession): CachedSession {
  return {
    version: 1,
    profile,
    authUrl: identity.authUrl,
    realm: identity.realm,
    clientId: identity.clientId,
    username,
    issuer: issued.issuer,
    tokenEndpoint: issued.tokenEndpoint,
    endSessionEndpoint: issued.endSessionEndpoint ?? previous?.endSessionEndpoint,
    accessToken: issued.accessToken,
    // Keycloak may omit a new refresh token on refresh; the old one then stays valid.
    refreshToken: issued.refreshToken ?? previous?.refreshToken,
    obtainedAt: new Date().toISOString(),
    accessTokenExpiresAt: new Date(issued.accessTokenExpiresAt).toISOString(),
    refreshTokenExpiresAt: issued.refreshTokenExpiresAt ? new Date(issued.refreshTokenExpiresAt).toISOString() : previous?.refreshTokenExpiresAt,
    scope: issued.scope,
    ...(previous?.grant !== undefined ? { grant: previous.grant } : {}),
    ...(previous?.gateway !== undefined ? { gateway: previous.gateway } : {}),
    ...(previous !== undefined ? { signedInAt: previous.signedInAt ?? previous.obtainedAt } : {}),
  };
}

function summary({ file, session }: StoredSession): SessionSummary {
  const claims = readClaims(session.accessToken);
  return {
    profile: session.profile,
    source: 'cache',
    username: session.username,
    realm: session.realm,
    issuer: session.issuer,
    groups: claims?.groups ?? [],
    accessTokenExpiresAt: session.accessTokenExpiresAt,
    refreshTokenExpiresAt: session.refreshTokenExpiresAt,
    cacheFile: file,
    grant: session.grant ?? 'password',
    ...(session.gateway !== undefined ? { gateway: session.gateway } : {}),
    ...(session.grant === 'client-credentials' ? { serviceAccountOf: session.clientId } : {}),
  };
}

function notSignedIn(context: SessionContext): DpgwError {
  return new DpgwError('NOT_SIGNED_IN', `not signed in (profile "${context.session.profile}")`, {
    hint: `${loginHint(context).replace(/ again$/, '')}, or set DPGW_TOKEN (or DPGW_USERNAME and DPGW_PASSWORD) in a pipeline`,
  });
}
