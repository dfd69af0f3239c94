/**
 * Proof that a real-time table consumes its topic: the store's consuming segments
 * (one per partition, `{table}__{partition}__{sequence}__{time}` in Pinot), asked
 * through the gateway until every partition has a segment whose consumer state is
 * CONSUMING, or the wait is over. A gateway that does not pass this read on leaves
 * consumption "not checked" — never reported as consuming.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../gateway/gateway-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { serverText } from '../text/terminal-text.js';

export const CONSUMING_STATE = 'CONSUMING';

export type Consumption =
  | { state: 'consuming'; consuming: number; partitions: number; offsets: Record<string, string> }
  | { state: 'not-consuming'; consuming: number; partitions: number | undefined; error: string | undefined; waitedMs: number }
  | { state: 'not-checked'; why: string };

export interface ConsumptionWait {
  /** Partitions of the topic (from the stream pre-flight); unknown: every segment the store lists. */
  partitions?: number;
  timeoutMs: number;
  /** Between two reads; the first read is at once. */
  intervalMs?: number;
  signal?: AbortSignal;
}

interface PartitionState {
  consuming: boolean;
  offset?: string;
  /** Why it is not consuming, as the store says it. */
  problem?: string;
}

/**
 * The store's answer, per partition: consuming when any server consumes it. Only this
 * table's segments count: a gateway (or a store) may list segments of other tables
 * too, and `track_quiet__3__0__…` is not partition 3 of `track` — counting it said
 * "consuming 4 of 3 partitions" (issue #30). With the topic's partitions known, a
 * partition number outside them is not one of this table's either.
 */
export function partitionStates(segments: Record<string, unknown>, table: string, partitions?: number): Map<number, PartitionState> {
  const states = new Map<number, PartitionState>();
  const prefix = `${rawTableName(table)}__`;
  for (const [segment, servers] of Object.entries(segments)) {
    if (!segment.startsWith(prefix)) continue;
    const partition = partitionOf(segment.slice(prefix.length), servers);
    if (partition === undefined || (partitions !== undefined && partition >= partitions)) continue;
    const entries = Array.isArray(servers) ? (servers as Array<Record<string, unknown>>) : [];
    const consumer = entries.find((s) => s?.consumerState === CONSUMING_STATE);
    const before = states.get(partition);
    if (consumer) {
      const offsets = consumer.partitionToOffsetMap as Record<string, unknown> | undefined;
      states.set(partition, { consuming: true, offset: offsets ? String(offsets[String(partition)] ?? '') : undefined });
    } else if (!before?.consuming) {
      const other = entries.find((s) => typeof s?.consumerState === 'string');
      states.set(partition, { consuming: false, problem: other ? serverText(`partition ${partition}: ${String(other.consumerState)} on ${String(other.serverName ?? 'a server')}`) : `partition ${partition}: no server consumes it` });
    }
  }
  return states;
}

/** The table's name without the type suffix the store adds (`track_REALTIME` → `track`): the first part of its segments' names. */
function rawTableName(table: string): string {
  return table.replace(/_(REALTIME|OFFLINE)$/, '');
}

/**
 * The partition of a segment, from the rest of its name after `{table}__` — Pinot's LLC
 * names go on `{partition}__{sequence}__{creationTime}` — else its one offset key.
 */
function partitionOf(rest: string, servers: unknown): number | undefined {
  const parts = rest.split('__');
  if (parts.length === 3 && /^\d+$/.test(parts[0]!)) return Number(parts[0]);
  const first = Array.isArray(servers) ? (servers[0] as Record<string, unknown> | undefined) : undefined;
  const keys = Object.keys((first?.partitionToOffsetMap as Record<string, unknown> | undefined) ?? {});
  return keys.length === 1 && /^\d+$/.test(keys[0]!) ? Number(keys[0]) : undefined;
}

export async function waitUntilConsuming(client: GatewayClient, table: string, wait: ConsumptionWait): Promise<Consumption> {
  const started = Date.now();
  const deadline = started + wait.timeoutMs;
  let lastError: string | undefined;
  let last: { consuming: number; partitions: number | undefined; problem?: string } = { consuming: 0, partitions: wait.partitions };
  for (;;) {
    try {
      const read = await client.consumingSegments(table);
      if (read.kind !== 'found') return { state: 'not-checked', why: read.kind === 'not-exposed' ? `the gateway does not pass on the store's consuming segments (${read.why})` : 'no consuming segments' };
      const states = partitionStates(read.body, table, wait.partitions);
      const partitions = wait.partitions ?? (states.size > 0 ? states.size : undefined);
      // Never more consuming than partitions: states holds only partitions below the topic's count.
      const consuming = Math.min([...states.values()].filter((s) => s.consuming).length, partitions ?? Infinity);
      lastError = undefined;
      if (partitions !== undefined && consuming >= partitions) {
        const offsets = Object.fromEntries([...states].filter(([, s]) => s.consuming && s.offset !== undefined).map(([p, s]) => [String(p), s.offset!]));
        return { state: 'consuming', consuming, partitions, offsets };
      }
      const missing = partitions === undefined ? [] : Array.from({ length: partitions }, (_, p) => p).filter((p) => !states.get(p)?.consuming);
      last = { consuming, partitions, problem: missing.map((p) => states.get(p)?.problem).find(Boolean) ?? (missing.length ? `partition ${missing[0]}: no consuming segment yet` : undefined) };
    } catch (error) {
      // The store's own error (a table it has not set up, a server it cannot ask): kept as the first error.
      if (!(error instanceof GatewayError)) throw error;
      lastError = serverText(error.bodyMessage || `${error.status}`);
    }
    const left = deadline - Date.now();
    if (left <= 0 || wait.signal?.aborted) break;
    await sleep(Math.min(wait.intervalMs ?? 1000, left), undefined, { signal: wait.signal }).catch(() => undefined);
  }
  return { state: 'not-consuming', consuming: last.consuming, partitions: last.partitions, error: lastError ?? last.problem, waitedMs: Date.now() - started };
}

/** "consuming 3 of 3 partitions", as a line says it. */
export function consumptionText(consumption: Consumption): string {
  switch (consumption.state) {
    case 'consuming':
      return `consuming ${consumption.consuming} of ${consumption.partitions} partition${consumption.partitions === 1 ? '' : 's'}`;
    case 'not-consuming':
      return `consuming ${consumption.consuming}${consumption.partitions === undefined ? '' : ` of ${consumption.partitions}`} partition${consumption.partitions === 1 ? '' : 's'} after ${Math.round(consumption.waitedMs / 1000)} s${consumption.error ? `: ${consumption.error}` : ''}`;
    case 'not-checked':
      return `consumption not checked: ${consumption.why}`;
  }
}
