/**
 * The sandbox's policy engine: the decisions dpgw's OPA policy
 * (templates/opa/query-access.rego) makes on a real platform, taken from the
 * sandbox's permission store. The sandbox's query engine asks it, and it answers
 * OPA's data API for the two rules Trino's OPA access control calls.
 */
import { QUERY_ENGINE_SCHEMA } from '../contract/constants.js';
import type { Catalog } from './catalog.js';

export const INFORMATION_SCHEMA = 'information_schema';

interface SchemaResource {
  catalogName?: string;
  schemaName?: string;
}

interface TableResource extends SchemaResource {
  tableName?: string;
  columns?: string[];
}

interface OpaInput {
  context?: { identity?: { user?: string; groups?: string[] } };
  action?: { operation?: string; resource?: { schema?: SchemaResource; table?: TableResource; user?: { user?: string } }; filterResources?: Array<{ schema?: SchemaResource; table?: TableResource }> };
}

const OPEN_OPERATIONS = new Set(['ExecuteQuery', 'AccessCatalog', 'FilterCatalogs', 'ShowSchemas', 'ShowTables']);

export class QueryAccessPolicy {
  constructor(
    private readonly catalog: Catalog,
    /** The analytics catalog's name in the query engine. */
    readonly analyticsCatalog: string,
  ) {}

  /** Tables of schema `default` the groups may read (lower-case, as the engine names them). */
  readableTables(groups: readonly string[]): Set<string> {
    return new Set(this.catalog.permissions.filter((p) => p.groups.some((g) => groups.includes(g))).map((p) => p.table.toLowerCase()));
  }

  canRead(table: TableResource, groups: readonly string[]): boolean {
    return table.catalogName === this.analyticsCatalog && table.schemaName === QUERY_ENGINE_SCHEMA && this.readableTables(groups).has(String(table.tableName).toLowerCase());
  }

  /** A schema of the analytics catalog is listed to someone who can read a table in it. */
  schemaListed(schema: SchemaResource, groups: readonly string[]): boolean {
    return schema.catalogName === this.analyticsCatalog && (schema.schemaName === QUERY_ENGINE_SCHEMA || schema.schemaName === INFORMATION_SCHEMA) && this.readableTables(groups).size > 0;
  }

  tableListed(table: TableResource, groups: readonly string[]): boolean {
    return this.canRead(table, groups) || (table.schemaName === INFORMATION_SCHEMA && this.schemaListed(table, groups));
  }

  /** OPA's `allow` rule for one operation. */
  allow(input: OpaInput): boolean {
    const groups = input.context?.identity?.groups ?? [];
    const operation = input.action?.operation ?? '';
    const resource = input.action?.resource ?? {};
    if (OPEN_OPERATIONS.has(operation)) return true;
    const table = resource.table ?? {};
    switch (operation) {
      case 'SelectFromColumns':
      case 'ShowColumns':
        return this.canRead(table, groups) || table.schemaName === INFORMATION_SCHEMA;
      case 'FilterColumns':
        return this.canRead(table, groups) || table.schemaName === INFORMATION_SCHEMA;
      case 'FilterSchemas':
        return this.schemaListed(resource.schema ?? {}, groups);
      case 'FilterTables':
        return this.tableListed(table, groups);
      case 'ViewQueryOwnedBy':
      case 'KillQueryOwnedBy':
      case 'FilterViewQueryOwnedBy':
        return resource.user?.user === input.context?.identity?.user;
      default:
        return false;
    }
  }

  /** OPA's `batch` rule: the indices that pass (of the table's columns for FilterColumns). */
  batch(input: OpaInput): number[] {
    const resources = input.action?.filterResources ?? [];
    if (input.action?.operation === 'FilterColumns') {
      const table = resources[0]?.table;
      return table && this.allow({ ...input, action: { operation: 'FilterColumns', resource: { table } } }) ? (table.columns ?? []).map((_, i) => i) : [];
    }
    return resources.flatMap((resource, i) => (this.allow({ ...input, action: { operation: input.action?.operation, resource } }) ? [i] : []));
  }
}
