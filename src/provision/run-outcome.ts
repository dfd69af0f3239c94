/**
 * How a provision run ends: the final health check (which never hides the summary) and
 * the run's exit code, as docs/provision.md documents them. Kept apart from the command,
 * which only wires them to its flags and output.
 */
import { HEALTH_STATUS_UP } from '../contract/constants.js';
import type { HealthRecord } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { ExitCode } from '../errors/exit-code.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import type { DataSetResult } from './provision-run.js';
import { plural } from '../text/plural.js';

export type HealthOutcome = HealthRecord & { failing?: string[]; error?: string };

/**
 * The final health check. Its failure never hides the summary: a record that is not UP
 * names its failing components, and a check that could not be made says why.
 */
export async function finalHealthCheck(client: GatewayClient, target: true | string): Promise<HealthOutcome> {
  const checked = target === true ? undefined : target;
  try {
    const { record } = await client.health(checked);
    if (record.status === HEALTH_STATUS_UP) return record;
    const failing = failingComponents(record, checked ? [checked] : []);
    return { ...record, failing: failing.length ? failing : [checked ?? 'platform'] };
  } catch (error) {
    const known = error instanceof DpgwError ? error : new DpgwError('UNEXPECTED_FAILURE', (error as Error).message);
    return { status: 'UNKNOWN', failing: [checked ?? 'platform'], error: known.toLine() };
  }
}

/** The deepest components not UP, as dotted paths (mq.connection). */
function failingComponents(record: HealthRecord, path: string[]): string[] {
  const children = Object.entries(record.components ?? {}).flatMap(([name, child]) => failingComponents(child, [...path, name]));
  if (children.length) return children;
  return record.status !== HEALTH_STATUS_UP && path.length ? [path.join('.')] : [];
}

/**
 * The run's exit code, first match wins: interrupted 130; failed data sets their common
 * code (else 1); a failed prune its error's code; a health check not UP 6; with
 * --detailed-exitcode, changes made (a prune's deletions too, or something not compared) 7; else 0.
 */
export function runExitCode(results: DataSetResult[], outcome: { interrupted: boolean; health?: HealthOutcome; detailedExitcode: boolean; pruned?: { changed: boolean; error?: DpgwError } }): number {
  const failed = results.filter((r) => r.status === 'failed');
  if (outcome.interrupted) return ExitCode.Interrupted;
  if (failed.length > 0) {
    const codes = new Set(failed.map((r) => r.exitCode ?? ExitCode.Failure));
    return codes.size === 1 ? [...codes][0]! : ExitCode.Failure;
  }
  if (outcome.pruned?.error) return outcome.pruned.error.exitCode;
  if (outcome.health && outcome.health.status !== HEALTH_STATUS_UP) return ExitCode.Unhealthy;
  // 0 only when everything was compared and equal: a table that could not be read back counts as a change.
  if (outcome.detailedExitcode && (results.some((r) => r.changed || r.uncompared) || outcome.pruned?.changed)) return ExitCode.Changed;
  return ExitCode.Ok;
}

/** How the run ended, in the words of its last line and of the job summary's title: interrupted, failed, or done and what it changed. */
export function runOutcomeLine(results: DataSetResult[], outcome: { interrupted: boolean; changed: boolean; pruneFailed: boolean }): string {
  const failed = results.filter((r) => r.status === 'failed').length;
  const uncompared = results.filter((r) => r.uncompared).length;
  if (outcome.interrupted) return 'interrupted';
  if (failed) return `${failed} of ${results.length} failed`;
  if (outcome.pruneFailed) return 'the prune failed';
  if (outcome.changed) return 'done: changes made';
  return uncompared ? `done: ${plural(uncompared, 'data set')} not compared (the gateway does not expose reads of the analytics store)` : 'done: nothing to change';
}

/** Why the prune does not run after these data sets (it never follows a run that was stopped or failed), or undefined when it runs. */
export function pruneSkippedBecause(results: DataSetResult[], interrupted: boolean): string | undefined {
  if (interrupted) return 'the run was interrupted';
  return results.some((r) => r.status === 'failed') ? 'a data set failed, and a run that failed prunes nothing' : undefined;
}
