/** An inferred schema as the file `dpgw schema push` reads: YAML with a header of what was sampled, or JSON. */
import { load as loadYaml, CORE_SCHEMA } from 'js-yaml';
import { stringify } from 'yaml';
import type { AnalyticsSchema, DateTimeFieldSpec, FieldSpec } from '../contract/types.js';
import { parseLocatedDocument } from '../olap/located-document.js';
import { validateSchema } from '../olap/schema-validation.js';
import { failOnIssues } from '../olap/table-template.js';

/** The schema as YAML, after the same checks as `schema push`: nothing unpushable is printed, written or sent. */
export function checkedSchemaYaml(schema: AnalyticsSchema, header: string[]): string {
  const text = schemaYaml(schema, header);
  failOnIssues(validateSchema(parseLocatedDocument(text, 'inferred schema.yaml')).issues, 'inferred schema');
  return text;
}

export function schemaYaml(schema: AnalyticsSchema, header: string[]): string {
  const name = yamlString;
  // Every value a scalar of its own (`dpgw export` writes what the store holds: a dataType or a format with a line break or a quote in it stays that one value).
  // A multi-value column says so (singleValueField: false); a single-value one is written as the contract writes it.
  const fields = (key: string, specs: Array<FieldSpec & { singleValueField?: unknown }> | undefined) =>
    specs?.length ? [`${key}:`, ...specs.map((s) => `  - { name: ${name(s.name)}, dataType: ${name(String(s.dataType))}${s.singleValueField === false ? ', singleValueField: false' : ''} }`)] : [];
  const dateTimes = (specs: DateTimeFieldSpec[] | undefined) =>
    specs?.length
      ? ['dateTimeFieldSpecs:', ...specs.flatMap((s) => [`  - name: ${name(s.name)}`, `    dataType: ${name(String(s.dataType))}`, `    notNull: ${String(s.notNull === true)}`, `    format: ${doubleQuoted(String(s.format))}`, `    granularity: ${doubleQuoted(String(s.granularity))}`])]
      : [];
  return [
    ...header.map((line) => `# ${commentText(line)}`),
    `schemaName: ${name(schema.schemaName)}`,
    ...fields('dimensionFieldSpecs', schema.dimensionFieldSpecs),
    ...fields('metricFieldSpecs', schema.metricFieldSpecs),
    ...dateTimes(schema.dateTimeFieldSpecs),
    '',
  ].join('\n');
}

/**
 * A name as a YAML scalar that every reader takes back as that same string. Plain only
 * when it looks like a name and neither YAML 1.1 nor 1.2 reads it as anything else: a
 * message field named `true`, `null`, `yes`, `on` or `y` was written plain and read back
 * as a boolean or null, so infer refused its own schema (issue #30). The yaml library's
 * own stringify decides, for both versions (it quotes what its schema would resolve to
 * another type), and js-yaml — the reader of schema files — must agree.
 */
export function yamlString(value: string): string {
  const plain =
    /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(value) &&
    stringify(value, { version: '1.1' }) === `${value}\n` &&
    stringify(value, { version: '1.2' }) === `${value}\n` &&
    loadYaml(value, { schema: CORE_SCHEMA }) === value;
  return plain ? value : doubleQuoted(value);
}

/**
 * A YAML double-quoted scalar: JSON's escapes, which YAML shares, plus \u escapes for what
 * JSON leaves raw but a YAML reader refuses or reads another way — DEL, C1 controls (U+0085
 * is a line break in YAML 1.1), the line and paragraph separators, the byte-order mark and
 * non-characters. The validator then names such a column in its own words.
 */
function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A header line as a comment: a line break or control character in it (a file's name) would end the comment or the document. */
export function commentText(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, '\ufffd');
}
