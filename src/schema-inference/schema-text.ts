/** An inferred schema as the file `dpgw schema push` reads: YAML with a header of what was sampled, or JSON. */
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
  const name = (value: string) => (/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(value) ? value : JSON.stringify(value));
  const fields = (key: string, specs: FieldSpec[] | undefined) => (specs?.length ? [`${key}:`, ...specs.map((s) => `  - { name: ${name(s.name)}, dataType: ${s.dataType} }`)] : []);
  const dateTimes = (specs: DateTimeFieldSpec[] | undefined) =>
    specs?.length
      ? ['dateTimeFieldSpecs:', ...specs.flatMap((s) => [`  - name: ${name(s.name)}`, `    dataType: ${s.dataType}`, `    notNull: ${String(s.notNull ?? false)}`, `    format: "${s.format}"`, `    granularity: "${s.granularity}"`])]
      : [];
  return [
    ...header.map((line) => `# ${line}`),
    `schemaName: ${name(schema.schemaName)}`,
    ...fields('dimensionFieldSpecs', schema.dimensionFieldSpecs),
    ...fields('metricFieldSpecs', schema.metricFieldSpecs),
    ...dateTimes(schema.dateTimeFieldSpecs),
    '',
  ].join('\n');
}
