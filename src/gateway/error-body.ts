/**
 * The best human message in an error response. The contract does not show the
 * gateway's error body, so dpgw recognises the shapes its neighbours use:
 *  - Spring Boot's default: { timestamp, status, error, message, path }
 *  - RFC 7807 problem+json: { type, title, status, detail, instance }
 *  - the analytics store (Pinot): { code, error }
 *  - OAuth / Keycloak: { error, error_description }
 *  - the dashboard tool (Superset, Flask-AppBuilder): { errors: [{ message }] } or { message: { field: [why] } }
 *  - plain text (or HTML from a proxy, reduced to its text)
 */
import { redactText } from '../secrets/redaction.js';
import { serverText } from '../text/terminal-text.js';
import { MAX_ANSWER_DEPTH, nestedDeeperThan } from '../net/answer-bounds.js';

export type ErrorBodyShape = 'spring' | 'problem' | 'store' | 'oauth' | 'dashboard' | 'json' | 'text' | 'empty';

export interface ErrorBodyMessage {
  shape: ErrorBodyShape;
  message: string;
}

const MAX_MESSAGE = 500;

export function messageFromErrorBody(body: string | undefined): ErrorBodyMessage {
  const text = (body ?? '').trim();
  if (text === '') return { shape: 'empty', message: '' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { shape: 'text', message: clip(plainText(text)) };
  }
  if (typeof parsed === 'string') return { shape: 'text', message: clip(parsed) };
  // Too deep to stringify without overflowing the stack: shown as the text it is, clipped.
  if (nestedDeeperThan(parsed, MAX_ANSWER_DEPTH)) return { shape: 'text', message: clip(text) };
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { shape: 'json', message: clip(JSON.stringify(parsed)) };
  }
  const fields = new BodyFields(parsed as Record<string, unknown>);
  for (const recognise of OBJECT_SHAPES) {
    const found = recognise(fields);
    if (found) return { shape: found.shape, message: clip(found.message) };
  }
  const fallback = fields.text('message') ?? fields.text('error') ?? fields.text('detail');
  return { shape: 'json', message: clip(fallback ?? JSON.stringify(fields.body)) };
}

/** A JSON object body, and its fields that hold words. */
class BodyFields {
  constructor(readonly body: Record<string, unknown>) {}

  /** The field's text, trimmed; undefined when it is not a string or is blank. */
  text(key: string): string | undefined {
    const value = this.body[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  }

  has(key: string): boolean {
    return key in this.body;
  }
}

/**
 * The object shapes dpgw recognises, tried in this order (the first that matches says the
 * message): each gives its shape and the message unclipped, or undefined when it is not its shape.
 */
const OBJECT_SHAPES: ReadonlyArray<(fields: BodyFields) => ErrorBodyMessage | undefined> = [
  // RFC 7807 problem+json.
  (f) => (f.text('title') !== undefined || (f.text('detail') !== undefined && f.has('type')) ? { shape: 'problem', message: [f.text('title'), f.text('detail')].filter(Boolean).join(': ') } : undefined),
  (f) => {
    if (!(f.has('timestamp') && (f.has('path') || f.has('status')) && (f.text('message') !== undefined || f.text('error') !== undefined))) return undefined;
    // Spring hides `message` unless configured; then `error` (the reason phrase) is all there is.
    const message = f.text('message');
    return { shape: 'spring', message: message && message !== 'No message available' ? message : (f.text('error') ?? '') };
  },
  // The analytics store: a numeric code beside the error.
  (f) => (typeof f.body.code === 'number' && f.text('error') !== undefined ? { shape: 'store', message: f.text('error')! } : undefined),
  (f) => {
    const error = f.text('error');
    const description = f.text('error_description');
    if (error === undefined || (description === undefined && Object.keys(f.body).length !== 1)) return undefined;
    return { shape: 'oauth', message: description ? `${description} (${error})` : error };
  },
  // The dashboard tool's list of errors, each with a message.
  (f) => {
    const errors = f.body.errors;
    if (!Array.isArray(errors)) return undefined;
    const messages = errors.flatMap((e) => (typeof (e as { message?: unknown })?.message === 'string' ? [(e as { message: string }).message] : []));
    return messages.length ? { shape: 'dashboard', message: messages.join('; ') } : undefined;
  },
  // The dashboard tool's form errors: { message: { field: [why] } }.
  (f) => {
    const byField = f.body.message;
    if (byField === null || typeof byField !== 'object' || Array.isArray(byField)) return undefined;
    const fields = Object.entries(byField as Record<string, unknown>).map(([field, why]) => `${field}: ${Array.isArray(why) ? why.join(', ') : JSON.stringify(why)}`);
    return { shape: 'dashboard', message: fields.join('; ') };
  },
];

function plainText(text: string): string {
  if (!/^\s*</.test(text)) return text.replace(/\s+/g, ' ');
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
  const stripped = text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  return title?.trim() || stripped;
}

function clip(message: string): string {
  // The server's words on one line, with any control character escaped: never a forged line of dpgw's.
  const oneLine = serverText(redactText(message).replace(/\s*\n\s*/g, ' ').trim());
  return oneLine.length > MAX_MESSAGE ? `${oneLine.slice(0, MAX_MESSAGE - 1)}…` : oneLine;
}
