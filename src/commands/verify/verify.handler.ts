/** `dpgw verify`: contract steps 7 and 8 in the SQL query engine, as the signed-in user. */
import { requireName } from '../../names/platform-names.js';
import type { ChalkInstance } from 'chalk';
import { serverText } from '../../text/terminal-text.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import { Questions } from '../shared/questions.js';
import { storeTableMissing } from '../shared/store-table-missing.js';
import { DATA_SET_FLAG, dataSetFlag } from '../shared/data-set-question.js';
import type { VerifyCommand } from './verify.flags.js';
import { sessionOptionsOf } from '../../settings/core-options.js';
import { ExitCode } from '../../errors/exit-code.js';
import { verifyAccess, type Expectation, type VerifyReport } from '../../query-engine/verify-access.js';

export const verify: HandlerOf<VerifyCommand> = async (context) => {
  const { options, reporter, io } = context;
  const questions = new Questions(context);
  questions.require([{ flag: DATA_SET_FLAG, given: options.dataset }]);
  // No --enablement here: the table is named after the data set, whichever enablement holds it.
  const { dataSet } = await dataSetFlag(questions, context, options, false);
  questions.done();
  // --table is checked as a table name when given; the data set's name only when it stands in.
  const table = options.table ?? requireName('table', dataSet, '--dataset');
  const expect: Expectation = options.expect;
  const minRows = options.minRows;
  const waitSeconds = options.wait;
  // The wait is for an existing table to show in the engine and fill: one the store does not hold fails at once.
  if (expect === 'visible') {
    const missing = await storeTableMissing(context, table, dataSet);
    if (missing) throw missing;
  }
  const settings = await context.settings();
  const { createQueryEngineClient } = await import('../../command-kit/create-query-engine-client.js');
  const client = createQueryEngineClient(settings, reporter, io);
  try {
    const report = await verifyAccess(client, {
      dataSet,
      table,
      expect,
      minRows,
      waitSeconds,
      onRetry: (attempt, failing) => reporter.info(`not yet (attempt ${attempt}): ${failing.map((c) => `${c.check}: ${c.answered}`).join('; ')}; asking again…`),
    });
    // Who the engine was asked as (from the token, for the report, not for trust).
    const { sessionStatus } = await import('../../auth/session.js');
    const identity = await sessionStatus({ session: sessionOptionsOf(settings, io.env), env: io.env, warn: () => undefined }).catch(() => undefined);
    for (const check of report.checks.filter((c) => !c.ok)) {
      reporter.problem(`verify: ${check.check} failed: expected ${check.expected}; the query engine answered ${check.answered}${check.hint ? ` — ${check.hint}` : ''}`);
    }
    if (report.ok) reporter.success(summary(report, identity?.username));
    return {
      data: { dataSet, user: identity?.username ?? null, groups: identity?.groups ?? null, queryEngine: client.baseUrl, ...report },
      human: (style) => renderReport(report, style),
      exitCode: report.ok ? ExitCode.Ok : ExitCode.VerificationFailed,
    };
  } finally {
    client.close();
  }
};

function summary(report: VerifyReport, user: string | undefined): string {
  const who = user ?? 'the signed-in user';
  return report.expect === 'visible'
    ? `${who} sees ${report.catalog}.${report.schema}.${report.table} and got ${report.rows} row${report.rows === 1 ? '' : 's'}`
    : `${who} sees neither ${report.catalog}.${report.schema} nor ${report.table}, and the SELECT is denied`;
}

function renderReport(report: VerifyReport, style: ChalkInstance): string[] {
  const width = Math.max(...report.checks.map((c) => c.check.length));
  return report.checks.flatMap((c) => [`${c.ok ? style.green('✓') : style.red('✗')} ${c.check.padEnd(width)}  ${serverText(c.answered)}${c.ok ? '' : style.dim(`  (expected ${c.expected})`)}`, `  ${style.dim(c.sql)}`]);
}

