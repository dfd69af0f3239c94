/**
 * How the sandbox's store consumes, for `dpgw table status`'s diagnosis and `dpgw table
 * pause|resume` (issue #47 §4), in Pinot 0.11's answers (PinotRealtimeTableResource,
 * PinotLLCRealtimeSegmentManager): a table's consumption paused and resumed; a decoder that
 * drops what it cannot read (the offset moves on, no row is stored: the JSON decoder returns
 * null and LLRealtimeSegmentDataManager#processStreamEvents counts it as dropped); retention
 * is the broker's (StreamBroker.deleteRecords moves a partition's earliest offset).
 */
/** The store's answer, as olap-store.ts's StoreAnswer (not imported: that module imports this one). */
interface StoreAnswer {
  status: number;
  body: unknown;
}

/**
 * What Pinot 0.11's server records for a consumer whose brokers it cannot reach: more than
 * MAX_CONSECUTIVE_ERROR_COUNT failed fetches in a row end its consumption as "Exception while in
 * work", the Kafka client's exception in the stack trace (LLRealtimeSegmentDataManager.PartitionConsumer#run).
 */
export const UNREACHABLE_BROKERS_ERROR = {
  errorMessage: 'Exception while in work',
  stackTrace: 'org.apache.kafka.common.errors.TimeoutException: Timeout expired while fetching topic metadata\n\tat org.apache.pinot.plugin.stream.kafka20.KafkaPartitionLevelConsumer.fetchMessages(KafkaPartitionLevelConsumer.java:66)',
};

/** What the store keeps of a paused table: the segments it was consuming when paused (committed at once in the sandbox). */
interface Paused {
  committed: string[];
}

const notFound = (bare: string): StoreAnswer => ({ status: 404, body: { code: 404, error: `Table ${bare}_REALTIME not found!` } });

export class ConsumptionEmulation {
  private readonly paused = new Map<string, Paused>();

  isPaused(bare: string): boolean {
    return this.paused.has(bare);
  }

  /** GET /tables/{t}/pauseStatus: the flag, and the segments still consuming (none once committed). */
  pauseStatus(bare: string, exists: boolean, consuming: string[]): StoreAnswer {
    if (!exists) return notFound(bare);
    return { status: 200, body: { pauseFlag: this.paused.has(bare), consumingSegments: this.paused.has(bare) ? [] : consuming } };
  }

  /** POST /tables/{t}/pauseConsumption: the flag set, the consuming segments committed. */
  pause(bare: string, exists: boolean, consuming: string[]): StoreAnswer {
    if (!exists) return notFound(bare);
    if (!this.paused.has(bare)) this.paused.set(bare, { committed: consuming });
    const body: Record<string, unknown> = { pauseFlag: true, consumingSegments: consuming };
    // Pinot leaves the description out when nothing was consuming (PauseStatus, @JsonInclude NON_NULL).
    if (consuming.length > 0) body.description = 'Pause flag is set. Consuming segments are being committed. Use /pauseStatus endpoint in a few moments to check if all consuming segments have been committed.';
    return { status: 200, body };
  }

  /** POST /tables/{t}/resumeConsumption?consumeFrom=: the flag cleared; 0.11 knows only smallest and largest. */
  resume(bare: string, exists: boolean, consumeFrom: string | undefined, consuming: () => string[]): StoreAnswer {
    if (consumeFrom !== undefined && consumeFrom !== 'smallest' && consumeFrom !== 'largest') return { status: 400, body: { code: 400, error: `consumeFrom param '${consumeFrom}' is not valid.` } };
    if (!exists) return notFound(bare);
    this.paused.delete(bare);
    return { status: 200, body: { pauseFlag: false, consumingSegments: consuming(), description: 'Pause flag is cleared. Consuming segments are being created. Use /pauseStatus endpoint in a few moments to double check.' } };
  }
}

/** The rows the store's JSON decoder makes of a partition's first `upTo` records: one per record that is a JSON object, none for the rest. */
export function decodedRows(records: ReadonlyArray<{ value: Buffer | null }>, upTo: number): number {
  let rows = 0;
  for (const record of records.slice(0, upTo)) if (record.value !== null && isJsonObject(record.value)) rows++;
  return rows;
}

function isJsonObject(value: Buffer): boolean {
  try {
    const parsed: unknown = JSON.parse(value.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
