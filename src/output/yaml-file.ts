/**
 * Every YAML file dpgw writes (schema files, `dpgw export`'s and `dpgw init`'s manifests,
 * `dpgw table template`'s templates) is built as a `yaml` Document — values as nodes, comments as comment nodes — and written
 * here, once: the library decides how each scalar is written, so no value is quoted by hand
 * (a hand-made quoting function had to satisfy two parsers, and once let a name inject YAML).
 * What the library leaves to its caller is settled here, for every file alike:
 * - a string YAML 1.1 reads as another type (`yes`, `on`, `y`, `010`, `1_000`) is quoted as
 *   well as one YAML 1.2 reads so (`true`, `null`, `1e3`): dpgw reads its files with js-yaml's
 *   core schema, but users open them with other tools;
 * - a string js-yaml, dpgw's own reader, would read plain as anything else is quoted too;
 * - a string with a character some reader refuses raw (DEL, C1 controls, U+FFFE, U+FFFF),
 *   reads another way (U+0085 and the line and paragraph separators break a line in YAML 1.1)
 *   or an editor shows reordered (bidirectional controls: Trojan Source) is one double-quoted
 *   scalar, with that character escaped;
 * - a comment cannot end its line or the document: controls in it are replaced.
 */
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { Document, isScalar, Scalar, visit, type Node } from 'yaml';

/** Characters a double-quoted scalar must hold escaped which JSON.stringify (the library's double-quoted writer) leaves raw. */
const ESCAPED_IN_QUOTES = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]/;
/** Characters that end a comment's line or the document, or that a reader refuses raw (a lone surrogate half too). */
// eslint-disable-next-line no-control-regex
const NOT_IN_COMMENTS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A document for a file dpgw writes; `header`: its opening comment, a line each. */
export function yamlFileDocument(value: unknown, header: readonly string[] = []): Document {
  // compat: a string either YAML version would read as another type is written quoted.
  const document = new Document(value, { compat: 'yaml-1.1' });
  if (header.length > 0 && document.contents) document.contents.commentBefore = header.map((line) => ` ${commentText(line)}`).join('\n');
  return document;
}

/** A comment after a value on its line (`key: value  # text`). */
export function commentAfter(node: Node, text: string): void {
  // No leading space: what tells a line comment from a comment line in `commentString` below.
  node.comment = commentText(text).trimStart();
}

/** The node written double-quoted, whatever the value (a date-time format reads at a glance as one value). */
export function doubleQuoted(node: Node | undefined): void {
  if (isScalar(node)) node.type = Scalar.QUOTE_DOUBLE;
}

/** The text of the file. */
export function yamlFileText(document: Document): string {
  visit(document, {
    Scalar(_, scalar) {
      if (typeof scalar.value === 'string' && (ESCAPED_IN_QUOTES.test(scalar.value) || !readsPlainAsItself(scalar.value))) scalar.type = Scalar.QUOTE_DOUBLE;
    },
  });
  const text = document.toString({
    // One line a value: no folding, no block scalars; a line break in a value is `\n` in a double-quoted scalar.
    lineWidth: 0,
    blockQuote: false,
    singleQuote: false,
    doubleQuotedAsJSON: true,
    // A comment line (from yamlFileDocument) is ` text`; a line comment (from commentAfter) is `text`, written two spaces after its value (as yamllint wants).
    commentString: (comment) => comment.replace(/^(?!$)( ?)/gm, (_, space: string) => (space ? '#' + space : ' # ')),
  });
  // These characters stand only inside double-quoted scalars now (forced above; comments hold none): `\uXXXX` is the same character to every reader.
  return text.replace(new RegExp(ESCAPED_IN_QUOTES.source, 'g'), (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Whether js-yaml, which reads dpgw's files (olap/located-document.ts), reads the text written
 * plain as that text. Its core schema takes more as numbers than YAML 1.1 or 1.2 do: a signed
 * `0o` octal (`-0o17` is -15), which the library, asking only those two, would write plain.
 */
function readsPlainAsItself(text: string): boolean {
  try {
    return loadYaml(text, { schema: CORE_SCHEMA }) === text;
  } catch {
    return false;
  }
}

/** A line of text as comment text: a line break or control character in it (a file's name) would end the comment or the document. */
function commentText(line: string): string {
  return line.replace(NOT_IN_COMMENTS, '\ufffd');
}
