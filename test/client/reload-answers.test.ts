/**
 * The reload step against the answers of store versions the sandbox does not play (issue #47
 * §1), from a real HTTP server on 127.0.0.1: Pinot 1.1's reload answer without the "Segment
 * reload details:" prefix, 1.5's status words (COMPLETED_WITH_ERRORS fails the step), 1.3's
 * 404 for a table without segments, a job whose servers do not all answer, and a gateway that
 * passes the reload on but not its progress.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { GatewayClient } from '../../src/gateway/gateway-client.js';
import { applyReload, reloadJobOf } from '../../src/provision/steps/reload-step.js';
import { startRecordingServer, type Reply, type RecordingServer } from '../helpers/recording-server.js';

const RELOAD = 'POST /api/internal/olap/segments/track/reload?type=REALTIME';
const STATUS = 'GET /api/internal/olap/segments/segmentReloadStatus/job-1';
const target = { tableName: 'track', addedColumns: ['speed'] };
const settings = { olapSegment: 'olap', waitMs: 1_000, forceCommit: false, pollMs: 20 };
let server: RecordingServer | undefined;
let client: GatewayClient | undefined;

afterEach(async () => {
  client?.close();
  await server?.close();
});

async function gateway(routes: Record<string, () => Reply>): Promise<GatewayClient> {
  server = await startRecordingServer(routes);
  client = new GatewayClient({ baseUrl: server.url, tokenSupplier: async () => 'token', retry: { baseDelayMs: 5, maxDelayMs: 50 } });
  return client;
}

const progress = (successCount: number, totalSegmentCount: number, extra: Record<string, unknown> = {}): Reply => ({ body: { successCount, totalSegmentCount, totalServersQueried: 1, totalServerCallsFailed: 0, ...extra } });

describe('the reload job of each store version', () => {
  it("reads the job id from 0.11's sentence, 1.1's bare JSON, and a gateway that unwraps it", () => {
    const details = { track_REALTIME: { numMessagesSent: '2', reloadJobId: 'job-1', reloadJobMetaZKStorageStatus: 'SUCCESS' } };
    expect(reloadJobOf({ status: `Segment reload details: ${JSON.stringify(details)}` }, 'track')).toEqual({ jobId: 'job-1', messages: 2 });
    expect(reloadJobOf({ status: JSON.stringify(details) }, 'track')).toEqual({ jobId: 'job-1', messages: 2 });
    expect(reloadJobOf(details, 'track')).toEqual({ jobId: 'job-1', messages: 2 });
    // A table no reload message went to is left out by later stores.
    expect(reloadJobOf({ status: '{}' }, 'track')).toEqual({ messages: 0 });
    expect(reloadJobOf({ status: 'Sent 2 reload messages' }, 'track')).toEqual({});
  });

  it("1.5's COMPLETED: done on the store's word", async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ body: { status: '{"track_REALTIME":{"numMessagesSent":"1","reloadJobId":"job-1"}}' } }), [STATUS]: () => progress(4, 4, { status: 'COMPLETED' }) });
    const { record } = await applyReload(gatewayClient, target, settings);
    expect(record).toMatchObject({ status: 'changed', facts: { reloaded: 4, segments: 4 } });
    expect(record.reason).toMatch(/^table track reloaded \(4 of 4 segments\)/);
  });

  it("1.5's COMPLETED_WITH_ERRORS fails the step with n of m", async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ body: { status: '{"track_REALTIME":{"numMessagesSent":"1","reloadJobId":"job-1"}}' } }), [STATUS]: () => progress(3, 4, { status: 'COMPLETED_WITH_ERRORS', failureCount: 1 }) });
    const failure = await applyReload(gatewayClient, target, settings).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DpgwError);
    expect(failure).toMatchObject({ errorCode: 'RELOAD_NOT_FINISHED', message: 'table track: the store reloaded 3 of 4 segments and ended the job COMPLETED_WITH_ERRORS, not COMPLETED (job job-1)' });
  });

  it('a status word the store ends with other than COMPLETED (FAILED, say, of a later version) is not a reload done', async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ body: { status: '{"track_REALTIME":{"numMessagesSent":"1","reloadJobId":"job-1"}}' } }), [STATUS]: () => progress(0, 4, { status: 'FAILED' }) });
    const failure = await applyReload(gatewayClient, target, settings).catch((error: unknown) => error);
    expect(failure).toMatchObject({ errorCode: 'RELOAD_NOT_FINISHED', message: 'table track: the store reloaded 0 of 4 segments and ended the job FAILED, not COMPLETED (job job-1)' });
  });

  it('a server that does not answer keeps the job from being done: the timeout says so', async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ body: { status: '{"track_REALTIME":{"numMessagesSent":"1","reloadJobId":"job-1"}}' } }), [STATUS]: () => progress(4, 4, { totalServerCallsFailed: 1 }) });
    const failure = await applyReload(gatewayClient, target, { ...settings, waitMs: 200 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ errorCode: 'RELOAD_NOT_FINISHED', message: expect.stringMatching(/^table track: the store had reloaded 4 of 4 segments when --wait-reload 0\.2 s was over, and 1 server of the store did not answer for it \(job job-1\)$/) });
  });

  it("1.3's 404 for a table without segments: nothing to reload, not a failure", async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ status: 404, body: { code: 404, error: 'Failed to find any segments in table: track on every instance' } }) });
    const { record } = await applyReload(gatewayClient, target, settings);
    expect(record).toMatchObject({ status: 'changed', reason: expect.stringMatching(/^table track has no segments to reload yet: /) });
  });

  it("the store's 404 for the table fails the step with the store's words", async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ status: 404, body: { code: 404, error: "Table 'track' not found." } }) });
    await expect(applyReload(gatewayClient, target, settings)).rejects.toMatchObject({ status: 404 });
  });

  it('a gateway that passes the reload on but not its progress: sent, not waited for, and why', async () => {
    const gatewayClient = await gateway({ [RELOAD]: () => ({ body: { status: 'Segment reload details: {"track_REALTIME":{"numMessagesSent":"1","reloadJobId":"job-1"}}' } }), [STATUS]: () => ({ status: 405, body: { timestamp: 't', status: 405, error: 'Method Not Allowed', path: '/x' } }) });
    const { record } = await applyReload(gatewayClient, target, settings);
    expect(record.reason).toMatch(/^table track reload sent \(job job-1\); not waited for: this gateway does not pass the store's progress of it on \(405/);
  });
});
