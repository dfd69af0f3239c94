/**
 * The consumption check counts only the table's own consuming segments (issue #30): a
 * listing that also holds another table's segments — `track_quiet__3__…` beside
 * `track__0..2__…` — once said "consuming 4 of 3 partitions", and a consuming segment
 * of another table hid a partition of this one that did not consume.
 */
import { describe, expect, it } from 'vitest';
import { consumptionText, partitionStates, waitUntilConsuming } from '../../src/olap/consumption.js';
import type { GatewayClient } from '../../src/gateway/gateway-client.js';

const at = '20260101T0000Z';
const server = (state: string, partition: number) => [{ serverName: 'Server_1', consumerState: state, partitionToOffsetMap: { [String(partition)]: '10' } }];

/** A gateway whose consuming-segments read answers `segments`, always. */
function gatewayListing(segments: Record<string, unknown>): GatewayClient {
  return { consumingSegments: async () => ({ kind: 'found', url: 'http://gateway/x', body: segments }) } as unknown as GatewayClient;
}

describe('the consumption check', () => {
  it("another table's segments are not this table's partitions: never more consuming than partitions", async () => {
    const segments = {
      [`track__0__0__${at}`]: server('CONSUMING', 0),
      [`track__1__0__${at}`]: server('CONSUMING', 1),
      [`track__2__0__${at}`]: server('CONSUMING', 2),
      [`track_quiet__3__0__${at}`]: server('CONSUMING', 3),
      [`trackx__4__0__${at}`]: server('CONSUMING', 4),
    };
    const known = await waitUntilConsuming(gatewayListing(segments), 'track', { partitions: 3, timeoutMs: 0 });
    expect(consumptionText(known)).toBe('consuming 3 of 3 partitions');
    // The topic's partitions unknown: still only track's three.
    const unknown = await waitUntilConsuming(gatewayListing(segments), 'track', { timeoutMs: 0 });
    expect(consumptionText(unknown)).toBe('consuming 3 of 3 partitions');
    // The name with the store's type suffix names the same segments.
    expect([...partitionStates(segments, 'track_REALTIME').keys()].sort()).toEqual([0, 1, 2]);
  });

  it("a consuming segment of another table does not stand for this table's partition that does not consume", async () => {
    const segments = {
      [`track__0__0__${at}`]: server('NOT_CONSUMING', 0),
      [`track__1__0__${at}`]: server('CONSUMING', 1),
      [`other__0__0__${at}`]: server('CONSUMING', 0),
      [`x_track__0__0__${at}`]: server('CONSUMING', 0),
    };
    const result = await waitUntilConsuming(gatewayListing(segments), 'track', { partitions: 2, timeoutMs: 0 });
    expect(result.state).toBe('not-consuming');
    expect(consumptionText(result)).toBe('consuming 1 of 2 partitions after 0 s: partition 0: NOT_CONSUMING on Server_1');
  });

  it('a partition number beyond the topic\'s partitions is not counted', async () => {
    const segments = {
      [`track__0__0__${at}`]: server('CONSUMING', 0),
      [`track__7__0__${at}`]: server('CONSUMING', 7),
    };
    const result = await waitUntilConsuming(gatewayListing(segments), 'track', { partitions: 2, timeoutMs: 0 });
    expect(consumptionText(result)).toBe('consuming 1 of 2 partitions after 0 s: partition 1: no consuming segment yet');
  });
});
