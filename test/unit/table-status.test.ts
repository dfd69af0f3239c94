/**
 * The status of a table from the store's answers as Pinot 0.11 gives them (measured on the
 * end-to-end tier), and from answers dpgw cannot use: another table's segments are not this
 * one's, a completed segment gives way to the newer consuming one, a wrong shape makes only
 * its own read unknown (naming the field), and a server's words reach no terminal raw.
 */
import { describe, expect, it } from 'vitest';
import type { GatewayClient, StoreRead } from '../../src/gateway/gateway-client.js';
import { readTableStatus } from '../../src/olap/table-status.js';

const at = '20261125T1440Z';
const SERVER = 'Server_192.0.2.2_7000';
const found = (body: unknown): StoreRead<unknown> => ({ kind: 'found', url: 'http://gateway/x', body });
const table = { REALTIME: { tableName: 'track_REALTIME', tableIndexConfig: { streamConfigs: { streamType: 'kafka', 'stream.kafka.topic.name': 'topic-t', 'stream.kafka.broker.list': 'broker:9092' } } } };

interface Answers {
  consuming?: unknown;
  externalview?: unknown;
  debug?: unknown;
  rows?: unknown;
}

/** A gateway answering Pinot 0.11's shapes, each replaceable. */
function gateway(answers: Answers = {}): GatewayClient {
  const consuming = answers.consuming ?? {
    [`track__0__1__${at}`]: [{ serverName: SERVER, consumerState: 'CONSUMING', lastConsumedTimestamp: 0, partitionToOffsetMap: { '0': '35' } }],
    [`track__1__0__${at}`]: [{ serverName: SERVER, consumerState: 'CONSUMING', lastConsumedTimestamp: 0, partitionToOffsetMap: { '1': '59' } }],
    [`track_other__2__0__${at}`]: [{ serverName: SERVER, consumerState: 'NOT_CONSUMING', lastConsumedTimestamp: 0, partitionToOffsetMap: { '2': '0' } }],
  };
  const externalview = answers.externalview ?? {
    OFFLINE: null,
    REALTIME: { [`track__0__0__${at}`]: { [SERVER]: 'ONLINE' }, [`track__0__1__${at}`]: { [SERVER]: 'CONSUMING' }, [`track__1__0__${at}`]: { [SERVER]: 'CONSUMING' } },
  };
  const debug = answers.debug ?? [{ tableName: 'track_REALTIME', numSegments: 3, segmentDebugInfos: [], ingestionStatus: { ingestionState: 'HEALTHY', errorMessage: '' } }];
  const rows = answers.rows ?? { resultTable: { dataSchema: { columnNames: ['$segmentName', 'count(*)'] }, rows: [[`track__0__0__${at}`, 20], [`track__0__1__${at}`, 15], [`track__1__0__${at}`, 59], [`track_other__2__0__${at}`, 7]] }, exceptions: [] };
  return {
    getTable: async () => found(table),
    consumingSegments: async () => found(consuming),
    tableStatusRead: async (what: unknown) => found(what === 'externalview' ? externalview : what === 'debug' ? debug : rows),
  } as unknown as GatewayClient;
}

const latest = async () => new Map([[0, 40n], [1, 59n]]);

describe('table status from the store\'s answers', () => {
  it('Pinot 0.11\'s answers: the newest segment of each partition, the rows of all its segments, the lag; another table\'s segments left out', async () => {
    const status = await readTableStatus(gateway(), 'track', { endOffsets: latest });
    expect(status).toEqual({
      table: 'track',
      topic: 'topic-t',
      verdict: 'consuming',
      rows: 94,
      partitions: [
        { partition: 0, consuming: true, segment: `track__0__1__${at}`, state: 'CONSUMING', rows: 35, offset: '35', latestOffset: '40', lag: '5', errors: [] },
        { partition: 1, consuming: true, segment: `track__1__0__${at}`, state: 'CONSUMING', rows: 59, offset: '59', latestOffset: '59', lag: '0', errors: [] },
      ],
      tableErrors: [],
      unknown: [],
    });
  });

  it('a partition of the topic without a segment does not consume', async () => {
    const status = await readTableStatus(gateway(), 'track', { endOffsets: async () => new Map([[0, 40n], [1, 59n], [2, 3n]]) });
    expect(status.verdict).toBe('not-consuming');
    expect(status.partitions[2]).toMatchObject({ partition: 2, consuming: false, rows: 0, latestOffset: '3' });
  });

  it("a gateway that does not pass the table's read on: its topic, and so the latest offsets, are unknown; the rest is shown", async () => {
    const client = gateway();
    (client as unknown as { getTable: () => Promise<StoreRead<unknown>> }).getTable = async () => ({ kind: 'not-exposed', url: 'http://gateway/t', why: '405: Request method not supported\u001b[2J' });
    const status = await readTableStatus(client, 'track', { endOffsets: latest });
    expect(status).toMatchObject({ verdict: 'consuming', rows: 94, unknown: [{ read: 'latest offsets', why: "the table's topic is unknown (GET http://gateway/t answered 405: Request method not supported\\u001b[2J)" }] });
    expect(status.topic).toBeUndefined();
  });

  it('a table the store lists no segment of is not consuming', async () => {
    const status = await readTableStatus(gateway({ consuming: {}, externalview: { OFFLINE: null, REALTIME: {} }, rows: { resultTable: { rows: [] }, exceptions: [] } }), 'track');
    expect(status).toMatchObject({ verdict: 'not-consuming', partitions: [] });
  });

  it('an answer of another shape makes only its own read unknown, naming the field', async () => {
    const status = await readTableStatus(gateway({ externalview: { REALTIME: { [`track__0__1__${at}`]: { [SERVER]: 7 } } }, rows: { resultTable: { rows: [['x', 'many']] } } }), 'track', { endOffsets: latest });
    expect(status.unknown).toEqual([
      { read: 'segment states', why: `GET http://gateway/x answered what dpgw cannot use: REALTIME.track__0__1__${at}["${SERVER}"]: Invalid input: expected string, received number` },
      { read: 'rows', why: expect.stringMatching(/^POST http:\/\/gateway\/x answered what dpgw cannot use: resultTable\.rows\[0\]\[1\]: /) },
    ]);
    // The consuming segments still tell.
    expect(status.verdict).toBe('consuming');
    expect(status.partitions.map((p) => p.offset)).toEqual(['35', '59']);
  });

  it("the store's errors, escaped: a segment in ERROR with its server's reason, the table's ingestion status; a broker's exception leaves the rows unknown", async () => {
    const status = await readTableStatus(
      gateway({
        externalview: { OFFLINE: null, REALTIME: { [`track__0__1__${at}`]: { [SERVER]: 'CONSUMING' }, [`track__1__0__${at}`]: { [SERVER]: 'ERROR', 'Server_\u001b]0;owned\u0007': 'CONSUMING' } } },
        debug: [
          {
            tableName: 'track_REALTIME',
            ingestionStatus: { ingestionState: 'UNHEALTHY', errorMessage: `Did not get any response from servers for segment: track__1__0__${at}` },
            segmentDebugInfos: [{ segmentName: `track__1__0__${at}`, serverState: { [SERVER]: { idealState: 'CONSUMING', externalView: 'ERROR', errorInfo: { timestamp: 'x', errorMessage: 'decoder failed \u001b[2J\n✓ all checks passed', stackTrace: 'java…' } } } }],
          },
        ],
        rows: { resultTable: null, exceptions: [{ errorCode: 190, message: 'TableDoesNotExistError' }] },
      }),
      'track',
    );
    expect(status.verdict).toBe('not-consuming');
    expect(status.partitions[1]).toMatchObject({ partition: 1, consuming: false, state: 'ERROR', errors: [`track__1__0__${at} on ${SERVER}: decoder failed \\u001b[2J`] });
    // Its first line only: what follows (a stack trace, or a forged line of dpgw's own) is left out.
    expect(JSON.stringify(status)).not.toContain('all checks passed');
    expect(status.tableErrors).toEqual([`Did not get any response from servers for segment: track__1__0__${at}`]);
    expect(status.unknown).toEqual([
      { read: 'rows', why: "the store's broker answered: TableDoesNotExistError" },
      { read: 'latest offsets', why: 'not asked' },
    ]);
    // No raw control character anywhere: JSON.stringify would have written one as \u001b, the escaped one as \\u001b.
    expect(JSON.stringify(status)).not.toMatch(/(?<!\\)\\u00[01][0-9a-f]/);
  });
});
