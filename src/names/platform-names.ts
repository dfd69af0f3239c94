/**
 * The names dpgw sends to the platform, checked before any request: they go
 * into URL paths (data sources, enablements, data sets), into the enablement's groups,
 * into the analytics store (schemas and tables, which it refuses with '.' or white space)
 * and into SQL. A name outside these rules used to be sent, half-applied (an enablement
 * created) and only then refused. The contract names no rule; docs/gateway-api.md says
 * what dpgw assumes. One home: flags (command-kit/option-kit.ts), manifests and schema files use this.
 */
import { DpgwError } from '../errors/dpgw-error.js';

/** `manifest`: a manifest's name, the mark its tables carry (olap/manifest-mark.ts). */
export type NameKind = 'data source' | 'data set' | 'enablement' | 'group' | 'topic' | 'table' | 'schema' | 'manifest';

/** Kafka's limit for a topic name, and far above any name the contract's examples use. */
export const MAX_NAME_LENGTH = 249;

/** Catalog names: letters, digits, '.', '-', '_', starting with a letter or digit. */
const CATALOG_NAME = new RegExp(`^(?=.{1,${MAX_NAME_LENGTH}}$)[A-Za-z0-9][A-Za-z0-9._-]*$`, 's');
/** Store names (schemas, tables): no '.', which the store reads as database.table. */
const STORE_NAME = new RegExp(`^(?=.{1,${MAX_NAME_LENGTH}}$)[A-Za-z0-9_][A-Za-z0-9_-]*$`, 's');

export function namePattern(kind: NameKind): RegExp {
  return kind === 'table' || kind === 'schema' ? STORE_NAME : CATALOG_NAME;
}

/** What is wrong with a name, as the middle of a sentence, or undefined when it is fine. */
export function nameProblem(kind: NameKind, value: string): string | undefined {
  const store = kind === 'table' || kind === 'schema';
  // The store keeps "__" for itself (Pinot's TABLE_NAME_FORBIDDEN_SUBSTRING) in schema and table names.
  if (store && namePattern(kind).test(value) && value.includes('__')) return `the ${kind} name ${shown(value)} has "__" at position ${value.indexOf('__') + 1}, which the analytics store reserves: use a single '_'`;
  if (namePattern(kind).test(value)) return undefined;
  const rule = store ? "use letters, digits, '-' and '_' (the analytics store refuses '.' and spaces)" : "use letters, digits, '.', '-' and '_', starting with a letter or digit";
  if (value.length === 0) return `the ${kind} name is empty`;
  if (value.length > MAX_NAME_LENGTH) return `the ${kind} name ${shown(value)} is ${value.length} characters long, more than ${MAX_NAME_LENGTH}`;
  const allowed = store ? /[A-Za-z0-9_-]/ : /[A-Za-z0-9._-]/;
  const at = [...value].findIndex((character, index) => !allowed.test(character) || (index === 0 && !store && !/[A-Za-z0-9]/.test(character)));
  const character = [...value][at]!;
  const what = at === 0 && allowed.test(character) ? `starts with '${character}'` : `has ${describe(character)} at position ${at + 1}`;
  return `the ${kind} name ${shown(value)} ${what}: ${rule}`;
}

/** The name, or a usage error that says where it came from; nothing has been sent. */
export function requireName(kind: NameKind, value: string, where: string): string {
  const problem = nameProblem(kind, value);
  if (problem !== undefined) throw new DpgwError('NAME_INVALID', problem, { where, hint: 'nothing was sent' });
  return value;
}

/** A name as it can be shown on one line: quoted, escapes for line breaks and control characters, long ones cut. */
export function shown(value: string): string {
  const cut = value.length > 60 ? `${value.slice(0, 57)}…` : value;
  return JSON.stringify(cut);
}

function describe(character: string): string {
  if (character === '\n' || character === '\r') return 'a line break';
  if (character === ' ') return 'a space';
  if (character === '\t') return 'a tab';
  const code = character.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  if (/\s/.test(character)) return 'white space';
  if (character === "'") return 'a quote (\')';
  if (character === '"') return 'a double quote (")';
  return `'${character}'`;
}
