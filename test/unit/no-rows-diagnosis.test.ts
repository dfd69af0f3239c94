/** The no-rows rules on their own: which finding each set of numbers makes, and which it does not. */
import { describe, expect, it } from 'vitest';
import { diagnoseNoRows, findingLine, type NoRowsEvidence } from '../../src/olap/no-rows-diagnosis.js';
import type { PartitionStatus, TableStatus } from '../../src/olap/table-status.js';

const partition = (number: number, fields: Partial<PartitionStatus>): PartitionStatus => ({ partition: number, consuming: true, errors: [], ...fields });
const status = (partitions: PartitionStatus[], extra: Partial<TableStatus> = {}): TableStatus => ({ table: 't', topic: 'topic', partitions, tableErrors: [], unknown: [], verdict: 'consuming', ...extra });
const evidence = (fields: Partial<NoRowsEvidence> & { status: TableStatus }): NoRowsEvidence => ({ pause: { paused: false, consumingSegments: 1 }, streamFromHere: { read: true }, ...fields });

describe('the no-rows diagnosis', () => {
  it('paused: one finding with the next step; no partition consuming is not said again', async () => {
    const findings = await diagnoseNoRows(evidence({ status: status([partition(0, { consuming: false })], { verdict: 'not-consuming' }), pause: { paused: true, consumingSegments: 1, reasonCode: 'ADMINISTRATIVE', comment: 'maintenance' } }));
    expect(findings.map(findingLine)).toEqual([`consumption of table t is paused (the store's pauseStatus: pauseFlag true, 1 consuming segment still committing, reason ADMINISTRATIVE, "maintenance"); next: dpgw table resume t`]);
  });

  it("the store's broker failure in its own words, and dpgw's reach from here apart from it", async () => {
    const failing = status([partition(0, { consuming: false, errors: ['s on S: Exception while in work: org.apache.kafka.common.errors.TimeoutException: Timeout expired while fetching topic metadata'] })], { verdict: 'not-consuming' });
    const [reached] = await diagnoseNoRows(evidence({ status: failing }));
    expect(reached).toMatchObject({ finding: 'brokers-unreachable-from-store' });
    expect(reached!.evidence).toContain('from here dpgw read the topic');
    const [notReached] = await diagnoseNoRows(evidence({ status: failing, streamFromHere: { read: false, why: 'Connection refused' } }));
    expect(notReached!.evidence).toContain('dpgw did not read the topic from here either (Connection refused)');
  });

  it('retention: only a partition whose next offset the topic no longer holds', async () => {
    const findings = await diagnoseNoRows(evidence({ status: status([partition(0, { offset: '10', rows: 10 }), partition(1, { offset: '50', rows: 50 })]), earliest: new Map([[0, 40n], [1, 40n]]) }));
    expect(findings).toEqual([expect.objectContaining({ finding: 'lost-to-retention', partitions: [0], evidence: "partition 0: the store's next offset 10, the topic's earliest 40, 30 messages gone" })]);
  });

  it('offsets past the rows: the sample says why; a sample that fits names only a partition with no row at all', async () => {
    const behind = status([partition(0, { offset: '12', rows: 10 })]);
    const notJson = { read: 12, unreadable: [{ where: 'topic/0@11', reason: 'not JSON (Unexpected token)' }], missing: [], extra: [] };
    expect((await diagnoseNoRows(evidence({ status: behind, sample: async () => notJson })))[0]).toMatchObject({ finding: 'decoder-drops', evidence: 'partition 0: 12 messages passed, 10 rows stored; 1 of 12 sampled messages are not JSON objects (topic/0@11: not JSON (Unexpected token))' });
    const fits = async () => ({ read: 12, unreadable: [], missing: [], extra: [] });
    expect(await diagnoseNoRows(evidence({ status: behind, sample: fits }))).toEqual([]);
    const none = await diagnoseNoRows(evidence({ status: status([partition(0, { offset: '12', rows: 0 })]), sample: fits }));
    expect(none).toEqual([expect.objectContaining({ finding: 'decoder-drops', evidence: 'partition 0: 12 messages passed, 0 rows stored; a sample of 12 latest messages fits the schema' })]);
    const lacking = await diagnoseNoRows(evidence({ status: behind, sample: async () => ({ read: 5, unreadable: [], missing: ['ts'], extra: ['time'] }) }));
    expect(lacking[0]!.evidence).toBe('partition 0: 12 messages passed, 10 rows stored; the 5 sampled messages carry no ts of the schema; they carry time, which the schema lacks');
  });
});
