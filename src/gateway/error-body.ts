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
  const o = parsed as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof o[k] === 'string' && (o[k] as string).trim() !== '' ? (o[k] as string).trim() : undefined);

  if (str('title') !== undefined || (str('detail') !== undefined && 'type' in o)) {
    const title = str('title');
    const detail = str('detail');
    return { shape: 'problem', message: clip([title, detail].filter(Boolean).join(': ')) };
  }
  if ('timestamp' in o && ('path' in o || 'status' in o) && (str('message') !== undefined || str('error') !== undefined)) {
    // Spring hides `message` unless configured; then `error` (the reason phrase) is all there is.
    const message = str('message');
    const error = str('error');
    return { shape: 'spring', message: clip(message && message !== 'No message available' ? message : (error ?? '')) };
  }
  if (typeof o.code === 'number' && str('error') !== undefined) {
    return { shape: 'store', message: clip(str('error')!) };
  }
  if (str('error') !== undefined && (str('error_description') !== undefined || Object.keys(o).length === 1)) {
    const description = str('error_description');
    return { shape: 'oauth', message: clip(description ? `${description} (${str('error')})` : str('error')!) };
  }
  if (Array.isArray(o.errors)) {
    const messages = o.errors.flatMap((e) => (typeof (e as { message?: unknown })?.message === 'string' ? [(e as { message: string }).message] : []));
    if (messages.length) return { shape: 'dashboard', message: clip(messages.join('; ')) };
  }
  if (o.message !== null && typeof o.message === 'object' && !Array.isArray(o.message)) {
    const fields = Object.entries(o.message as Record<string, unknown>).map(([field, why]) => `${field}: ${Array.isArray(why) ? why.join(', ') : JSON.stringify(why)}`);
    return { shape: 'dashboard', message: clip(fields.join('; ')) };
  }
  const fallback = str('message') ?? str('error') ?? str('detail');
  return { shape: 'json', message: clip(fallback ?? JSON.stringify(o)) };
}

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
