/**
 * Text from servers (error bodies, catalog labels, health component names, the query
 * engine's answers) reaches a terminal only as text: a control character could clear the
 * screen (`\e[2J`), retitle the window (`\e]0;…\a`), move the cursor or, with a line feed,
 * forge a line of dpgw's own ("✓ all checks passed"). Such characters are shown escaped,
 * as `\u001b`, never written raw.
 */

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators (U+2028, U+2029: a line
 * break to many terminals, log viewers and editors), and the bidirectional overrides that
 * reorder what is shown (Trojan Source).
 */
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const ANY_CONTROL = new RegExp(`[${CONTROLS}]`, 'g');
/** dpgw's own colours (SGR, what chalk writes) and tabs are kept; every other control, line breaks included, is escaped. */
const CONTROL_BUT_STYLE = new RegExp(`\\u001b\\[[0-9;]*m|[${CONTROLS.replace('\\u0000-\\u001f', '\\u0000-\\u0008\\u000a-\\u001f')}]`, 'g');
/** Any character that ends, breaks or reorders a line, for values written into lines others parse (JAAS, properties, HTTP headers): C0 (tab too), DEL, C1 (NEL), the line and paragraph separators, the bidirectional controls. */
const LINE_BREAKING = new RegExp(`[${CONTROLS}]`);
/** What JSON.stringify leaves raw of CONTROLS: all but C0 (which it escapes itself). */
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(character: string): string {
  return NAMED[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A server's text for one line of output: every control escaped, line breaks included. */
export function serverText(text: string): string {
  return text.replace(ANY_CONTROL, escaped);
}

/** A server's value (a link, an id) inside a message: JSON-quoted, every control escaped, clipped at 200 characters. */
export function quotedServerText(text: string): string {
  return serverText(JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text));
}

/**
 * The last step before a terminal, for one line: dpgw's own tabs and colours stay; any other
 * control is escaped, line breaks included. Whatever a message holds (a server's words, a
 * manifest's key, a file's path), it stays on the line it was put on: no data starts a line.
 */
export function terminalLine(text: string): string {
  return text.replace(CONTROL_BUT_STYLE, (match) => (match.length > 1 ? match : escaped(match)));
}

/**
 * JSON text with the controls JSON.stringify leaves raw (DEL, C1, U+2028 and U+2029, the
 * bidirectional overrides) written as \u escapes: the same document, safe to print.
 */
export function jsonSafe(json: string): string {
  return json.replace(JSON_UNSAFE, escaped);
}

/** Whether a value holds a character that could end or forge a line of a file or header it is written into. */
export function holdsControlCharacter(text: string): boolean {
  return LINE_BREAKING.test(text);
}
