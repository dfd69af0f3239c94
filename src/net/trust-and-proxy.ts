/**
 * TLS trust and proxies, applied alike to dpgw's two HTTP stacks: got (the
 * gateway) and fetch (openid-client, the identity provider).
 *
 * - Trust: the system roots, NODE_EXTRA_CA_CERTS, and the --ca-file setting.
 *   Passing `ca` to Node replaces its default store, so the three are combined.
 * - Proxies: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case), as curl reads them.
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import got, { type CancelableRequest, type Got, type Response } from 'got';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { DpgwError } from '../errors/dpgw-error.js';
import { MB, readRegularFile } from '../files/read-regular-file.js';

/** The certificate authorities to trust, or undefined for Node's defaults (no --ca-file). */
export function certificateAuthorities(caFile: string | undefined, where: string, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (!caFile) return undefined;
  const read = (path: string, origin: string): string => {
    const pem = readRegularFile(path, { what: 'certificate authorities file', maxBytes: 4 * MB, where: origin, hint: 'give a PEM file of CA certificates' });
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new DpgwError('usage', `cannot use ${path} as certificate authorities: no PEM certificate in it`, { where: origin, hint: 'give a PEM file of CA certificates' });
    return pem;
  };
  const extra = env.NODE_EXTRA_CA_CERTS ? [read(env.NODE_EXTRA_CA_CERTS, 'NODE_EXTRA_CA_CERTS')] : [];
  return [...tls.rootCertificates, ...extra, read(caFile, where)];
}

/** The proxy URL for a target URL, or undefined to go direct. */
export function proxyFor(url: string): string | undefined {
  return getProxyForUrl(url) || undefined;
}

/** Keep-alive agents for got: direct, or through the proxy the environment names for this base URL. */
export function agentsFor(baseUrl: string, ca: string[] | undefined): { http: http.Agent; https: https.Agent } {
  const proxy = proxyFor(baseUrl);
  const common = { keepAlive: true, maxSockets: 32 };
  if (!proxy) return { http: new http.Agent(common), https: new https.Agent({ ...common, ...(ca ? { ca } : {}) }) };
  return {
    http: new HttpProxyAgent(proxy, common) as unknown as http.Agent,
    https: new HttpsProxyAgent(proxy, { ...common, ...(ca ? { ca } : {}) }) as unknown as https.Agent,
  };
}

/**
 * got for one server, as every dpgw client uses it: keep-alive agents (through the
 * environment's proxy), the trusted authorities, a per-attempt timeout, and nothing
 * done behind the caller's back — no redirects, no retries (each caller has its own
 * policy), no exception for an HTTP status, the body as text.
 */
export function plainGot(baseUrl: string, ca: string[] | undefined, timeoutMs: number): { got: Got; agents: { http: http.Agent; https: https.Agent } } {
  const agents = agentsFor(baseUrl, ca);
  return {
    agents,
    got: got.extend({
      throwHttpErrors: false,
      followRedirect: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
      agent: agents,
      https: ca ? { certificateAuthority: ca } : undefined,
      responseType: 'text',
      // Bytes as sent, so the cap below counts what is kept: a small gzip can inflate to gigabytes.
      decompress: false,
      handlers: [
        async (options, next) => {
          if (options.isStream) return next(options);
          return capped(next(options) as unknown as CancelableRequest<Response<string>>, String(options.method), String(options.url)) as unknown as ReturnType<typeof next>;
        },
      ],
    }),
  };
}

/** The most of one answer dpgw reads: far above any catalog, health or query page it needs, far below what exhausts memory. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** An answer larger than MAX_ANSWER_BYTES (said by its length, or found while reading) is stopped there, in one line. */
async function capped(pending: CancelableRequest<Response<string>>, method: string, url: string): Promise<Response<string>> {
  let tooLarge = false;
  // on() returns the request itself, awaited below.
  void pending.on('downloadProgress', ({ transferred, total }) => {
    if (tooLarge || (transferred <= MAX_ANSWER_BYTES && (total ?? 0) <= MAX_ANSWER_BYTES)) return;
    tooLarge = true;
    pending.cancel();
  });
  try {
    return await pending;
  } catch (error) {
    if (!tooLarge) throw error;
    throw new DpgwError('rejected', `answer too large: ${method} ${url} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MB, which dpgw does not read`, {
      hint: 'the server is not the one dpgw expects there, or it is misbehaving; check the URL setting',
      details: { method, url, limitBytes: MAX_ANSWER_BYTES },
    });
  }
}
