/**
 * The sandbox's identity provider: a Keycloak-style realm on 127.0.0.1 with
 * OpenID discovery, JWKS, and a token endpoint for the password and refresh_token
 * grants, answering errors exactly as Keycloak does. Built on jose rather than
 * oidc-provider: oidc-provider leaves out the password grant by design, and its
 * error answers are not Keycloak's.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK, type CryptoKey } from 'jose';
import { PASSWORD_GRANT } from '../contract/constants.js';
import { answerDevicePage } from './device-page.js';
import type { TokenResponse } from '../contract/types.js';
import type { Faults } from './faults.js';
import { LoopbackService, parseForm, readBody, sendJson } from './http-kit.js';
import { maskBody, maskRequestHeaders, type RequestLog } from './request-log.js';

/**
 * Generating an RSA key is most of a sandbox's start (70–350 ms here), and a process that
 * starts many sandboxes (a test suite, a benchmark) would pay it each time: they share one
 * key pair, each provider under its own key id, and a rotation makes new key material.
 */
let processRealmKey: ReturnType<typeof generateKeyPair> | undefined;

export interface SandboxUser {
  username: string;
  password: string;
  groups: string[];
  firstName?: string;
  lastName?: string;
  email?: string;
}

export interface SandboxClient {
  clientId: string;
  secret: string;
  /** Keycloak's "Direct access grants" switch: the password grant needs it on. */
  directAccessGrants: boolean;
  /** The `aud` of this client's access tokens (an audience mapper); default: the realm's. */
  audience?: string;
  /** Keycloak's "Service accounts roles": the client credentials grant signs in as `service-account-<clientId>`, in these groups. */
  serviceAccountGroups?: string[];
  /** Keycloak's "OAuth 2.0 Device Authorization Grant" switch. */
  deviceGrant?: boolean;
  /** A public client: no secret (Keycloak's "Client authentication" off). */
  publicClient?: boolean;
}

/** A device code waiting for a person (RFC 8628), as Keycloak keeps it. */
interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  clientId: string;
  expiresAt: number;
  intervalMs: number;
  lastPollAt: number;
  codeChallenge?: string;
  scope?: string;
  /** Set when a person approved (their username) or denied. */
  decision?: { approvedBy: string } | 'denied';
}

/** Seconds between polls the sandbox asks for (Keycloak's default is 5; short, so tests and `npm start` users wait little). */
const DEVICE_POLL_INTERVAL_S = 1;
const DEVICE_CODE_LIFETIME_S = 600;

export interface IdentityProviderOptions {
  realm: string;
  users: SandboxUser[];
  clients: SandboxClient[];
  /** The `aud` of access tokens; the gateway checks it. */
  audience: string;
  accessTokenLifetimeSeconds: number;
  refreshTokenLifetimeSeconds: number;
  port: number;
  log: RequestLog;
  faults: Faults;
}

interface Session {
  id: string;
  username: string;
  clientId: string;
  /** The jti of the one refresh token that may be used next (rotation, as Keycloak with "Revoke refresh token" on). */
  currentRefreshJti: string;
  active: boolean;
}

const KID_BYTES = 8;

export class IdentityProvider extends LoopbackService {
  readonly options: IdentityProviderOptions;
  private keys?: { privateKey: CryptoKey; publicJwk: JWK; kid: string };
  /** HMAC key for refresh tokens: only this server reads them, as in Keycloak. */
  private refreshKey = new Uint8Array(randomBytes(32));
  private readonly sessions = new Map<string, Session>();
  private readonly devices = new Map<string, DeviceAuthorization>();

  constructor(options: IdentityProviderOptions) {
    super(options.port);
    this.options = options;
  }

  /** The realm's issuer: `{auth_url}/auth/realms/{realm}`. */
  get issuer(): string {
    return `${this.baseUrl}/auth/realms/${encodeURIComponent(this.options.realm)}`;
  }

  get tokenEndpoint(): string {
    return `${this.issuer}/protocol/openid-connect/token`;
  }

  get jwksUri(): string {
    return `${this.issuer}/protocol/openid-connect/certs`;
  }

  override async start(): Promise<void> {
    await this.newKeys();
    await super.start();
  }

  /**
   * As an identity provider restarted with new keys (a Keycloak whose realm keys were
   * rotated, or that kept no sessions): every access token it issued before fails
   * verification and every refresh token is refused. Passwords still work.
   */
  async forgetKeysAndSessions(): Promise<void> {
    await this.newKeys(true);
    this.refreshKey = new Uint8Array(randomBytes(32));
    this.sessions.clear();
  }

  /** `fresh`: new key material (a rotation); else the process's realm key, under a key id of this provider's own. */
  private async newKeys(fresh = false): Promise<void> {
    const { privateKey, publicKey } = fresh ? await generateKeyPair('RS256', { extractable: true }) : await (processRealmKey ??= generateKeyPair('RS256', { extractable: true }));
    const publicJwk = await exportJWK(publicKey);
    // The key id is this provider's own, so a token of another sandbox (in this process, or before a rotation) finds no key here.
    const kid = createHash('sha256').update(JSON.stringify(publicJwk)).update(randomBytes(16)).digest('base64url').slice(0, KID_BYTES * 2);
    this.keys = { privateKey, publicJwk: { ...publicJwk, kid, alg: 'RS256', use: 'sig' }, kid };
  }

  /** The user codes waiting for a person, newest last (what the browser page would be asked for). */
  pendingUserCodes(): string[] {
    return [...this.devices.values()].filter((d) => !d.decision && d.expiresAt > Date.now()).map((d) => d.userCode);
  }

  /** What a person does in the browser for a device code: approve it as a user (after their password), or deny it. False when no such code waits. */
  decideDevice(userCode: string, decision: { approvedBy: string } | 'denied'): boolean {
    const device = [...this.devices.values()].find((d) => d.userCode === userCode.toUpperCase() && d.expiresAt > Date.now());
    if (!device || device.decision) return false;
    device.decision = decision;
    return true;
  }

  /** Ends every session of a user (as an admin's "sign out" would): their refresh tokens stop working. */
  endSessions(username: string): void {
    for (const session of this.sessions.values()) if (session.username === username) session.active = false;
  }

  protected async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(request.url ?? '/', 'http://sandbox');
    let text = '';
    try {
      text = await readBody(request);
    } catch {
      sendJson(response, 413, { error: 'invalid_request', error_description: 'Request too large' });
      return;
    }
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const form = isForm ? parseForm(text) : {};
    const entry = this.options.log.add({
      server: 'identity',
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: maskRequestHeaders(request.headers),
      body: isForm ? maskBody(form) : text === '' ? undefined : text,
      ...(isForm ? { formFields: [...new URLSearchParams(text).keys()] } : {}),
    });
    const answer = await this.route(request.method ?? 'GET', url.pathname, form, request.headers.authorization, { query: url.searchParams, accept: request.headers.accept });
    if (answer.html !== undefined) {
      response.writeHead(answer.status, { 'cache-control': 'no-store', ...answer.headers });
      response.end(answer.html);
    } else sendJson(response, answer.status, answer.body, answer.headers);
    this.options.log.complete(entry, answer.status, Math.round(performance.now() - started));
  }

  private async route(method: string, path: string, form: Record<string, string>, authorization: string | undefined, page: { query: URLSearchParams; accept: string | undefined }): Promise<Answer> {
    const match = /^\/auth\/realms\/([^/]+)(\/.*)?$/.exec(path);
    if (!match) return { status: 404, body: { error: 'Unable to find matching target resource method' } };
    const realm = decodeURIComponent(match[1]!);
    const rest = match[2] ?? '';
    if (realm !== this.options.realm) return { status: 404, body: { error: 'Realm does not exist' } };

    if (method === 'GET' && rest === '/.well-known/openid-configuration') return { status: 200, body: this.discovery() };
    if (method === 'GET' && rest === '/protocol/openid-connect/certs') return { status: 200, body: { keys: [this.keys!.publicJwk] } };
    if (method === 'GET' && rest === '') return { status: 200, body: { realm, public_key: this.keys!.kid, 'token-service': `${this.issuer}/protocol/openid-connect` } };
    if (rest === '/protocol/openid-connect/token') {
      if (method !== 'POST') return { status: 405, body: { error: 'RESTEASY003650: No resource method found for GET, return 405 with Allow header' } };
      if (this.options.faults.settings.tokenDelayMs > 0) await sleep(this.options.faults.settings.tokenDelayMs);
      if (this.options.faults.takeTokenFailure()) return { status: 503, body: { error: 'temporarily_unavailable', error_description: 'The identity provider is starting' } };
      return this.token(form, authorization);
    }
    if (rest === '/protocol/openid-connect/logout' && method === 'POST') return this.logout(form, authorization);
    if (rest === '/protocol/openid-connect/auth/device' && method === 'POST') return this.deviceAuthorization(form, authorization);
    if (rest === '/device' && (method === 'GET' || method === 'POST')) return answerDevicePage({ method, form, ...page }, this.deviceDecisions);
    return { status: 404, body: { error: 'Unable to find matching target resource method' } };
  }

  private discovery(): Record<string, unknown> {
    const base = `${this.issuer}/protocol/openid-connect`;
    return {
      issuer: this.issuer,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/certs`,
      end_session_endpoint: `${base}/logout`,
      device_authorization_endpoint: `${base}/auth/device`,
      code_challenge_methods_supported: ['plain', 'S256'],
      grant_types_supported: ['password', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      scopes_supported: ['openid', 'profile', 'email'],
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'preferred_username', 'groups', 'email', 'given_name', 'family_name'],
    };
  }

  /** Client authentication as Keycloak does it: client_secret_post or client_secret_basic. */
  private authenticateClient(form: Record<string, string>, authorization: string | undefined): SandboxClient | Answer {
    let clientId = form.client_id;
    let secret = form.client_secret;
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    if (!clientId) return { status: 400, body: { error: 'invalid_client', error_description: 'Missing client_id parameter' } };
    const client = this.options.clients.find((c) => c.clientId === clientId);
    if (!client) return { status: 401, body: { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' } };
    if (client.publicClient) return client;
    if (secret !== client.secret) return { status: 401, body: { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' } };
    return client;
  }

  private async token(form: Record<string, string>, authorization: string | undefined): Promise<Answer> {
    if (!form.grant_type) return { status: 400, body: { error: 'invalid_request', error_description: 'Missing form parameter: grant_type' } };
    const client = this.authenticateClient(form, authorization);
    if ('status' in client) return client;

    if (form.grant_type === PASSWORD_GRANT.grant_type) {
      if (!client.directAccessGrants) return { status: 400, body: { error: 'unauthorized_client', error_description: 'Client not allowed for direct access grants' } };
      const user = this.options.users.find((u) => u.username === form.username);
      if (!user || form.password !== user.password) return { status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };
      const session: Session = { id: randomUUID(), username: user.username, clientId: client.clientId, currentRefreshJti: '', active: true };
      this.sessions.set(session.id, session);
      return { status: 200, body: await this.issue(user, client, session, form.scope) };
    }
    if (form.grant_type === 'refresh_token') {
      const notActive: Answer = { status: 400, body: { error: 'invalid_grant', error_description: 'Token is not active' } };
      if (!form.refresh_token) return { status: 400, body: { error: 'invalid_request', error_description: 'Missing form parameter: refresh_token' } };
      let claims: { sid?: unknown; jti?: unknown; azp?: unknown; scope?: unknown };
      try {
        ({ payload: claims } = await jwtVerify(form.refresh_token, this.refreshKey, { issuer: this.issuer, typ: 'Refresh' }));
      } catch {
        return notActive;
      }
      const session = this.sessions.get(String(claims.sid));
      if (!session || !session.active || session.currentRefreshJti !== claims.jti) return notActive;
      if (claims.azp !== client.clientId) return { status: 400, body: { error: 'invalid_grant', error_description: 'Token client and authorized client don\'t match' } };
      const user = this.options.users.find((u) => u.username === session.username);
      if (!user) return notActive;
      return { status: 200, body: await this.issue(user, client, session, typeof claims.scope === 'string' ? claims.scope : undefined) };
    }
    if (form.grant_type === 'client_credentials') {
      if (client.publicClient || !client.serviceAccountGroups) return { status: 400, body: { error: 'unauthorized_client', error_description: 'Client not enabled to retrieve service account' } };
      const account: SandboxUser = { username: `service-account-${client.clientId}`, password: '', groups: client.serviceAccountGroups };
      const session: Session = { id: randomUUID(), username: account.username, clientId: client.clientId, currentRefreshJti: '', active: true };
      // As Keycloak by default ("Use refresh tokens for client credentials grant" off): no refresh token.
      const { refresh_token: _refresh, refresh_expires_in: _refreshExpiry, ...issued } = await this.issue(account, client, session, form.scope);
      return { status: 200, body: { ...issued, refresh_expires_in: 0 } };
    }
    if (form.grant_type === 'urn:ietf:params:oauth:grant-type:device_code') return this.deviceToken(form, client);
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' } };
  }

  /** RFC 8628 §3.1–3.2: a device code and the code a person enters, as Keycloak answers. */
  private deviceAuthorization(form: Record<string, string>, authorization: string | undefined): Answer {
    const client = this.authenticateClient(form, authorization);
    if ('status' in client) return client;
    if (!client.deviceGrant) return { status: 400, body: { error: 'unauthorized_client', error_description: 'Client is not allowed to initiate OAuth 2.0 Device Authorization Grant. The flow is disabled for the client.' } };
    const alphabet = 'BCDFGHJKLMNPQRSTVWXZ';
    const userCode = Array.from(randomBytes(8), (b, i) => (i === 4 ? '-' : '') + alphabet[b % alphabet.length]).join('');
    const device: DeviceAuthorization = {
      deviceCode: randomUUID(),
      userCode,
      clientId: client.clientId,
      expiresAt: Date.now() + DEVICE_CODE_LIFETIME_S * 1000,
      intervalMs: DEVICE_POLL_INTERVAL_S * 1000,
      lastPollAt: 0,
      codeChallenge: form.code_challenge,
      scope: form.scope,
    };
    this.devices.set(device.deviceCode, device);
    const page = `${this.issuer}/device`;
    return { status: 200, body: { device_code: device.deviceCode, user_code: userCode, verification_uri: page, verification_uri_complete: `${page}?user_code=${userCode}`, expires_in: DEVICE_CODE_LIFETIME_S, interval: DEVICE_POLL_INTERVAL_S } };
  }

  /** The device page's view of this realm (src/sandbox/device-page.ts): its users, and the codes waiting for a person. */
  private get deviceDecisions() {
    return {
      realm: this.options.realm,
      users: this.options.users,
      clientWaiting: (userCode: string) => [...this.devices.values()].find((d) => !d.decision && d.expiresAt > Date.now() && d.userCode === userCode.toUpperCase())?.clientId,
      decide: (userCode: string, decision: { approvedBy: string } | 'denied') => this.decideDevice(userCode, decision),
    };
  }

  /** RFC 8628 §3.4–3.5: pending until a person decides; slow_down when polled faster than the interval. */
  private async deviceToken(form: Record<string, string>, client: SandboxClient): Promise<Answer> {
    const device = this.devices.get(form.device_code ?? '');
    if (!device || device.clientId !== client.clientId) return { status: 400, body: { error: 'invalid_grant', error_description: 'Device code not valid' } };
    if (device.expiresAt <= Date.now()) return { status: 400, body: { error: 'expired_token', error_description: 'Device code is expired' } };
    const now = Date.now();
    const tooSoon = now - device.lastPollAt < device.intervalMs;
    device.lastPollAt = now;
    if (device.decision === 'denied') {
      this.devices.delete(device.deviceCode);
      return { status: 400, body: { error: 'access_denied', error_description: 'The end user denied the authorization request.' } };
    }
    if (!device.decision) {
      if (tooSoon) {
        device.intervalMs += 5_000;
        return { status: 400, body: { error: 'slow_down', error_description: 'Slow down' } };
      }
      return { status: 400, body: { error: 'authorization_pending', error_description: 'The authorization request is still pending' } };
    }
    if (device.codeChallenge !== undefined) {
      const verifier = form.code_verifier ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== device.codeChallenge) return { status: 400, body: { error: 'invalid_grant', error_description: 'PKCE verification failed' } };
    }
    const user = this.options.users.find((u) => u.username === (device.decision as { approvedBy: string }).approvedBy)!;
    this.devices.delete(device.deviceCode);
    const session: Session = { id: randomUUID(), username: user.username, clientId: client.clientId, currentRefreshJti: '', active: true };
    this.sessions.set(session.id, session);
    return { status: 200, body: await this.issue(user, client, session, device.scope) };
  }

  private async logout(form: Record<string, string>, authorization: string | undefined): Promise<Answer> {
    const client = this.authenticateClient(form, authorization);
    if ('status' in client) return client;
    try {
      const { payload } = await jwtVerify(form.refresh_token ?? '', this.refreshKey, { issuer: this.issuer });
      const session = this.sessions.get(String(payload.sid));
      if (session) session.active = false;
      return { status: 204, body: undefined };
    } catch {
      return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh token' } };
    }
  }

  private async issue(user: SandboxUser, client: SandboxClient, session: Session, requestedScope: string | undefined): Promise<TokenResponse & Record<string, unknown>> {
    const now = Math.floor(Date.now() / 1000);
    const scope = ['openid', 'profile', 'email'].filter((s) => s !== 'openid' || (requestedScope ?? '').split(' ').includes('openid')).join(' ');
    const { accessTokenLifetimeSeconds: accessLifetime, refreshTokenLifetimeSeconds: refreshLifetime } = this.options;
    const audience = client.audience ?? this.options.audience;
    const common = { sid: session.id, azp: client.clientId };
    const profile = {
      preferred_username: user.username,
      ...(user.email ? { email: user.email, email_verified: true } : {}),
      ...(user.firstName ? { given_name: user.firstName } : {}),
      ...(user.lastName ? { family_name: user.lastName } : {}),
    };
    const accessToken = await new SignJWT({ ...common, ...profile, typ: 'Bearer', scope, groups: user.groups })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.keys!.kid })
      .setIssuer(this.issuer)
      .setSubject(userId(user.username))
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + accessLifetime)
      .setJti(randomUUID())
      .sign(this.keys!.privateKey);
    const refreshJti = randomUUID();
    session.currentRefreshJti = refreshJti;
    const refreshToken = await new SignJWT({ ...common, scope })
      .setProtectedHeader({ alg: 'HS256', typ: 'Refresh' })
      .setIssuer(this.issuer)
      .setSubject(userId(user.username))
      .setAudience(this.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + refreshLifetime)
      .setJti(refreshJti)
      .sign(this.refreshKey);
    const idToken = scope.includes('openid')
      ? await new SignJWT({ ...common, ...profile, groups: user.groups, typ: 'ID' })
          .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.keys!.kid })
          .setIssuer(this.issuer)
          .setSubject(userId(user.username))
          .setAudience(client.clientId)
          .setIssuedAt(now)
          .setExpirationTime(now + accessLifetime)
          .sign(this.keys!.privateKey)
      : undefined;
    return {
      access_token: accessToken,
      expires_in: accessLifetime,
      refresh_expires_in: refreshLifetime,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      ...(idToken ? { id_token: idToken } : {}),
      'not-before-policy': 0,
      session_state: session.id,
      scope,
    };
  }
}

interface Answer {
  status: number;
  body?: unknown;
  /** A page for a browser (the device page), sent as is with `headers`; else `body` is sent as JSON. */
  html?: string;
  headers?: Record<string, string>;
}

/** A stable user id per username, as Keycloak's are stable per user. */
function userId(username: string): string {
  const hex = createHash('sha256').update(`user:${username}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
