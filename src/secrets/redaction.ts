/**
 * Keeps secrets out of everything dpgw writes: traces, errors, rendered
 * definitions. Two mechanisms, because either alone leaks:
 *  - by key: a value under a key that names a secret is masked wherever it occurs;
 *  - by value: every secret dpgw has read (token, passwords, client secret, a
 *    resolved secret reference) is registered, and any text is scrubbed of it.
 */

export const MASK = '***';

/**
 * `basic.auth.user.info` is a schema registry client's `user:password` (a stream config's
 * `…decoder.prop.basic.auth.user.info`); `ssl.keystore.key` is Kafka's PEM private key.
 */
const SECRET_KEY = /pass(word|wd)?$|secret|token|authorization|credential|api[-_]?key|cookie|^sasl\.jaas\.config$|(^|\.)user\.info$|(^|\.)keystore\.key$/i;
/** `password="…"` inside a JAAS line or similar key=value text; also with JSON-escaped quotes (`password=\"…\"`). */
const INLINE_PASSWORD = /(password\s*=\s*)(\\"(?:[^"\\]|\\[^"])*?\\"|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s;,"}]+)/gi;
const BEARER = /(\bBearer\s+)[A-Za-z0-9\-._~+/]+=*/g;
/** A URL's password (`https://user:password@host`): the user is kept, the password masked. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s/?#@:]*:)[^\s/?#@]+@/gi;

/** Values shorter than this are not scrubbed from text by value: they would mangle ordinary words. */
const MIN_REGISTERED_LENGTH = 4;
const registered = new Set<string>();
/** The registered forms, longest first (so a secret containing another is removed whole); kept as they are registered, not sorted per text. */
let longestFirst: string[] = [];

/** Remember a secret's value so every later output is scrubbed of it. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string') return;
  for (const form of new Set([value, value.trim()])) {
    if (form.length < MIN_REGISTERED_LENGTH) continue;
    // As the secret appears in a trace or an answer: inside JSON ("…\"…"), a URL or a form body (%22, +).
    for (const written of [form, JSON.stringify(form).slice(1, -1), encodeURIComponent(form), new URLSearchParams({ s: form }).toString().slice(2)]) registered.add(written);
  }
  longestFirst = [...registered].sort((a, b) => b.length - a.length);
}

export function isSecretKey(key: string): boolean {
  if (/^(token_type|tokenUrl|tokenEndpoint|expires_in)$/i.test(key)) return false;
  return SECRET_KEY.test(key);
}

/** Mask a JAAS login line's password but keep the rest readable (module, username). */
export function maskInlinePasswords(text: string): string {
  return text.replace(INLINE_PASSWORD, (match, lead: string, value: string) => {
    const quote = value.startsWith('\\"') ? '\\"' : value.startsWith('"') || value.startsWith("'") ? value[0]! : '';
    const inner = quote ? value.slice(quote.length, value.length - quote.length) : value;
    if (inner === MASK) return match;
    return `${lead}${quote}${MASK}${quote}`;
  });
}

/** `name="value"`, `name='value'` or `name=value` options of a JAAS login line, as Kafka's JAAS parser reads them. */
const JAAS_OPTION = /(\b[\w.-]+)(\s*=\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s;"']+)/g;

/**
 * A JAAS login line with every option whose name names a secret masked (`password`, and an
 * OAuth module's `clientSecret`, `token`…), the rest (module, username) kept readable; a line
 * without such an option is masked whole, as any secret is.
 */
export function maskJaasLine(line: string): string {
  let masked = false;
  const out = line.replace(JAAS_OPTION, (match, name: string, equals: string, value: string) => {
    if (!isSecretKey(name)) return match;
    masked = true;
    const quote = value.startsWith('"') || value.startsWith("'") ? value[0]! : '';
    return `${name}${equals}${quote}${MASK}${quote}`;
  });
  return masked ? out : MASK;
}

/**
 * Scrub registered secrets and bearer tokens from text: whole words, which no JSON escape
 * changes (a secret is registered in its JSON-escaped form too), so JSON text may be scrubbed so.
 */
function redactKnownSecrets(text: string): string {
  let out = text;
  for (const secret of longestFirst) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  if (out.includes('@')) out = out.replace(URL_PASSWORD, `$1${MASK}@`);
  return out.includes('Bearer') ? out.replace(BEARER, `$1${MASK}`) : out;
}

/** Scrub registered secrets, bearer tokens and inline passwords from free text. */
export function redactText(text: string): string {
  return maskInlinePasswords(redactKnownSecrets(text));
}

/**
 * JSON.stringify(value, null, 2), masked: an inline password (`password=…` inside a value or
 * a key) only as each string is serialised (redactingReplacer); a document that holds no
 * such word — nearly all, and a listing of 10,000 records — only on its text, for the
 * registered secrets and bearer tokens, at the cost of one search of the text.
 */
export function redactedJson(value: unknown): string | undefined {
  const plain = JSON.stringify(value, null, 2);
  if (plain === undefined) return undefined;
  return /password/i.test(plain) ? JSON.stringify(value, redactingReplacer, 2) : redactKnownSecrets(plain);
}

/**
 * A JSON.stringify replacer that redacts every string value and key as it is serialised
 * (redactText on each): what --json prints is masked value by value, never by patterns on
 * the JSON text, whose escapes (`\\"` inside a string that quotes a JAAS line) such a
 * pattern misreads, cutting a string short (invalid JSON) or leaving a password whole.
 */
export function redactingReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.every(([key]) => redactText(key) === key)) return value;
  return Object.fromEntries(entries.map(([key, member]) => [redactText(key), member]));
}

/** A deep copy of a JSON-like value with secret-named keys masked and text redacted. */
export function maskSecrets<T>(value: T): T {
  return maskValue(value, undefined) as T;
}

function maskValue(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') {
    if (key !== undefined && isSecretKey(key)) {
      // A JAAS line keeps its shape with only the password masked.
      if (/^sasl\.jaas\.config$/i.test(key)) {
        return value === '' ? value : redactText(maskJaasLine(value));
      }
      return value === '' ? value : MASK;
    }
    return redactText(value);
  }
  if (Array.isArray(value)) return value.map((item) => maskValue(item, undefined));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskValue(v, k);
    return out;
  }
  return value;
}

/** Mask an HTTP header map: Authorization and cookies keep only their scheme. */
export function maskHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    if (/^(proxy-)?authorization$/i.test(name)) {
      const scheme = value.split(/\s+/)[0];
      out[name] = scheme && scheme !== value ? `${scheme} ${MASK}` : MASK;
    } else if (isSecretKey(name)) {
      out[name] = MASK;
    } else {
      out[name] = redactText(value);
    }
  }
  return out;
}
