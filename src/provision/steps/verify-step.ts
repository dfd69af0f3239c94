/**
 * provision's optional last step per data set: the access outcome in the SQL
 * query engine (contract steps 7 and 8), checked as each profile the manifest
 * names, with that profile's own signed-in session.
 */
import { DpgwError } from '../../errors/dpgw-error.js';
import type { StatementClient } from '../../query-engine/statement-client.js';
import { verifyAccess, type Expectation, type VerifyReport } from '../../query-engine/verify-access.js';
import type { VerifySettings } from '../manifest.js';
import type { StepRecord } from './step-record.js';

export interface VerifyStepOutcome {
  record: StepRecord;
  reports: Array<{ profile: string } & VerifyReport>;
}

/** Every profile the step needs, visible ones first. */
export function verifyProfiles(spec: VerifySettings): Array<{ profile: string; expect: Expectation }> {
  return [...(spec.visible ?? []).map((profile) => ({ profile, expect: 'visible' as const })), ...(spec.hidden ?? []).map((profile) => ({ profile, expect: 'hidden' as const }))];
}

/** `engineOf` gives the query engine as a profile: its signed-in client. */
export async function verifyStep(spec: VerifySettings, dataSet: string, table: string, engineOf: (profile: string) => StatementClient): Promise<VerifyStepOutcome> {
  const reports: VerifyStepOutcome['reports'] = [];
  for (const { profile, expect } of verifyProfiles(spec)) {
    const report = await verifyAccess(engineOf(profile), { dataSet, table, expect, minRows: spec.minRows ?? 1, waitSeconds: expect === 'visible' ? (spec.wait ?? 0) : 0 });
    reports.push({ profile, ...report });
    const failed = report.checks.find((c) => !c.ok);
    if (failed) {
      throw new DpgwError('VERIFICATION_FAILED', `as profile ${profile} (expected ${expect}): ${failed.check} failed: expected ${failed.expected}; the query engine answered ${failed.answered}`, {
        hint: failed.hint,
        details: { profile, checks: report.checks },
      });
    }
  }
  const reason = reports.map((r) => (r.expect === 'visible' ? `${r.profile} sees ${r.table} (${r.rows} row${r.rows === 1 ? '' : 's'})` : `${r.profile} sees nothing, SELECT denied`)).join('; ');
  return { reports, record: { step: 'verify', action: 'check', status: 'passed', reason } };
}

export function planVerify(spec: VerifySettings): StepRecord {
  return { step: 'verify', action: 'check', reason: `in the query engine, as ${verifyProfiles(spec).map((p) => `${p.profile} (${p.expect})`).join(', ')}` };
}
