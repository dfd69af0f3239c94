/**
 * The reload after a schema gained columns (issue #47): the store's segments of a table that
 * existed are reloaded, so that rows stored before show the added columns (with each column's
 * default), and the step waits until the store reports the reload done, bounded by
 * `--wait-reload`. With `--force-commit` the table's consuming segments are committed next, so
 * that the rows from then on carry the columns' values. A gateway that does not pass the
 * store's reload on skips the step with the request an operator would send; the run's exit code
 * does not change. `provision` and `dpgw schema push` use it.
 *
 * The store's calls, as Pinot's controller has them (0.11.0 to 1.5, docs/gateway-api.md):
 * - POST /segments/{table}/reload?type=REALTIME (PinotSegmentRestletResource#reloadAllSegments)
 *   answers `{"status": "Segment reload details: {\"t_REALTIME\": {\"reloadJobId\": …}}"}`
 *   (the prefix is gone from 1.1.0 on);
 * - GET /segments/segmentReloadStatus/{jobId} (PinotSegmentRestletResource#getReloadJobStatus)
 *   answers `successCount` of `totalSegmentCount`, `totalServerCallsFailed`, and from 1.5.0 a
 *   `status` (COMPLETED, COMPLETED_WITH_ERRORS, IN_PROGRESS);
 * - POST /tables/{table}/forceCommit (PinotRealtimeTableResource#forceCommit): 0.11.0 answers
 *   an empty 200 and no job, 1.x `{"forceCommitJobId": …}`, followed by
 *   GET /tables/forceCommitStatus/{jobId} (`numberOfSegmentsYetToBeCommitted`).
 *
 * Why a consuming segment keeps the default: a segment that was consuming when the schema
 * changed was set up with the old schema (LLRealtimeSegmentDataManager builds its columns from
 * the schema it started with) and is committed with it; only the next consuming segment reads
 * the new schema (RealtimeTableDataManager#addSegment). So its rows keep the column's default,
 * even once it commits; a force commit starts the next segment now.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { paths } from '../../contract/paths.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { GatewayClient, StoreCall } from '../../gateway/gateway-client.js';
import { GatewayError } from '../../gateway/gateway-error.js';
import { serverText } from '../../text/terminal-text.js';
import { plural } from '../../text/plural.js';
import type { PlannedRequest, StepRecord } from './step-record.js';
import { StepInterrupted } from './step-interrupted.js';

/** The table to reload and the columns its schema gained. */
export interface ReloadTarget {
  tableName: string;
  addedColumns: readonly string[];
}

export interface ReloadSettings {
  olapSegment: string;
  /** `--wait-reload` in ms: how long to wait for the reload (and the force commit); 0: send and do not wait. */
  waitMs: number;
  /** `--force-commit`: commit the consuming segments after the reload. */
  forceCommit: boolean;
  signal?: AbortSignal;
  /** Between two reads of a job's progress (first); doubled up to 2 s. */
  pollMs?: number;
}

const FORCE_COMMIT_FLAG = '--force-commit';
const WAIT_FLAG = '--wait-reload';

export function planReload(target: ReloadTarget, settings: ReloadSettings): StepRecord {
  const reload: PlannedRequest = { method: 'POST', path: paths.olapSegmentReload(target.tableName, settings.olapSegment) };
  const commit: PlannedRequest = { method: 'POST', path: paths.olapForceCommit(target.tableName, settings.olapSegment) };
  const wait = settings.waitMs > 0 ? `, wait up to ${settings.waitMs / 1000} s for the store to report it done` : `, not waited for (${WAIT_FLAG} 0)`;
  const then = settings.forceCommit
    ? '; then force-commit its consuming segments, so the rows from then on carry the columns'
    : `; rows that reach its consuming segment before it commits keep the default (${FORCE_COMMIT_FLAG} commits it at once)`;
  return {
    step: 'reload',
    action: 'update',
    reason: `reload the segments of table ${target.tableName}, so rows stored before show the added ${columnsText(target.addedColumns)} (with the default)${wait}${then}`,
    ...(settings.forceCommit ? { requests: [reload, commit] } : { request: reload }),
  };
}

/**
 * Sends the reload, waits for it, and force-commits when asked: the step's record, and a
 * warning when an operator has to act (the reload or the force commit not passed on); a
 * reload the store does not finish in time throws RELOAD_NOT_FINISHED.
 */
export async function applyReload(client: GatewayClient, target: ReloadTarget, settings: ReloadSettings): Promise<{ record: StepRecord; warning?: string }> {
  const { tableName } = target;
  const deadline = Date.now() + settings.waitMs;
  const sent = await client.reloadSegments(tableName);
  if (sent.kind === 'not-exposed') {
    const reason = `not reloaded: this gateway does not pass the store's reload on (${sent.why}); rows stored before show the added ${columnsText(target.addedColumns)} once an operator sends ${operatorRequests(tableName, settings.forceCommit)} to the store's controller`;
    return { warning: reason, record: { step: 'reload', action: 'skipped', status: 'skipped', reason } };
  }
  // Pinot 1.3 and later answer a table without segments 404 (PinotSegmentRestletResource#reloadAllSegments): nothing to reload.
  const nothing = sent.kind === 'not-found' && /Failed to find any segments/i.test(sent.message);
  if (sent.kind === 'not-found' && !nothing) throw new GatewayError(404, 'POST', sent.url, sent.message);
  const reloaded = await waitForReload(client, target, nothing || sent.kind !== 'answered' ? { messages: 0 } : reloadJobOf(sent.body, tableName), settings, deadline);
  const committed = settings.forceCommit ? await forceCommit(client, tableName, settings, deadline) : { text: `rows that reach its consuming segment before it commits keep the default, the rows after carry the columns (${FORCE_COMMIT_FLAG} commits it at once)` };
  // Said as done only when the store reported it done: a reload not waited for may still be under way, or fail.
  const shown = reloaded.facts !== undefined || reloaded.text === NO_SEGMENTS ? 'show' : 'show once the store has reloaded them';
  const reason = `table ${tableName} ${reloaded.text}: rows stored before ${shown} the added ${columnsText(target.addedColumns)} (with the default); ${committed.text}`;
  return { ...(committed.unavailable ? { warning: reason } : {}), record: { step: 'reload', action: 'update', status: 'changed', reason, ...(reloaded.facts ? { facts: reloaded.facts } : {}) } };
}

/** A table whose store holds no segment of it yet: nothing to reload, and nothing to wait for. */
const NO_SEGMENTS = 'has no segments to reload yet';

/** What the store answered about a reload job: how far it is. */
interface ReloadProgress {
  reloaded: number;
  total: number;
  failedCalls: number;
  /** The store's own word (1.5.0 and later). */
  status?: string;
}

/** The job id of a reload answer: the store's `status` is a sentence holding JSON (see the top of this file); a gateway may pass on the JSON itself. */
export function reloadJobOf(body: unknown, tableName: string): { jobId?: string; messages?: number } {
  let details: unknown = body;
  if (isObject(body) && typeof body.status === 'string') {
    try {
      details = JSON.parse(body.status.replace(/^Segment reload details:\s*/, ''));
    } catch {
      return {};
    }
  }
  if (!isObject(details)) return {};
  // Later stores leave out a table to which no reload message was sent (no segments).
  if (Object.keys(details).length === 0) return { messages: 0 };
  const own = details[`${tableName}_REALTIME`] ?? details[tableName] ?? details;
  if (!isObject(own)) return {};
  const messages = Number(own.numMessagesSent);
  return { ...(typeof own.reloadJobId === 'string' ? { jobId: own.reloadJobId } : {}), ...(Number.isFinite(messages) ? { messages } : {}) };
}

function progressOf(body: unknown): ReloadProgress | undefined {
  if (!isObject(body)) return undefined;
  const reloaded = Number(body.successCount);
  const total = Number(body.totalSegmentCount);
  if (!Number.isFinite(reloaded) || !Number.isFinite(total)) return undefined;
  return { reloaded, total, failedCalls: Number(body.totalServerCallsFailed) || 0, ...(typeof body.status === 'string' ? { status: body.status } : {}) };
}

/** Before 1.5.0 the store says no word: done is every segment reloaded and every server answered (PinotSegmentRestletResource#getReloadJobStatus). */
function finished(progress: ReloadProgress): boolean {
  if (progress.status !== undefined && progress.status !== 'IN_PROGRESS') return true;
  return progress.reloaded >= progress.total && progress.failedCalls === 0;
}

async function waitForReload(client: GatewayClient, target: ReloadTarget, job: { jobId?: string; messages?: number }, settings: ReloadSettings, deadline: number): Promise<{ text: string; facts?: { reloaded: number; segments: number } }> {
  const { tableName } = target;
  if (job.messages === 0) return { text: NO_SEGMENTS };
  if (settings.waitMs <= 0) return { text: `reload sent, not waited for (${WAIT_FLAG} 0)` };
  const { jobId } = job;
  if (jobId === undefined) return { text: "reload sent; the store's answer names no reload job, so it was not waited for" };
  let pause = settings.pollMs ?? 250;
  let last: ReloadProgress | undefined;
  for (;;) {
    const read = await client.reloadStatus(jobId);
    if (read.kind !== 'answered') return { text: `reload sent (job ${jobId}); not waited for: ${unfollowed(read)}` };
    const progress = progressOf(read.body);
    if (!progress) return { text: `reload sent (job ${jobId}); not waited for: the store's answer to ${read.url} is not a reload's progress` };
    last = progress;
    if (finished(progress)) {
      // Only COMPLETED is done: any other word the store ends with (COMPLETED_WITH_ERRORS, or one a later version adds, such as FAILED) is not.
      if (progress.status !== undefined && progress.status !== 'COMPLETED') throw reloadFailed(tableName, jobId, progress, settings);
      return { text: `reloaded (${progress.reloaded} of ${plural(progress.total, 'segment')})`, facts: { reloaded: progress.reloaded, segments: progress.total } };
    }
    if (settings.signal?.aborted) throw stoppedWaiting(tableName, `the reload (job ${jobId})`);
    if (Date.now() >= deadline) throw reloadNotFinished(tableName, jobId, last, settings);
    await sleep(Math.min(pause, Math.max(0, deadline - Date.now())), undefined, { signal: settings.signal }).catch(() => undefined);
    pause = Math.min(pause * 2, 2_000);
  }
}

/** Why a job's progress could not be read: the gateway does not pass it on, or the store no longer knows the job. */
function unfollowed(read: Exclude<StoreCall, { kind: 'answered' }>): string {
  return read.kind === 'not-exposed' ? `this gateway does not pass the store's progress of it on (${read.why})` : `the store does not know the job (${read.message})`;
}

/** Ctrl-C or SIGTERM cut the wait short: sent, whether it finished is not known. */
function stoppedWaiting(tableName: string, what: string): StepInterrupted {
  return new StepInterrupted({ step: 'reload', action: 'update', status: 'sent', reason: `stopped while waiting for the store to finish ${what} of table ${tableName}: it was sent, whether it finished is not known` });
}

function reloadNotFinished(tableName: string, jobId: string, progress: ReloadProgress, settings: ReloadSettings): DpgwError {
  const unanswered = progress.failedCalls > 0 ? `, and ${plural(progress.failedCalls, 'server')} of the store did not answer for it` : '';
  return new DpgwError('RELOAD_NOT_FINISHED', `table ${tableName}: the store had reloaded ${progress.reloaded} of ${plural(progress.total, 'segment')} when ${WAIT_FLAG} ${settings.waitMs / 1000} s was over${unanswered} (job ${jobId})`, {
    hint: `the store goes on reloading: follow it with GET ${paths.olapSegmentReloadStatus(jobId, settings.olapSegment)} (a run again does not reload: the schema matches the store now); next time allow longer with ${WAIT_FLAG} <seconds>`,
    details: { table: tableName, jobId, reloaded: progress.reloaded, segments: progress.total },
  });
}

function reloadFailed(tableName: string, jobId: string, progress: ReloadProgress, settings: ReloadSettings): DpgwError {
  return new DpgwError('RELOAD_NOT_FINISHED', `table ${tableName}: the store reloaded ${progress.reloaded} of ${plural(progress.total, 'segment')} and ended the job ${serverText(progress.status ?? '')}, not COMPLETED (job ${jobId})`, {
    hint: `the store's server log says why; GET ${paths.olapSegmentReloadStatus(jobId, settings.olapSegment)} lists the segments`,
    details: { table: tableName, jobId, reloaded: progress.reloaded, segments: progress.total },
  });
}

/**
 * Commits the table's consuming segments now and waits until they are committed: by the job
 * where the store gives one (1.x), else (0.11.0, no job) until none of the segments consuming
 * before is consuming still. The words of the summary: force-committed, or why not.
 */
async function forceCommit(client: GatewayClient, tableName: string, settings: ReloadSettings, deadline: number): Promise<{ text: string; unavailable?: boolean }> {
  const before = await consumingNames(client, tableName);
  const sent = await client.forceCommit(tableName);
  // The table exists (it was reloaded): a 404 here is a store without the call (before 0.11.0), as a gateway's 405 or 501 is a gateway without it.
  if (sent.kind !== 'answered') {
    const why = sent.kind === 'not-exposed' ? sent.why : `404: ${sent.message}`;
    return { unavailable: true, text: `not force-committed (${why}): rows that reach its consuming segment before it commits keep the default; an operator can send POST /tables/${tableName}/forceCommit to the store's controller` };
  }
  if (settings.waitMs <= 0) return { text: `force commit sent, not waited for (${WAIT_FLAG} 0): the rows after the consuming segments commit carry the columns` };
  const jobId = isObject(sent.body) && typeof sent.body.forceCommitJobId === 'string' ? sent.body.forceCommitJobId : undefined;
  let pause = settings.pollMs ?? 250;
  for (;;) {
    // The job's count where the store gives one; else the segments consuming before that still are.
    const left = jobId !== undefined ? await segmentsLeftByJob(client, jobId) : undefined;
    const still = left ?? (before ? intersect(before, await consumingNames(client, tableName)) : undefined);
    if (still === undefined) return { text: 'force-committed (the store gives no way to follow it): the rows after its consuming segments commit carry the columns' };
    if (still === 0) return { text: `force-committed${before ? ` (${plural(before.size, 'consuming segment')})` : ''}: the rows from now on carry the columns` };
    if (settings.signal?.aborted) throw stoppedWaiting(tableName, 'the force commit');
    if (Date.now() >= deadline) {
      const total = before?.size ?? still;
      throw new DpgwError('RELOAD_NOT_FINISHED', `table ${tableName}: reloaded, but ${still} of ${plural(total, 'consuming segment')} not committed when ${WAIT_FLAG} ${settings.waitMs / 1000} s was over`, {
        hint: `the store goes on committing: check with dpgw table status ${tableName} (a run again does not commit: the schema matches the store now); next time allow longer with ${WAIT_FLAG} <seconds>`,
        details: { table: tableName, committing: still, segments: total },
      });
    }
    await sleep(Math.min(pause, Math.max(0, deadline - Date.now())), undefined, { signal: settings.signal }).catch(() => undefined);
    pause = Math.min(pause * 2, 2_000);
  }
}

/** The segments a force commit job has yet to commit (1.x); undefined when the gateway or the store cannot say. */
async function segmentsLeftByJob(client: GatewayClient, jobId: string): Promise<number | undefined> {
  const read = await client.forceCommitStatus(jobId);
  if (read.kind !== 'answered' || !isObject(read.body)) return undefined;
  const left = Number(read.body.numberOfSegmentsYetToBeCommitted);
  return Number.isFinite(left) ? left : undefined;
}

/** The names of the table's consuming segments; undefined when the gateway does not pass the store's read on. */
async function consumingNames(client: GatewayClient, tableName: string): Promise<Set<string> | undefined> {
  const read = await client.consumingSegments(tableName);
  return read.kind === 'found' ? new Set(Object.keys(read.body)) : undefined;
}

function intersect(before: Set<string>, now: Set<string> | undefined): number | undefined {
  return now === undefined ? undefined : [...before].filter((name) => now.has(name)).length;
}

function operatorRequests(tableName: string, forceCommit: boolean): string {
  const reload = `POST /segments/${tableName}/reload?type=REALTIME`;
  return forceCommit ? `${reload} and then POST /tables/${tableName}/forceCommit` : reload;
}

function columnsText(columns: readonly string[]): string {
  return `${columns.length === 1 ? 'column' : 'columns'} ${columns.join(', ')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
