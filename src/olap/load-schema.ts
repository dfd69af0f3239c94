import type { AnalyticsSchema } from '../contract/types.js';
import { readLocatedDocument } from './located-document.js';
import { validateSchema, type ValidationIssue } from './schema-validation.js';
import { failOnIssues } from './table-template.js';

/** Reads and checks a schema file; each warning to `warn`; throws on the first problem (naming how many more there are). */
export async function loadSchema(file: string, warn: (message: string) => void): Promise<AnalyticsSchema> {
  const document = await readLocatedDocument(file, 'schema file');
  const { schema, issues } = validateSchema(document);
  failOnIssues(issues, 'schema file', warn);
  return schema!;
}

/** Every problem of a schema file (for `dpgw schema validate`); syntax errors still throw. */
export async function schemaIssues(file: string): Promise<{ schema?: AnalyticsSchema; issues: ValidationIssue[] }> {
  return validateSchema(await readLocatedDocument(file, 'schema file'));
}
