/**
 * Sessions: signing in, the token every gateway call takes, refreshing it, and
 * signing out. One place decides where a token comes from:
 *   DPGW_TOKEN (a raw bearer for pipelines) > the profile's token cache > none.
 * An access token near its expiry is refreshed before the call; a 401 from the
 * gateway asks for a forced refresh once (http-transport.ts).
 */
import { plainHttpWarning } from '../net/plain-http.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { DpgwError } from '../errors/dpgw-error.js';
import type { TokenSupplier } from '../gateway/http-transport.js';
import { registerSecret } from '../secrets/redaction.js';
import { resolveSecretReference } from '../secrets/secret-reference.js';
import { missingSetting } from '../settings/setting-definitions.js';
import type { DeviceCode, IdentityClient, IdentitySettings, IssuedTokens } from './identity-client.js';
import { readClaims } from './jwt-claims.js';
import type { Grant } from './grants.js';
import { TokenCache, type CachedSession } from './token-cache.js';

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
   * Where and how to sign in, read when a sign-in, a refresh or a sign-out needs it: a value
   * set wrongly is an error then, and a command that needs no identity provider never meets it.
   */
  identity(): IdentityOptions;
}

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
}

/** The longest an access token is used before its expiry; short-lived tokens get a tenth of their life. */
const MAX_EXPIRY_MARGIN_MS = 30_000;

export function tokenCacheFor(context: SessionContext): TokenCache {
  return new TokenCache(context.env, context.session.profile, context.warn, context.session.grant === 'client-credentials' ? 'service-account' : undefined);
}

/** Where to sign in (auth URL, realm, client and a way to its secret), checked before anyone is asked for a password. */
export function requireIdentitySettings(context: SessionContext): void {
  const identity = context.session.identity();
  if (identity.authUrl === undefined) throw missingSetting('authUrl');
  if (identity.realm === undefined) throw missingSetting('realm');
  if (identity.clientId === undefined) throw missingSetting('clientId');
  if (identity.clientSecret === undefined && !context.prompt && context.session.grant !== 'device') throw noClientSecret(identity.clientId);
}

function noClientSecret(clientId: string): DpgwError {
  return new DpgwError('usage', `no client secret for client ${clientId}`, {
    code: 'SETTING_MISSING',
    where: 'clientSecret',
    hint: 'set a reference with `dpgw config set clientSecret env:NAME|file:PATH|exec:CMD`, pass --client-secret <ref>, or set DPGW_CLIENT_SECRET',
  });
}

/** The identity provider settings; the client secret comes from DPGW_CLIENT_SECRET or a secret reference. */
/**
 * `cachedSecret`: the client-secret reference a login used, kept in the token cache, for a
 * refresh when the current settings name none.
 */
export async function identitySettings(context: SessionContext, fallback?: CachedSession, cachedSecret?: { reference: string; where: string }, grant: Grant = context.session.grant): Promise<IdentitySettings & { clientSecretReference?: string }> {
  const identity = context.session.identity();
  const authUrl = identity.authUrl ?? fallback?.authUrl ?? missing('authUrl');
  const realm = identity.realm ?? fallback?.realm ?? missing('realm');
  const clientId = identity.clientId ?? fallback?.clientId ?? missing('clientId');
  const given = identity.clientSecret;
  const fromCache = given === undefined ? cachedSecret : undefined;
  let clientSecret: string | undefined;
  let clientSecretReference: string | undefined;
  let clientSecretFrom: string | undefined;
  if (given === undefined && fromCache === undefined && grant === 'device') {
    // The device grant works with a public client: its id alone, no secret to ask for.
  } else if (given?.kind === 'secret') {
    clientSecret = given.secret;
    clientSecretFrom = given.from;
    registerSecret(clientSecret);
  } else {
    const reference = fromCache?.reference ?? given?.reference ?? (context.prompt ? 'prompt' : undefined);
    if (reference === undefined) {
      throw noClientSecret(clientId);
    }
    const where = fromCache?.where ?? given?.where ?? 'the prompt';
    clientSecret = await resolveSecretReference(reference, { where, env: context.env, label: 'client secret', prompt: context.prompt });
    if (reference !== 'prompt') clientSecretReference = reference;
    clientSecretFrom = reference === 'prompt' ? 'the prompt' : `the clientSecret reference (${where})`;
  }
  return {
    authUrl,
    realm,
    clientId,
    clientSecret,
    clientSecretReference,
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
  const { session, clockSkewMs } = await signIn(context, username, password);
  return { ...summary(session, tokenCacheFor(context).file), ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) };
}

/** `dpgw login --grant client-credentials`: the client's service account; no username or password is read or sent. */
export async function loginAsServiceAccount(context: SessionContext): Promise<SessionSummary> {
  const { session, clockSkewMs } = await signInWith(context, (client) => client.clientCredentialsGrant(), 'client-credentials');
  return { ...summary(session, tokenCacheFor(context).file), ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) };
}

/** `dpgw login --grant device`: a code approved in a browser (single sign-on, MFA); `show` says where. */
export async function loginWithDevice(context: SessionContext, show: (code: DeviceCode) => void, signal?: AbortSignal): Promise<SessionSummary> {
  const { session, clockSkewMs } = await signInWith(context, (client) => client.deviceGrant(show, signal), 'device');
  return { ...summary(session, tokenCacheFor(context).file), ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) };
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
async function signIn(context: SessionContext, username: string, password: string): Promise<{ session: CachedSession; clockSkewMs?: number | 'unknown' }> {
  return signInWith(context, (client) => client.passwordGrant(username, password), 'password', username);
}

/** A grant, its session cached under the token lock; a session without a username is named by its token (a service account). */
async function signInWith(context: SessionContext, grant: (client: IdentityClient) => Promise<IssuedTokens>, kind: Grant, username?: string): Promise<{ session: CachedSession; clockSkewMs?: number | 'unknown' }> {
  const identity = await identitySettings(context, undefined, undefined, kind);
  const sent = kind === 'password' ? 'the password and the client secret' : kind === 'device' ? 'the device code' : 'the client secret';
  const unencrypted = plainHttpWarning(identity.authUrl, 'the identity provider', sent);
  if (unencrypted) context.warn(unencrypted);
  const client = await identityClient(identity);
  try {
    const issued = await grant(client);
    const claims = readClaims(issued.accessToken);
    const who = username ?? claims?.preferred_username ?? claims?.sub ?? (kind === 'client-credentials' ? `service-account-${identity.clientId}` : 'unknown');
    const session = { ...toSession(context.session.profile, identity, who, issued), grant: kind };
    const cache = tokenCacheFor(context);
    await cache.withLock(() => cache.write(session));
    if (issued.clockSkewMs !== undefined) context.warn(clockSkewWarning(issued.clockSkewMs));
    return { session, clockSkewMs: issued.clockSkewMs };
  } finally {
    await client.close();
  }
}

export async function logout(context: SessionContext): Promise<{ wasSignedIn: boolean; providerSessionEnded: boolean; cacheFile: string }> {
  const cache = tokenCacheFor(context);
  const session = await cache.read();
  let providerSessionEnded = false;
  if (session?.refreshToken) {
    try {
      const client = await identityClient(await identitySettingsForRefresh(context, session));
      try {
        providerSessionEnded = await client.endSession(session.refreshToken, session.endSessionEndpoint);
      } finally {
        await client.close();
      }
    } catch {
      // Signing out locally must work without the provider or its secret.
    }
  }
  const removed = await cache.remove();
  return { wasSignedIn: removed || session !== undefined, providerSessionEnded, cacheFile: cache.file };
}

/** Who is signed in, from DPGW_TOKEN or the cache; undefined when nobody is. */
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
  const cache = tokenCacheFor(context);
  const session = await cache.read();
  return session ? summary(session, cache.file) : undefined;
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
  let known: CachedSession | undefined;
  let refreshing: Promise<CachedSession> | undefined;
  return async ({ forceRefresh, refused }) => {
    known ??= await applicableSession(context, cache).catch((error: unknown) => signInFromEnvironment(context, error));
    // A token refused after this process already replaced it: the replacement serves.
    const replaced = refused !== undefined && refused !== known.accessToken;
    if ((!forceRefresh || replaced) && !nearExpiry(known)) return known.accessToken;
    const stale = known;
    // Concurrent requests of one process share a refresh, as processes do through the lock.
    refreshing ??= renewed(context, cache, stale, forceRefresh).finally(() => (refreshing = undefined));
    known = await refreshing;
    return known.accessToken;
  };
}

/**
 * A new token for a session whose token nears its expiry or was refused. When the refresh
 * token is dead (the identity provider restarted, the session ended) a pipeline with
 * DPGW_PASSWORD signs in again; when the identity provider is down, a token that is still
 * valid and was not refused goes on serving (said once), else the run stops with exit 5.
 */
async function renewed(context: SessionContext, cache: TokenCache, seen: CachedSession, refused: boolean): Promise<CachedSession> {
  try {
    return await refreshed(context, cache, seen);
  } catch (error) {
    if (!(error instanceof DpgwError)) throw error;
    if (error.kind === 'network' && !refused && Date.parse(seen.accessTokenExpiresAt) > Date.now()) {
      context.warn(`cannot refresh the token (${error.message}); going on with the current one until it expires at ${seen.accessTokenExpiresAt}`);
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
 * Not signed in (or signed in for another identity provider), in a pipeline that set
 * DPGW_PASSWORD and a username: every command signs in as `dpgw login` would, and
 * caches the session for the next command.
 */
async function signInFromEnvironment(context: SessionContext, error: unknown): Promise<CachedSession> {
  const password = context.env.DPGW_PASSWORD;
  const username = context.session.username;
  if (!(error instanceof DpgwError && error.kind === 'auth')) throw error;
  // A service account needs no one: any command asks for its token by itself, a fresh cache needs no login.
  if (context.session.grant === 'client-credentials') {
    const { session } = await signInWith(context, (client) => client.clientCredentialsGrant(), 'client-credentials');
    context.info?.(`signed in as ${session.username} (the service account of client ${session.clientId})`);
    return session;
  }
  if (!password || username === undefined) {
    // The identity provider's "run `dpgw login` again" names the profile a run used.
    const hint = error.hint?.replace('`dpgw login`', loginHint(context).replace(/^run | again$/g, ''));
    throw hint !== error.hint ? new DpgwError(error.kind, error.message, { code: error.errorCode, where: error.where, hint, details: error.details, cause: error }) : error;
  }
  const { session } = await signIn(context, username, password);
  context.info?.(`signed in as ${username}`);
  return session;
}

async function applicableSession(context: SessionContext, cache: TokenCache): Promise<CachedSession> {
  const session = await cache.read();
  if (!session) throw notSignedIn(context);
  const identity = context.session.identity();
  const differs = (key: 'authUrl' | 'realm' | 'clientId', cached: string) => identity[key] !== undefined && identity[key].replace(/\/+$/, '') !== cached;
  const serviceAccount = (grant: Grant | undefined) => grant === 'client-credentials';
  if (serviceAccount(session.grant) !== serviceAccount(context.session.grant)) {
    throw new DpgwError('auth', `the cached session of profile "${session.profile}" is ${serviceAccount(session.grant) ? `the service account of client ${session.clientId}` : `${session.username}'s`}, not ${serviceAccount(context.session.grant) ? 'a service account' : 'a person\'s'} as --grant ${context.session.grant} asks`, {
      code: 'NOT_SIGNED_IN',
      hint: `run \`dpgw login${context.session.profileNamed ? ` --profile ${context.session.profile}` : ''}${context.session.grant === 'password' ? '' : ` --grant ${context.session.grant}`}\``,
    });
  }
  if (differs('authUrl', session.authUrl) || differs('realm', session.realm) || differs('clientId', session.clientId)) {
    throw new DpgwError('auth', `the cached session of profile "${session.profile}" is for ${session.clientId} at ${session.issuer}, not for the identity provider the settings name`, {
      code: 'NOT_SIGNED_IN',
      hint: `${loginHint(context).replace(/ again$/, '')} for the current settings`,
    });
  }
  return session;
}

/** Attempts of a refresh that found the identity provider down (5xx, unreachable), with waits of 0.5, 1 s between them. */
const REFRESH_ATTEMPTS = 3;

async function refreshed(context: SessionContext, cache: TokenCache, seen: CachedSession): Promise<CachedSession> {
  return cache.withLock(async () => {
    // Another dpgw may have refreshed while this one waited for the lock; a session of
    // another identity (a `dpgw login --username …` meanwhile) is left to its owner.
    const cached = await cache.read();
    const ours = cached !== undefined && sameIdentity(cached, seen);
    const current = ours ? cached : seen;
    if (current.accessToken !== seen.accessToken && !nearExpiry(current)) return current;
    if (current.grant === 'client-credentials' && !current.refreshToken) {
      // Keycloak gives a service account no refresh token: a new grant is its refresh.
      const settings = await identitySettingsForRefresh(context, current);
      const client = await identityClient(settings);
      try {
        const next = { ...toSession(current.profile, settings, current.username, await client.clientCredentialsGrant(), current), grant: current.grant };
        if (ours || cached === undefined) await cache.write(next);
        return next;
      } finally {
        await client.close();
      }
    }
    if (!current.refreshToken || (current.refreshTokenExpiresAt && Date.parse(current.refreshTokenExpiresAt) <= Date.now())) {
      throw new DpgwError('auth', `the session of profile "${current.profile}" has expired`, { code: 'SESSION_EXPIRED', hint: loginHint(context) });
    }
    const settings = await identitySettingsForRefresh(context, current);
    const client = await identityClient(settings);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const issued = await client.refreshGrant(current.refreshToken, { issuer: current.issuer, tokenEndpoint: current.tokenEndpoint });
          const next = { ...toSession(current.profile, settings, current.username, issued, current), ...(current.grant ? { grant: current.grant } : {}) };
          if (ours || cached === undefined) await cache.write(next);
          return next;
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

/** The same user of the same client at the same identity provider. */
function sameIdentity(a: CachedSession, b: CachedSession): boolean {
  return a.username === b.username && a.issuer === b.issuer && a.clientId === b.clientId;
}

/** `dpgw login`, with the profile that needs it when it is not the one chosen by default. */
export function loginHint(context: { session: Pick<SessionOptions, 'profile' | 'profileNamed'> }): string {
  const { profile, profileNamed } = context.session;
  const flag = profileNamed ? ` --profile ${profile}` : '';
  return `run \`dpgw login${flag}\` again`;
}

/** Refreshing uses the settings of the login when the current ones do not name a client secret. */
async function identitySettingsForRefresh(context: SessionContext, session: CachedSession): Promise<IdentitySettings & { clientSecretReference?: string }> {
  const cached = session.clientSecretReference ? { reference: session.clientSecretReference, where: 'the token cache (reference used at login)' } : undefined;
  return identitySettings(context, session, cached, session.grant ?? 'password');
}

function nearExpiry(session: CachedSession): boolean {
  const expiresAt = Date.parse(session.accessTokenExpiresAt);
  const lifetime = expiresAt - Date.parse(session.obtainedAt);
  const margin = Math.min(MAX_EXPIRY_MARGIN_MS, Math.max(0, lifetime / 10));
  return Date.now() >= expiresAt - margin;
}

function toSession(profile: string, identity: IdentitySettings & { clientSecretReference?: string }, username: string, issued: IssuedTokens, previous?: CachedSession): CachedSession {
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
    clientSecretReference: identity.clientSecretReference ?? previous?.clientSecretReference,
  };
}

function summary(session: CachedSession, cacheFile: string): SessionSummary {
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
    cacheFile,
    grant: session.grant ?? 'password',
    ...(session.grant === 'client-credentials' ? { serviceAccountOf: session.clientId } : {}),
  };
}

function notSignedIn(context: SessionContext): DpgwError {
  return new DpgwError('auth', `not signed in (profile "${context.session.profile}")`, {
    code: 'NOT_SIGNED_IN',
    hint: `${loginHint(context).replace(/ again$/, '')}, or set DPGW_TOKEN (or DPGW_USERNAME and DPGW_PASSWORD) in a pipeline`,
  });
}
