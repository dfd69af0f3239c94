/**
 * What the sandbox's feeds put on an enabled data set's topic: JSON messages in the
 * shape of its data source, with realistic values and the time in epoch milliseconds.
 * Track reports have the contract's columns (and the nested `__security__` object);
 * examples/track/track-messages.jsonl holds 200 of them. Readings are a sensor's.
 */

/** `track`: the contract's track columns; `reading`: an identifier, a position, a reading and the time. */
export type MessageShape = 'track' | 'reading';

export interface FeedMessage {
  key: string;
  value: string;
  timestamp: number;
}

/** Messages a topic holds when it is created, one second apart, the last one now. */
export const FEED_BACKLOG = 200;
/** Partitions of each topic, so consumption is reported per partition. */
export const FEED_PARTITIONS = 3;

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

function trackMessage(i: number, time: number): Record<string, unknown> {
  const pick = <T>(values: readonly T[]) => values[i % values.length]!;
  return {
    origin: pick(['RADAR-NORTH', 'RADAR-SOUTH', 'AIS-COAST', 'SAT-7']),
    dataMode: pick(['REAL', 'TEST', 'SIMULATED', 'EXERCISE']),
    objType: pick(['AIR', 'SURFACE', 'SUBSURFACE', 'LAND']),
    id: `trk-msg-${String(i).padStart(5, '0')}`,
    createdBy: 'track-feed',
    classificationMarking: pick(['UNCLASSIFIED', 'RESTRICTED']),
    objIdent: pick(['FRIEND', 'HOSTILE', 'NEUTRAL', 'UNKNOWN', 'ASSUMED FRIEND', 'SUSPECT']),
    origNetwork: pick(['LINK16', 'JREAP', 'AIS']),
    trkId: `T${1000 + (i % 40)}`,
    asset: 100 + (i % 12),
    __security__: { releasability: ['NATO'], owner: 'data-platform' },
    // Feet with a fraction, as track feeds send it.
    alt: 500.25 + ((i * 37) % 11000),
    lon: round(-179 + ((i * 7.31) % 358), 2),
    lat: round(-89 + ((i * 3.17) % 178), 2),
    time,
  };
}

/** A sensor's reading: an identifier, a position, a reading and the time. */
function readingMessage(dataSet: string, i: number, time: number): Record<string, unknown> {
  return {
    id: `${dataSet}-${String(i).padStart(5, '0')}`,
    source: `${dataSet}-feed-${i % 4}`,
    reading: round(10 + ((i * 13.7) % 90), 2),
    lon: round(-179 + ((i * 5.11) % 358), 2),
    lat: round(-89 + ((i * 2.71) % 178), 2),
    time,
  };
}

/** `count` messages of a data set, the last at `now`; the track data set's are always track reports. */
export function feedMessages(dataSet: string, count: number, options: { now?: number; first?: number; shape?: MessageShape } = {}): FeedMessage[] {
  const { now = Date.now(), first = 0 } = options;
  const shape = dataSet === 'track' ? 'track' : (options.shape ?? 'reading');
  return Array.from({ length: count }, (_, n) => {
    const i = first + n;
    const time = now - (count - 1 - n) * 1000;
    const message = shape === 'track' ? trackMessage(i, time) : readingMessage(dataSet, i, time);
    return { key: String(message.trkId ?? message.source), value: JSON.stringify(message), timestamp: time };
  });
}
