/**
 * The identity provider, through openid-client: discovery at
 * `{auth_url}/auth/realms/{realm}`, the password grant with the contract's form
 * fields, the refresh_token grant, and sign-out. Its fetch runs on got, the
 * gateway client's HTTP stack, with the same trust and proxy rules, a timeout and
 * a masked trace: Node's own fetch compiles its HTTP parser (WebAssembly) on the
 * first connection, which costs memory a two-request command should not pay
 * (docs/benchmarks.md has the figure). Every failure becomes a one-line DpgwError: exit 4 for what the
 * provider refused, 5 when it cannot be reached.
 */
import type http from 'node:http';
import type https from 'node:https';
import type { Got, Method } from 'got';
import * as oidc from 'openid-client';
import { PASSWORD_GRANT } from '../contract/constants.js';
import { paths } from '../contract/paths.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { readClaims } from './jwt-claims.js';
import { plainGot } from '../net/trust-and-proxy.js';
import { maskSecrets, redactText, registerSecret } from '../secrets/redaction.js';
import { hostOf } from '../net/url-host.js';
import { quotedServerText, serverText } from '../text/terminal-text.js';

export interface IdentitySettings {
  authUrl: string;
  realm: string;
  clientId: string;
  /** Undefined: a public client (the device grant), which authenticates with its id alone. */
  clientSecret?: string;
  /** Where the secret came from, for the hint when it is refused: `DPGW_CLIENT_SECRET`, `the clientSecret reference (config.yaml:4:5)`. */
  clientSecretFrom?: string;
  /** `post`: client_secret in the form (the contract); `basic`: HTTP Basic. */
  clientAuth: 'post' | 'basic';
  timeoutMs: number;
  certificateAuthorities?: string[];
  trace?: (line: string) => void;
}

/** What a grant returned; the access token expires at the earlier of expires_in from receipt and its own exp. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  /** Epoch milliseconds, on this machine's clock. */
  accessTokenExpiresAt: number;
  /**
   * Set when the identity provider's clock and this machine's disagree by more than
   * CLOCK_SKEW_TOLERANCE_MS: the provider's clock minus this machine's, in milliseconds
   * (negative: the provider is behind), or `unknown` when the token has no iat to measure
   * it by but its exp had passed on this machine's clock before the request was sent.
   */
  clockSkewMs?: number | 'unknown';
  refreshTokenExpiresAt?: number;
  scope?: string;
  issuer: string;
  tokenEndpoint: string;
  endSessionEndpoint?: string;
}

/**
 * How far the id token's time claims may be off this machine's clock. dpgw keeps the id token of a grant but relies
 * on none of its claims (the gateway checks the access token), so a provider whose clock is minutes off must not fail
 * the login with "JWT timestamp claim value failed validation"; the skew is measured and warned about instead.
 */
const CLIENT_METADATA: Partial<oidc.ClientMetadata> = { [oidc.clockTolerance]: 24 * 60 * 60 };

/** What a person needs to approve a device sign-in: where to go and the code to enter. */
export interface DeviceCode {
  verificationUri: string;
  /** The same address with the code filled in, when the provider gives one. */
  verificationUriComplete?: string;
  userCode: string;
  expiresInSeconds: number;
}

export class IdentityClient {
  /** got for the provider, with the gateway client's trust, proxy and timeout rules. */
  private http?: { got: Got; agents: { http: http.Agent; https: https.Agent } };

  constructor(private readonly settings: IdentitySettings) {
    registerSecret(settings.clientSecret);
  }

  get issuer(): string {
    return `${this.settings.authUrl}${paths.realmIssuer(this.settings.realm)}`;
  }

  async close(): Promise<void> {
    this.http?.agents.http.destroy();
    this.http?.agents.https.destroy();
  }

  /** Step 3 of the contract: the resource-owner password grant. */
  async passwordGrant(username: string, password: string): Promise<IssuedTokens> {
    registerSecret(password);
    const config = await this.discover();
    // expires_in counted from the request's start: never later than the provider meant.
    const sent = Date.now();
    const response = await this.call(() => oidc.genericGrantRequest(config, PASSWORD_GRANT.grant_type, { username, password, scope: PASSWORD_GRANT.scope }), 'login', username);
    return this.issued(response, sent, config);
  }

  /** The client credentials grant: the token of the client's own service account; no username or password. */
  async clientCredentialsGrant(): Promise<IssuedTokens> {
    const config = await this.discover();
    const sent = Date.now();
    const response = await this.call(() => oidc.clientCredentialsGrant(config, { scope: PASSWORD_GRANT.scope }), 'service-account');
    return this.issued(response, sent, config);
  }

  /**
   * The device authorization grant (RFC 8628): the provider gives a code, `show` tells the person where to enter it,
   * and the token endpoint is polled at the provider's interval (slower on slow_down) until they approve in a browser,
   * deny, or the code expires. PKCE (S256) where the provider lists it.
   */
  async deviceGrant(show: (code: DeviceCode) => void, signal?: AbortSignal): Promise<IssuedTokens> {
    const config = await this.discover();
    if (config.serverMetadata().device_authorization_endpoint === undefined) {
      throw new DpgwError('SIGN_IN_REFUSED', `realm ${this.settings.realm} at ${this.settings.authUrl} offers no device authorization (its discovery names no device_authorization_endpoint)`, {
        hint: 'use --grant password or client-credentials, or ask for the device grant to be enabled for the client',
      });
    }
    const verifier = config.serverMetadata().code_challenge_methods_supported?.includes('S256') ? oidc.randomPKCECodeVerifier() : undefined;
    const parameters: Record<string, string> = { scope: PASSWORD_GRANT.scope };
    if (verifier !== undefined) Object.assign(parameters, { code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const device = await this.call(() => oidc.initiateDeviceAuthorization(config, parameters), 'device');
    // The person is sent to the page the provider names: only a page of the provider itself, never a look-alike elsewhere.
    this.checkedDevicePage(device.verification_uri, 'verification_uri');
    if (device.verification_uri_complete !== undefined) this.checkedDevicePage(device.verification_uri_complete, 'verification_uri_complete');
    show({ verificationUri: device.verification_uri, verificationUriComplete: device.verification_uri_complete, userCode: device.user_code, expiresInSeconds: device.expires_in });
    const sent = Date.now();
    // The code lives expires_in seconds, as given: polling stops then, whatever the provider answers meanwhile.
    const expiry = AbortSignal.timeout(device.expires_in * 1000);
    const polling = signal === undefined ? expiry : AbortSignal.any([signal, expiry]);
    // At most one poll a second, whatever interval a provider gives (RFC 8628: 5 s when it gives none).
    const paced = { ...device, interval: Math.max(1, device.interval ?? 5) };
    try {
      const response = await this.call(() => oidc.pollDeviceAuthorizationGrant(config, paced, verifier !== undefined ? { code_verifier: verifier } : undefined, { signal: polling }), 'device');
      return this.issued(response, sent, config);
    } catch (error) {
      if (!expiry.aborted) throw error;
      throw new DpgwError('SIGN_IN_REFUSED', `the code expired before the sign-in was approved (it was valid for ${device.expires_in} s)`, { hint: 'run `dpgw login --grant device` again, and approve the code in time' });
    }
  }

  /** The refresh_token grant, against the token endpoint remembered from login (no discovery). */
  async refreshGrant(refreshToken: string, known: { issuer: string; tokenEndpoint: string }): Promise<IssuedTokens> {
    registerSecret(refreshToken);
    // Remembered from a login, perhaps under other settings: the refresh token goes only to this realm.
    const config = this.configuration({ issuer: known.issuer, token_endpoint: this.checkedEndpoint(known.tokenEndpoint, 'token endpoint') });
    const sent = Date.now();
    const response = await this.call(() => oidc.refreshTokenGrant(config, refreshToken), 'refresh');
    return this.issued(response, sent, config);
  }

  /** Ends the provider's session (best effort: logout must work offline too). */
  async endSession(refreshToken: string, endSessionEndpoint: string | undefined): Promise<boolean> {
    if (!endSessionEndpoint) return false;
    try {
      this.checkedEndpoint(endSessionEndpoint, 'end-session endpoint');
    } catch {
      // A remembered endpoint outside the realm gets no refresh token; the local sign-out goes on.
      return false;
    }
    const form = new URLSearchParams({ client_id: this.settings.clientId, refresh_token: refreshToken });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const secret = this.settings.clientSecret;
    if (secret !== undefined && this.settings.clientAuth === 'basic') headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(this.settings.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    else if (secret !== undefined) form.set('client_secret', secret);
    try {
      const response = await this.fetch(endSessionEndpoint, { method: 'POST', headers, body: form.toString() });
      return response.ok;
    } catch {
      return false;
    }
  }

  private async discover(): Promise<oidc.Configuration> {
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(new URL(this.issuer), this.settings.clientId, CLIENT_METADATA, this.clientAuthentication(), this.options());
    } catch (error) {
      throw this.failure(error, 'discovery');
    }
    const metadata = config.serverMetadata();
    if (metadata.issuer.replace(/\/+$/, '') !== this.issuer) {
      throw new DpgwError('IDENTITY_PROVIDER_UNTRUSTED', `the identity provider at ${this.settings.authUrl} names its issuer ${JSON.stringify(serverText(metadata.issuer))}, not ${this.issuer}; dpgw sends it no password`, {
        hint: 'set --auth-url to the URL the provider calls itself (before /auth/realms), or fix the provider\'s frontend URL',
      });
    }
    // The discovery document decides where the password, the client secret and the refresh token go: only to the realm of --auth-url.
    this.checkedEndpoint(metadata.token_endpoint, 'token endpoint');
    this.checkedEndpoint(metadata.end_session_endpoint, 'end-session endpoint');
    this.checkedEndpoint(metadata.device_authorization_endpoint, 'device authorization endpoint');
    return config;
  }

  /**
   * An endpoint dpgw sends a secret or a token to: it has the origin (scheme, host, port) of --auth-url and lies
   * under the realm's path, or it is refused and nothing is sent to it. Discovery answers and the session cache
   * alike name endpoints; neither may send the run's secrets elsewhere.
   */
  private checkedEndpoint(endpoint: string | undefined, what: string): string | undefined {
    if (endpoint === undefined) return undefined;
    const realm = new URL(this.issuer);
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    const shown = quotedServerText(endpoint);
    if (url?.origin !== realm.origin) {
      throw new DpgwError('IDENTITY_PROVIDER_UNTRUSTED', `the identity provider advertises its ${what} at ${url ? serverText(url.origin) : shown}, not at the origin of --auth-url (${realm.origin}); dpgw sends nothing there`, {
        hint: 'set --auth-url to the provider\'s own URL, or fix the provider\'s frontend URL',
      });
    }
    if (url.username || url.password || !url.pathname.startsWith(`${realm.pathname}/`) || url.pathname.split('/').some((segment) => segment === '..' || segment === '.' || /%2e|%2f|%5c/i.test(segment))) {
      throw new DpgwError('IDENTITY_PROVIDER_UNTRUSTED', `the identity provider advertises its ${what} at ${shown}, outside realm ${this.settings.realm} (${realm.pathname}/); dpgw sends nothing there`, {
        hint: 'check --realm and --auth-url, or the provider\'s configuration',
      });
    }
    return endpoint;
  }

  /** A device sign-in page: an http(s) page on the origin of --auth-url, or refused before the person is shown it. */
  private checkedDevicePage(page: string, field: string): void {
    const provider = new URL(this.issuer).origin;
    let url: URL | undefined;
    try {
      url = new URL(page);
    } catch {
      url = undefined;
    }
    if (url !== undefined && /^https?:$/.test(url.protocol) && url.origin === provider && !url.username && !url.password) return;
    throw new DpgwError('IDENTITY_PROVIDER_UNTRUSTED', `the identity provider sends the person to approve the sign-in at ${url && /^https?:$/.test(url.protocol) ? serverText(url.origin) : quotedServerText(page)} (its ${field}), not at the origin of --auth-url (${provider}); dpgw shows no such page`, {
      hint: 'set --auth-url to the provider\'s own URL, or fix the provider\'s frontend URL',
    });
  }

  private configuration(metadata: oidc.ServerMetadata): oidc.Configuration {
    const config = new oidc.Configuration(metadata, this.settings.clientId, CLIENT_METADATA, this.clientAuthentication());
    config[oidc.customFetch] = this.fetch;
    if (metadata.issuer.startsWith('http:')) oidc.allowInsecureRequests(config);
    config.timeout = Math.ceil(this.settings.timeoutMs / 1000);
    return config;
  }

  private options(): oidc.DiscoveryRequestOptions {
    return {
      // A plain-http realm is a local one (the sandbox); real ones are https.
      ...(this.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : {}),
      [oidc.customFetch]: this.fetch,
      timeout: Math.ceil(this.settings.timeoutMs / 1000),
    };
  }

  private clientAuthentication(): oidc.ClientAuth {
    const secret = this.settings.clientSecret;
    if (secret === undefined) return oidc.None();
    return this.settings.clientAuth === 'basic' ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
  }

  /** The fetch openid-client calls, on got with dpgw's trust, proxy, timeout and trace. */
  private readonly fetch = async (url: string, init: oidc.CustomFetchOptions | RequestInit): Promise<Response> => {
    const method = (init.method ?? 'GET').toUpperCase();
    this.trace(`→ ${method} ${url}`);
    const body = init.body === undefined || init.body === null ? undefined : init.body instanceof URLSearchParams ? init.body.toString() : String(init.body);
    if (this.settings.trace && body !== undefined) this.trace(`  ${JSON.stringify(maskSecrets(Object.fromEntries(new URLSearchParams(body))))}`);
    const started = performance.now();
    this.http ??= plainGot(this.settings.authUrl, this.settings.certificateAuthorities, this.settings.timeoutMs);
    try {
      const answer = await this.http.got(url, {
        method: method as Method,
        headers: Object.fromEntries(new Headers(init.headers as ConstructorParameters<typeof Headers>[0])),
        body,
        signal: init.signal ?? undefined,
      });
      this.trace(`← ${answer.statusCode} ${method} ${url} ${Math.round(performance.now() - started)} ms`);
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
      }
      const withoutBody = answer.statusCode === 204 || answer.statusCode === 205 || answer.statusCode === 304;
      const response = new Response(withoutBody ? null : answer.body, { status: answer.statusCode, statusText: answer.statusMessage ?? '', headers });
      // openid-client reports the URL of a failed answer.
      Object.defineProperty(response, 'url', { value: answer.url });
      return response;
    } catch (error) {
      this.trace(`✗ ${method} ${url} ${networkCode(error) ?? 'ERROR'} after ${Math.round(performance.now() - started)} ms`);
      throw error;
    }
  };

  private async call<T>(request: () => Promise<T>, what: 'login' | 'refresh' | 'device' | 'service-account', username?: string): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(error, what, username);
    }
  }

  private issued(response: oidc.TokenEndpointResponse, sent: number, config: oidc.Configuration): IssuedTokens {
    const metadata = config.serverMetadata();
    const refreshExpiresIn = (response as { refresh_expires_in?: unknown }).refresh_expires_in;
    registerSecret(response.access_token);
    registerSecret(response.refresh_token);
    registerSecret(response.id_token);
    const { expiresAt, clockSkewMs } = accessTokenExpiry(response, sent, Date.now());
    return {
      accessToken: response.access_token,
      refreshToken: response.refresh_token,
      idToken: response.id_token,
      accessTokenExpiresAt: expiresAt,
      ...(clockSkewMs !== undefined ? { clockSkewMs } : {}),
      refreshTokenExpiresAt: typeof refreshExpiresIn === 'number' && refreshExpiresIn > 0 ? sent + refreshExpiresIn * 1000 : undefined,
      scope: response.scope,
      issuer: metadata.issuer,
      tokenEndpoint: metadata.token_endpoint ?? `${this.settings.authUrl}${paths.token(this.settings.realm)}`,
      endSessionEndpoint: metadata.end_session_endpoint,
    };
  }

  private trace(line: string): void {
    this.settings.trace?.(redactText(line));
  }

  /** One line for each way the provider can say no, with what to do about it. */
  private failure(error: unknown, what: SignInStep, username?: string): DpgwError {
    if (error instanceof DpgwError) return error;
    if (error instanceof oidc.ResponseBodyError) return this.refusal(error, what, username);
    // The cause is the Response, so check its shape.
    const response = (error as { cause?: unknown }).cause as { status?: unknown; url?: string } | undefined;
    if (error instanceof oidc.ClientError && typeof response?.status === 'number') return this.statusFailure(response.status, response.url, what);
    const code = networkCode(error);
    if (code) return this.networkFailure(code);
    if (error instanceof oidc.ClientError || error instanceof oidc.AuthorizationResponseError || error instanceof oidc.WWWAuthenticateChallengeError) {
      return new DpgwError('SIGN_IN_REFUSED', `the identity provider's answer to the ${what} was not usable: ${serverText(error.message)}`, { hint: `check that ${this.issuer} is a Keycloak-style realm` });
    }
    return new DpgwError('SIGN_IN_FAILED', `the ${what} failed: ${serverText(String((error as Error).message))}`, { hint: 'run with --verbose for the exchange', cause: error });
  }

  /** The provider said no in an OAuth error body: what it said, and what to change. */
  private refusal(error: oidc.ResponseBodyError, what: SignInStep, username: string | undefined): DpgwError {
    // The provider's words, on dpgw's one line: every control escaped (a line feed would forge the next line of the log).
    const said = serverText(String(error.error));
    const saidDescription = error.error_description === undefined ? undefined : serverText(String(error.error_description));
    const refused = { code: error.error, status: error.status, description: saidDescription ? `${saidDescription} (${said})` : said, details: { status: error.status, error: said, description: saidDescription } };
    return this.grantRefusal(refused, what) ?? this.clientRefusal(refused, what, username);
  }

  /** Refusals that mean something of their own for one grant (the device grant, a refresh, the service account). */
  private grantRefusal({ code, description, details }: ProviderRefusal, what: SignInStep): DpgwError | undefined {
    const { clientId, realm } = this.settings;
    const grantNotAllowed = code === 'unauthorized_client' || code === 'unsupported_grant_type';
    if (what === 'device' && (code === 'access_denied' || code === 'expired_token')) {
      return new DpgwError('SIGN_IN_REFUSED', code === 'access_denied' ? 'the sign-in was denied in the browser' : 'the code expired before the sign-in was approved', { hint: 'run `dpgw login --grant device` again', details });
    }
    if (what === 'refresh' && code === 'invalid_grant') {
      return new DpgwError('SESSION_EXPIRED', `the session has ended: ${description}`, { hint: 'run `dpgw login` again', details });
    }
    // (invalid_grant is said by clientRefusal; these two are about other codes, so it need not come first.)
    if (what === 'service-account' && grantNotAllowed) {
      return new DpgwError('SIGN_IN_REFUSED', `client ${clientId} cannot sign in as its service account: ${description}`, { hint: `switch on "Client authentication" and "Service accounts roles" for client ${clientId} in realm ${realm}, or use --grant password`, details });
    }
    if (what === 'device' && grantNotAllowed) {
      return new DpgwError('SIGN_IN_REFUSED', `client ${clientId} may not use the device grant: ${description}`, { hint: `switch on "OAuth 2.0 Device Authorization Grant" for client ${clientId} in realm ${realm}, or use --grant password`, details });
    }
    return undefined;
  }

  /** Refusals of the user's password or of the client, whatever the grant. */
  private clientRefusal({ code, status, description, details }: ProviderRefusal, what: SignInStep, username: string | undefined): DpgwError {
    const { clientId, realm } = this.settings;
    if (code === 'invalid_grant') return new DpgwError('SIGN_IN_REFUSED', `the identity provider refused the username or password: ${description}`, { hint: `check the username${username === undefined ? '' : ` (${username})`} and the password, then try again; \`dpgw config\` shows whether the username came from --username, DPGW_USERNAME or the profile`, details });
    if (code === 'unauthorized_client' && status === 400) {
      return new DpgwError('SIGN_IN_REFUSED', `client ${clientId} may not use the password grant: ${description}`, { hint: `switch on "Direct access grants" for client ${clientId} in realm ${realm}, or use a client that has it`, details });
    }
    if (code === 'unauthorized_client' || code === 'invalid_client') {
      return new DpgwError('SIGN_IN_REFUSED', `the identity provider refused client ${clientId}: ${description}`, { hint: `check --client-id and the client secret from ${this.settings.clientSecretFrom ?? 'the clientSecret reference'} (\`dpgw config\`)`, details });
    }
    return new DpgwError('SIGN_IN_REFUSED', `the identity provider refused the ${what}: ${description}`, { hint: 'see the message; run with --verbose for the exchange', details });
  }

  /** The provider answered an HTTP status and no OAuth error body. */
  private statusFailure(status: number, url: string | undefined, what: SignInStep): DpgwError {
    const { realm, authUrl } = this.settings;
    if (status === 404) {
      return new DpgwError('SIGN_IN_REFUSED', `realm "${realm}" does not exist at ${authUrl} (404 from ${url || this.issuer})`, { hint: 'check --realm and --auth-url (the URL before /auth/realms)', details: { status: 404 } });
    }
    if (status >= 500 || status === 429) {
      // Down or overloaded, not a refusal: the same as unreachable (exit 5), so a caller may wait and try again.
      return new DpgwError('SERVER_UNREACHABLE', `the identity provider answered ${status} to the ${what} at ${url || this.issuer}`, { hint: 'it is down or overloaded: try again shortly, or check its health', details: { status } });
    }
    return new DpgwError('SIGN_IN_REFUSED', `the identity provider answered ${status} to the ${what} at ${url || this.issuer}`, { hint: 'check --auth-url; run with --verbose for the exchange', details: { status } });
  }

  /** No answer from the provider: too slow, or not reached. */
  private networkFailure(code: string): DpgwError {
    const host = hostOf(this.settings.authUrl);
    if (code === 'TIMEOUT') {
      return new DpgwError('SERVER_TIMEOUT', `the identity provider at ${host} gave no answer within ${this.settings.timeoutMs / 1000} s`, { hint: 'check that it is up, or allow longer with --timeout <seconds>', details: { code } });
    }
    return new DpgwError('SERVER_UNREACHABLE', `cannot reach the identity provider at ${host} (${code})`, { hint: 'check --auth-url, your network and HTTPS_PROXY / NO_PROXY', details: { code } });
  }
}

/** What the identity client was doing when the provider said no. */
type SignInStep = 'discovery' | 'login' | 'refresh' | 'device' | 'service-account';

/** An OAuth error body as dpgw says it: the provider's code, and its words made safe for one line. */
interface ProviderRefusal {
  code: string;
  status: number;
  description: string;
  details: { status: number; error: string; description: string | undefined };
}

/** How far the identity provider's clock may be from this machine's before token times are translated and a warning is shown. */
export const CLOCK_SKEW_TOLERANCE_MS = 30_000;

/**
 * When the access token stops working, on this machine's clock. expires_in counted from
 * when the answer arrived can be up to a second later than the token's own exp (whole
 * seconds, on the provider's clock), which is what the gateway checks: when the clocks
 * agree, the earlier of the two counts. Measured: 64 answers 401 in a 2,000-data-set run
 * with 4-second tokens before this.
 *
 * exp is on the provider's clock, though. The token's iat (the provider's time at issue,
 * whole seconds) against this machine's time between `sent` and `received` measures the
 * difference: the skew lies between iat − received and iat + 1 s − sent. Only when every
 * value of that interval is beyond CLOCK_SKEW_TOLERANCE_MS do the clocks disagree (a slow
 * answer is no skew); exp is then translated to this machine's clock with the largest skew
 * the interval allows (the earliest expiry), still capped by expires_in, and the skew,
 * estimated from the interval's middle, is returned for a warning. Without iat, an exp
 * already past when the request was sent can only be the provider's clock being behind:
 * expires_in is trusted, the skew unknown.
 */
export function accessTokenExpiry(response: Pick<oidc.TokenEndpointResponse, 'access_token' | 'expires_in'>, sent: number, received: number = sent): { expiresAt: number; clockSkewMs?: number | 'unknown' } {
  const fromExpiresIn = sent + (response.expires_in ?? 300) * 1000;
  const claims = readClaims(response.access_token) as { exp?: unknown; iat?: unknown } | undefined;
  const exp = typeof claims?.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  const iat = typeof claims?.iat === 'number' && Number.isFinite(claims.iat) ? claims.iat * 1000 : undefined;
  if (iat !== undefined) {
    const least = iat - received;
    const most = iat + 1000 - sent;
    if (least > CLOCK_SKEW_TOLERANCE_MS || most < -CLOCK_SKEW_TOLERANCE_MS) {
      const clockSkewMs = Math.round((least + most) / 2 / 1000) * 1000;
      return { expiresAt: exp === undefined ? fromExpiresIn : Math.min(fromExpiresIn, exp - most), clockSkewMs };
    }
  } else if (exp !== undefined && exp < sent) {
    return { expiresAt: fromExpiresIn, clockSkewMs: 'unknown' };
  }
  return { expiresAt: exp === undefined ? fromExpiresIn : Math.min(fromExpiresIn, exp) };
}

/** The network error code inside a fetch failure, TIMEOUT for an abort by the timeout. */
function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const named = current as { name?: string; code?: string };
    if (named.name === 'TimeoutError' || named.name === 'AbortError' || named.code === 'UND_ERR_CONNECT_TIMEOUT' || named.code === 'UND_ERR_HEADERS_TIMEOUT') return 'TIMEOUT';
    if (typeof named.code === 'string' && /^E[A-Z]+/.test(named.code)) return named.code;
  }
  return undefined;
}
