/** An inferred schema as the file `dpgw schema push` reads: YAML with a header of what was sampled, or JSON. */
import type { Node, YAMLMap, YAMLSeq } from 'yaml';
import type { AnalyticsSchema, DateTimeFieldSpec, FieldSpec } from '../contract/types.js';
import { parseLocatedDocument } from '../olap/located-document.js';
import { validateSchema } from '../olap/schema-validation.js';
import { failOnIssues } from '../olap/table-template.js';
import { doubleQuoted, yamlFileDocument, yamlFileText } from '../output/yaml-file.js';

/** The schema as YAML, after the same checks as `schema push`: nothing unpushable is printed, written or sent. */
export function checkedSchemaYaml(schema: AnalyticsSchema, header: string[]): string {
  const text = schemaYaml(schema, header);
  failOnIssues(validateSchema(parseLocatedDocument(text, 'inferred schema.yaml')).issues, 'inferred schema');
  return text;
}

export function schemaYaml(schema: AnalyticsSchema, header: string[]): string {
  // Every value a scalar of its own (`dpgw export` writes what the store holds: a dataType or a format with a line break or a quote in it stays that one value).
  // A multi-value column says so (singleValueField: false); a single-value one is written as the contract writes it.
  const fields = (specs: Array<FieldSpec & { singleValueField?: unknown }>) => specs.map((s) => ({ name: s.name, dataType: String(s.dataType), ...(s.singleValueField === false ? { singleValueField: false } : {}) }));
  const dateTimes = (specs: DateTimeFieldSpec[]) => specs.map((s) => ({ name: s.name, dataType: String(s.dataType), notNull: s.notNull === true, format: String(s.format), granularity: String(s.granularity) }));
  const document = yamlFileDocument(
    {
      schemaName: schema.schemaName,
      ...(schema.dimensionFieldSpecs?.length ? { dimensionFieldSpecs: fields(schema.dimensionFieldSpecs) } : {}),
      ...(schema.metricFieldSpecs?.length ? { metricFieldSpecs: fields(schema.metricFieldSpecs) } : {}),
      ...(schema.dateTimeFieldSpecs?.length ? { dateTimeFieldSpecs: dateTimes(schema.dateTimeFieldSpecs) } : {}),
    },
    header,
  );
  // A plain column a line, `{ name: …, dataType: … }`; a date-time column's format and granularity quoted, read at a glance as one value each.
  for (const group of ['dimensionFieldSpecs', 'metricFieldSpecs']) for (const spec of (document.get(group) as YAMLSeq<YAMLMap> | undefined)?.items ?? []) spec.flow = true;
  for (const spec of (document.get('dateTimeFieldSpecs') as YAMLSeq<YAMLMap> | undefined)?.items ?? []) for (const key of ['format', 'granularity']) doubleQuoted(spec.get(key, true) as Node);
  return yamlFileText(document);
}
