/**
 * Contract steps 7 and 8, checked in the SQL query engine as the signed-in user:
 * a member of the enablement's groups sees schema `default`, the table in it, and
 * gets rows from `SELECT * FROM default.<table>`; anyone else sees no schema and
 * no table, and that SELECT fails with the engine's access-denied error.
 */
import { QUERY_ENGINE_SCHEMA, STORAGE_TOUCH_NOT_NEEDED_FROM } from '../contract/constants.js';
import { QueryFailed, sqlIdentifier, type QueryResult, type StatementClient } from './statement-client.js';
import { serverText } from '../text/terminal-text.js';

export type Expectation = 'visible' | 'hidden';

export type CheckName = 'schema listed' | 'table listed' | 'rows returned' | 'schema hidden' | 'table hidden' | 'select denied';

export interface VerifyCheck {
  check: CheckName;
  ok: boolean;
  sql: string;
  expected: string;
  /** What the engine answered, in words. */
  answered: string;
  /** The engine's error, when the statement failed. */
  engineError?: { errorName: string; message: string; queryId: string };
  hint?: string;
}

export interface VerifyOptions {
  /** The data set the table belongs to, for the hints. */
  dataSet?: string;
  table: string;
  expect: Expectation;
  minRows: number;
  /** With `visible`: ask again until every check holds or this many seconds have passed. */
  waitSeconds: number;
  /** Told before each new attempt while waiting. */
  onRetry?: (attempt: number, failing: VerifyCheck[]) => void;
  pollIntervalMs?: number;
}

export interface VerifyReport {
  expect: Expectation;
  catalog: string;
  schema: string;
  table: string;
  ok: boolean;
  attempts: number;
  checks: VerifyCheck[];
  /** Rows the SELECT returned (visible), and their columns. */
  rows?: number;
  columns?: string[];
}

export async function verifyAccess(client: StatementClient, options: VerifyOptions): Promise<VerifyReport> {
  const deadline = Date.now() + options.waitSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    const report = await verifyOnce(client, options, attempt);
    if (report.ok || options.expect === 'hidden' || Date.now() >= deadline) return report;
    options.onRetry?.(attempt, report.checks.filter((c) => !c.ok));
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollIntervalMs ?? 2_000, Math.max(0, deadline - Date.now()))));
  }
}

async function verifyOnce(client: StatementClient, options: VerifyOptions, attempts: number): Promise<VerifyReport> {
  const { table, expect } = options;
  const catalog = client.catalog;
  const schema = QUERY_ENGINE_SCHEMA;
  const qualifiedSchema = `${catalog}.${schema}`;
  const schemasSql = `SHOW SCHEMAS FROM ${sqlIdentifier(catalog)}`;
  const tablesSql = `SHOW TABLES FROM ${sqlIdentifier(catalog)}.${sqlIdentifier(schema)}`;
  // The contract's own statement; the catalog is the session's (X-Trino-Catalog).
  const limit = Math.max(1, options.minRows);
  const selectSql = `SELECT * FROM ${sqlIdentifier(schema)}.${sqlIdentifier(table)} LIMIT ${limit}`;

  const [schemas, tables, select] = [await attempt(client, schemasSql), await attempt(client, tablesSql), await attempt(client, selectSql, limit)];
  const listed = (outcome: Outcome): string[] => ('result' in outcome ? outcome.result.rows.map((row) => String(row[0])) : []);
  // The engine's rows are compared as they are and shown escaped: `answered` goes into messages (verify's stderr line, provision's error), so a row cannot forge a line.
  const describeList = (names: string[]): string => (names.length ? names.map((name) => serverText(name)).join(', ') : '(none)');
  const checks: VerifyCheck[] = [];

  if (expect === 'visible') {
    const schemaNames = listed(schemas);
    checks.push({
      check: 'schema listed',
      sql: schemasSql,
      expected: `${schema} among the schemas of ${catalog}`,
      ...('error' in schemas ? failedWith(schemas.error) : { ok: schemaNames.includes(schema), answered: `listed ${describeList(schemaNames)}` }),
    });
    const tableNames = listed(tables);
    checks.push({
      check: 'table listed',
      sql: tablesSql,
      expected: `${table} among the tables of ${qualifiedSchema}`,
      ...('error' in tables ? failedWith(tables.error) : { ok: tableNames.includes(table), answered: `listed ${describeList(tableNames)}` }),
    });
    const rows = 'result' in select ? select.result.rows.length : 0;
    checks.push({
      check: 'rows returned',
      sql: selectSql,
      expected: `at least ${options.minRows} row${options.minRows === 1 ? '' : 's'}`,
      ...('error' in select ? failedWith(select.error) : { ok: rows >= options.minRows, answered: `${rows} row${rows === 1 ? '' : 's'}` }),
    });
    const missingTable = 'error' in select && select.error.errorName === 'TABLE_NOT_FOUND';
    for (const check of checks) if (!check.ok) check.hint = visibleHint(check, { ...options, catalog }, missingTable);
    return { expect, catalog, schema, table, ok: checks.every((c) => c.ok), attempts, checks, rows, columns: 'result' in select ? select.result.columns.map((c) => c.name) : undefined };
  }

  const schemaNames = listed(schemas);
  checks.push({
    check: 'schema hidden',
    sql: schemasSql,
    expected: `${schema} not among the schemas of ${catalog}`,
    ...('error' in schemas ? refusedIsHidden(schemas.error) : { ok: !schemaNames.includes(schema), answered: `listed ${describeList(schemaNames)}` }),
  });
  const tableNames = listed(tables);
  checks.push({
    check: 'table hidden',
    sql: tablesSql,
    expected: `${table} not among the tables of ${qualifiedSchema}`,
    ...('error' in tables ? refusedIsHidden(tables.error) : { ok: !tableNames.includes(table), answered: `listed ${describeList(tableNames)}` }),
  });
  if ('error' in select) {
    const denied = select.error.accessDenied;
    checks.push({
      check: 'select denied',
      sql: selectSql,
      expected: 'an access-denied error of the query engine',
      ok: denied,
      answered: `${select.error.errorName}: ${select.error.engineMessage}`,
      engineError: engineError(select.error),
      hint: denied
        ? undefined
        : select.error.errorName === 'TABLE_NOT_FOUND'
          ? `the table does not exist in ${qualifiedSchema} at all, so this proves nothing about access: check --table`
          : 'the query failed for another reason than access: fix that first',
    });
  } else {
    const rows = select.result.rows.length;
    checks.push({ check: 'select denied', sql: selectSql, expected: 'an access-denied error of the query engine', ok: false, answered: `${rows} row${rows === 1 ? '' : 's'}`, hint: 'this user can read the table: check the enablement groups and the policy engine' });
  }
  return { expect, catalog, schema, table, ok: checks.every((c) => c.ok), attempts, checks };
}

type Outcome = { result: QueryResult } | { error: QueryFailed };

async function attempt(client: StatementClient, sql: string, maxRows?: number): Promise<Outcome> {
  try {
    return { result: await client.query(sql, { maxRows }) };
  } catch (error) {
    if (error instanceof QueryFailed) return { error };
    throw error;
  }
}

function engineError(error: QueryFailed): VerifyCheck['engineError'] {
  return { errorName: error.errorName, message: error.engineMessage, queryId: error.queryId };
}

function failedWith(error: QueryFailed): Pick<VerifyCheck, 'ok' | 'answered' | 'engineError'> {
  return { ok: false, answered: `${error.errorName}: ${error.engineMessage}`, engineError: engineError(error) };
}

/** Refusing to list (access denied, or the schema not there for this user) hides it too. */
function refusedIsHidden(error: QueryFailed): Pick<VerifyCheck, 'ok' | 'answered' | 'engineError'> {
  const hidden = error.accessDenied || error.errorName === 'SCHEMA_NOT_FOUND';
  return { ok: hidden, answered: `refused: ${error.errorName}: ${error.engineMessage}`, engineError: engineError(error) };
}

function visibleHint(check: VerifyCheck, options: VerifyOptions & { catalog: string }, missingTable: boolean): string {
  if (missingTable) {
    return `the engine knows no table ${options.table} in ${options.catalog}.${QUERY_ENGINE_SCHEMA}: check --table and that \`dpgw table create\` ran; a table created moments ago can take the engine's metadata cache a while to appear (Trino's Pinot catalog: pinot.metadata-expiry, 2 minutes by default), so give it --wait <seconds>`;
  }
  if (check.check === 'rows returned' && !check.engineError) return `the table is there but has too few rows yet: ingestion is asynchronous, give it time with --wait <seconds>`;
  return `is this user in one of the enablement's groups? On platforms older than ${STORAGE_TOUCH_NOT_NEEDED_FROM} the permissions exist only after \`dpgw storage touch --dataset ${options.dataSet ?? '<name>'}\``;
}
