/**
 * Messages from a file or stdin, as JSON Lines (streamed: a 1 GB file is never read
 * whole) or as one JSON array. A line that is not a JSON object is skipped with its
 * file:line; a line longer than MAX_LINE_BYTES is skipped without being kept.
 */
import { MAX_ANSWER_DEPTH, nestedDeeperThan } from '../net/answer-bounds.js';
import type { Readable } from 'node:stream';
import { fieldsWrittenAsDecimals } from './written-decimals.js';

const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** A JSON array is parsed whole; larger input should be JSON Lines. */
const MAX_ARRAY_BYTES = 256 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface Message {
  message: Record<string, unknown>;
  where: string;
  /** Top-level fields holding a number written with a fraction or exponent (`1500.00`), which JSON.parse made an integer: the type is read from the text. */
  decimals?: ReadonlySet<string>;
}

export interface Skipped {
  where: string;
  reason: string;
}

export async function* readMessages(name: string, input: Readable, skipped: (skip: Skipped) => void): AsyncGenerator<Message> {
  let line = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let format: 'lines' | 'array' | undefined;
  const arrayParts: Buffer[] = [];
  let arrayBytes = 0;

  const parseLine = (bytes: Buffer): Message | undefined => {
    line++;
    const where = `${name}:${line}`;
    if (tooLong) {
      tooLong = false;
      skipped({ where, reason: `longer than ${MAX_LINE_BYTES / 1024 / 1024} MB` });
      return undefined;
    }
    let text = bytes.toString('utf8');
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return parseMessage(text, where, skipped);
  };

  for await (const raw of input) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
    if (format === undefined) {
      const first = firstSignificantByte(Buffer.concat([...pending, chunk]));
      if (first === undefined) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        continue;
      }
      format = first === 0x5b /* [ */ ? 'array' : 'lines';
      if (format === 'array') {
        arrayParts.push(...pending, chunk);
        arrayBytes += pendingBytes + chunk.length;
        pending = [];
        pendingBytes = 0;
        continue;
      }
    }
    if (format === 'array') {
      arrayBytes += chunk.length;
      if (arrayBytes > MAX_ARRAY_BYTES) throw new InputTooLarge(`${name} is a JSON array over ${MAX_ARRAY_BYTES / 1024 / 1024} MB: give the messages as JSON Lines (one object a line), which dpgw streams`);
      arrayParts.push(chunk);
      continue;
    }
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE); index !== -1; index = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, index);
      const whole = pending.length ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      pendingBytes = 0;
      const parsed = parseLine(whole);
      if (parsed) yield parsed;
      start = index + 1;
    }
    const rest = chunk.subarray(start);
    if (tooLong) continue;
    pendingBytes += rest.length;
    if (pendingBytes > MAX_LINE_BYTES) {
      // Keep nothing of a line this long; say so when it ends.
      tooLong = true;
      pending = [];
      pendingBytes = 0;
    } else if (rest.length) pending.push(Buffer.from(rest));
  }

  if (format === 'array') {
    yield* arrayMessages(name, Buffer.concat(arrayParts), skipped);
    return;
  }
  if (pending.length || tooLong) {
    const parsed = parseLine(Buffer.concat(pending));
    if (parsed) yield parsed;
  }
}

/** The messages of a file that is one JSON array (parsed whole): each element an object, or skipped with its index. */
function* arrayMessages(name: string, bytes: Buffer, skipped: (skip: Skipped) => void): Generator<Message> {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    skipped({ where: name, reason: `not a JSON array (${(error as Error).message.replace(/ in JSON at position \d+.*$/, '')})` });
    return;
  }
  const decimals = fieldsWrittenAsDecimals(text, 2);
  let objects = 0;
  for (const [index, element] of (value as unknown[]).entries()) {
    const where = `${name}[${index}]`;
    if (element === null || typeof element !== 'object' || Array.isArray(element)) skipped({ where, reason: 'not an object' });
    else if (nestedDeeperThan(element, MAX_ANSWER_DEPTH)) skipped({ where, reason: `nested more than ${MAX_ANSWER_DEPTH} levels deep` });
    else yield { message: element as Record<string, unknown>, where, decimals: decimals.get(objects) };
    if (element !== null && typeof element === 'object' && !Array.isArray(element)) objects++;
  }
}

export class InputTooLarge extends Error {}

/** One message's text: a JSON object, or skipped with the reason. Blank text is no message. */
export function parseMessage(raw: string, where: string, skipped: (skip: Skipped) => void): Message | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    skipped({ where, reason: `not JSON (${(error as Error).message.replace(/ in JSON at position \d+.*$/, '')})` });
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    skipped({ where, reason: `a JSON ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}, not an object` });
    return undefined;
  }
  // Anyone who may write to the topic writes this: a message too deep to walk is skipped, not a crash of the run.
  if (nestedDeeperThan(value, MAX_ANSWER_DEPTH)) {
    skipped({ where, reason: `nested more than ${MAX_ANSWER_DEPTH} levels deep` });
    return undefined;
  }
  return { message: value as Record<string, unknown>, where, decimals: fieldsWrittenAsDecimals(text, 1).get(0) };
}

function firstSignificantByte(bytes: Buffer): number | undefined {
  let index = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) index = 3;
  for (; index < bytes.length; index++) {
    const byte = bytes[index]!;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte;
  }
  return undefined;
}
