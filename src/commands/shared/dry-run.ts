import { jsonLines } from '../../output/document-lines.js';
import type { CommandOutput } from '../../output/reporter.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import { maskSecrets } from '../../secrets/redaction.js';

export interface DryRunRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** `--dry-run`: the requests that would be sent, secrets masked, and nothing sent. */
export function renderDryRun(requests: DryRunRequest[], extra: Record<string, unknown> = {}): CommandOutput {
  const masked = requests.map((r) => ({ method: r.method, path: r.path, ...(r.body === undefined ? {} : { body: maskSecrets(r.body) }) }));
  return {
    data: { dryRun: true, requests: masked, ...extra },
    human: (style) =>
      [style.dim('dry run: nothing was sent; these requests would be'), ...masked.flatMap((r) => ['', `${style.bold(r.method)} ${r.path}`, ...(r.body === undefined ? [] : jsonLines(r.body))])],
  };
}

/**
 * `--dry-run` of a single command: its steps walked in plan mode, and the plan records' requests
 * printed (renderDryRun). A plan that would send nothing (the store holds it unchanged) says so
 * with each step's reason, and prints no request.
 */
export function renderPlannedSteps(records: StepRecord[], extra: Record<string, unknown> = {}): CommandOutput {
  const requests = records.flatMap((record) => record.requests ?? (record.request ? [record.request] : []));
  const steps = maskSecrets(records);
  // A step the store would refuse: exit 2, as the command would fail (as provision's plan).
  const refused = records.some((record) => record.action === 'refused') ? { exitCode: ExitCode.Usage } : {};
  if (requests.length) return { ...renderDryRun(requests, { steps, ...extra }), ...refused };
  return {
    ...refused,
    data: { dryRun: true, requests: [], steps, ...extra },
    human: (style) => [style.dim('dry run: nothing was sent, and nothing would be'), ...records.map((record) => `${record.step}: ${record.reason}`)],
  };
}

/**
 * The reads of a dry-run, or, when they cannot be made (the gateway or the identity provider out
 * of reach, no session), the plan without them: the request it would send, with one warning line
 * saying it was not compared and why. Any other error (a refusal, a name the store does not hold)
 * is the dry-run's answer, as it would be the command's.
 */
export async function plannedWithReads(planned: () => Promise<StepRecord[]>, unread: (why: string) => StepRecord[] | Promise<StepRecord[]>, warn: (line: string) => void): Promise<StepRecord[]> {
  try {
    return await planned();
  } catch (error) {
    if (!(error instanceof DpgwError) || (error.kind !== 'network' && error.kind !== 'auth')) throw error;
    const why = error.toLine();
    warn(`dry run: not compared with the store, as it could not be read (${why}); the request is shown as it would be sent`);
    return await unread(why);
  }
}
