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
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import got, { type CancelableRequest, type Got, type Response } from 'got';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { DpgwError } from '../errors/dpgw-error.js';
import { MB, readRegularFile } from '../files/read-regular-file.js';
import { serverText } from '../text/terminal-text.js';
import { MAX_ANSWER_BYTES, MAX_RUN_ANSWER_BYTES } from './answer-bounds.js';

/** The certificate authorities to trust, or undefined for Node's defaults (no --ca-file). */
export function certificateAuthorities(caFile: string | undefined, where: string, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (!caFile) return undefined;
  const read = (path: string, origin: string): string => {
    const pem = readRegularFile(path, { what: 'certificate authorities file', maxBytes: 4 * MB, where: origin, hint: 'give a PEM file of CA certificates' });
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new DpgwError('CA_FILE_INVALID', `cannot use ${path} as certificate authorities: no PEM certificate in it`, { where: origin, hint: 'give a PEM file of CA certificates' });
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
 * policy), no exception for an HTTP status, the body as text. dpgw asks for no
 * compression; a server that compresses anyway is decoded here, within the same bound
 * as a plain answer (a small gzip can inflate to gigabytes).
 */
export function plainGot(baseUrl: string, ca: string[] | undefined, timeoutMs: number): { got: Got; agents: { http: http.Agent; https: https.Agent } } {
  const agents = agentsFor(baseUrl, ca);
  // What this client has read in all: one run of one client keeps no more than MAX_RUN_ANSWER_BYTES.
  const budget = { read: 0 };
  return {
    agents,
    got: got.extend({
      throwHttpErrors: false,
      followRedirect: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
      agent: agents,
      https: ca ? { certificateAuthority: ca } : undefined,
      responseType: 'buffer',
      // Bytes as sent, so the cap below counts what is kept.
      decompress: false,
      handlers: [
        async (options, next) => {
          // No cache is used, so its options are left empty: got spreads them into every request's
          // options object and adds some thirty keys after them, which V8 (Node 20) builds anew each
          // time: about 0.1 ms of CPU and 20 KB of garbage a request (docs/benchmarks.md, issue #46).
          options.cacheOptions = {};
          if (options.isStream) return next(options);
          const method = String(options.method);
          const url = String(options.url);
          const response = await capped(next(options) as unknown as CancelableRequest<Response<Buffer>>, method, url, budget);
          const text = await decodedText(response, method, url);
          budget.read += text.length;
          if (budget.read > MAX_RUN_ANSWER_BYTES) throw runBudgetSpent(method, url);
          (response as unknown as { body: string }).body = text;
          return response as unknown as ReturnType<typeof next>;
        },
      ],
    }),
  };
}

/** An answer larger than MAX_ANSWER_BYTES (said by its length, or found while reading) is stopped there, in one line. */
async function capped(pending: CancelableRequest<Response<Buffer>>, method: string, url: string, budget: { read: number }): Promise<Response<Buffer>> {
  let stopped: DpgwError | undefined;
  // on() returns the request itself, awaited below.
  void pending.on('downloadProgress', ({ transferred, total }) => {
    if (stopped) return;
    if (transferred > MAX_ANSWER_BYTES || (total ?? 0) > MAX_ANSWER_BYTES) stopped = tooLarge(method, url, `answered more than ${MAX_ANSWER_BYTES / MB} MB`, MAX_ANSWER_BYTES);
    else if (budget.read + transferred > MAX_RUN_ANSWER_BYTES) stopped = runBudgetSpent(method, url);
    if (stopped) pending.cancel();
  });
  try {
    return await pending;
  } catch (error) {
    throw stopped ?? error;
  }
}

function runBudgetSpent(method: string, url: string): DpgwError {
  return tooLarge(method, url, `brought what this run read from ${new URL(url).host} past ${MAX_RUN_ANSWER_BYTES / MB} MB in all`, MAX_RUN_ANSWER_BYTES);
}

function tooLarge(method: string, url: string, what: string, limitBytes: number): DpgwError {
  return new DpgwError('ANSWER_TOO_LARGE', `answer too large: ${method} ${url} ${what}, which dpgw does not read`, {
    hint: 'the server is not the one dpgw expects there, or it is misbehaving; check the URL setting',
    details: { method, url, limitBytes },
  });
}

const DECODERS: Readonly<Record<string, (data: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Promise<Buffer>>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** The answer as text: decoded by its content-encoding (each, in reverse order), never past MAX_ANSWER_BYTES. */
async function decodedText(response: Response<Buffer>, method: string, url: string): Promise<string> {
  let body = response.rawBody ?? Buffer.alloc(0);
  const header = response.headers['content-encoding'];
  const encodings = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((encoding) => encoding.trim().toLowerCase())
    .filter((encoding) => encoding !== '' && encoding !== 'identity');
  for (const encoding of encodings.reverse()) {
    // An own key only: a server's `content-encoding: constructor` names no decoder.
    const decode = Object.hasOwn(DECODERS, encoding) ? DECODERS[encoding] : undefined;
    if (!decode) {
      throw new DpgwError('ANSWER_UNUSABLE', `${method} ${url} answered with content-encoding ${JSON.stringify(serverText(encoding.slice(0, 40)))}, which dpgw does not decode`, {
        hint: 'dpgw asks for no compression; check that the URL setting points at the service, not at a proxy that compresses',
        details: { method, url, encoding },
      });
    }
    if (body.length === 0) continue;
    try {
      body = await decode(body, { maxOutputLength: MAX_ANSWER_BYTES });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(method, url, `answered more than ${MAX_ANSWER_BYTES / MB} MB once decompressed`, MAX_ANSWER_BYTES);
      throw new DpgwError('ANSWER_UNUSABLE', `${method} ${url} answered a ${encoding} body that does not decode (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {
        hint: 'the server or a proxy in between sent a broken answer; try again, or check the URL setting',
        details: { method, url, encoding },
      });
    }
  }
  return body.toString('utf8');
}
