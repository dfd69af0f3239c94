/**
 * Every request either sandbox server receives, in order, with secrets masked:
 * what tests assert on ("the exact paths, headers and bodies") and what
 * `dpgw sandbox --log <file>` writes as JSON lines.
 */
import { appendFileSync } from 'node:fs';

export type SandboxServerName = 'gateway' | 'identity' | 'query-engine' | 'dashboard-tool';

export interface LoggedRequest {
  seq: number;
  at: string;
  server: SandboxServerName;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON or form fields (secret values masked), raw text otherwise, undefined when empty. */
  body: unknown;
  /** Names of the form fields in the order received (token endpoint). */
  formFields?: string[];
  status?: number;
  durationMs?: number;
}

const MASK = '***';
const SECRET_FIELD = /^(password|client_secret|refresh_token|access_token|id_token|token|client_assertion)$/i;
const JAAS_PASSWORD = /(password\s*=\s*)("(?:[^"\\]|\\.)*"|[^\s;]+)/gi;

export class RequestLog {
  readonly entries: LoggedRequest[] = [];
  private seq = 0;

  constructor(private readonly file?: string) {}

  add(entry: Omit<LoggedRequest, 'seq' | 'at'>): LoggedRequest {
    const logged: LoggedRequest = { seq: ++this.seq, at: new Date().toISOString(), ...entry };
    this.entries.push(logged);
    return logged;
  }

  /** Called once the answer is known; the line goes to the file then. */
  complete(entry: LoggedRequest, status: number, durationMs: number): void {
    entry.status = status;
    entry.durationMs = durationMs;
    if (this.file) appendFileSync(this.file, JSON.stringify(entry) + '\n', { mode: 0o600 });
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Requests of one server, optionally only those whose path starts with a prefix. */
  of(server: SandboxServerName, pathPrefix = ''): LoggedRequest[] {
    return this.entries.filter((e) => e.server === server && e.path.startsWith(pathPrefix));
  }
}

export function maskRequestHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (name === 'authorization' || name === 'proxy-authorization') out[name] = `${value.split(' ')[0]} ${MASK}`;
    else if (name === 'cookie' || name === 'x-csrftoken') out[name] = MASK;
    else out[name] = value;
  }
  return out;
}

/** Masks secret fields of a form or JSON body; the stream password inside sasl.jaas.config keeps the line's shape. */
export function maskBody(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    if (key && SECRET_FIELD.test(key)) return MASK;
    if (key === 'sasl.jaas.config') return value.replace(JAAS_PASSWORD, (_m, lead: string, v: string) => `${lead}${v.startsWith('"') ? `"${MASK}"` : MASK}`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => maskBody(item));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskBody(v, k)]));
  return value;
}
