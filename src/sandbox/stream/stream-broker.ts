/**
 * The sandbox's message stream: one Kafka-protocol broker on 127.0.0.1 with a
 * SASL_PLAINTEXT listener (SCRAM-SHA-512), holding topics in memory. It speaks the
 * requests a reading client sends — ApiVersions, SaslHandshake, SaslAuthenticate,
 * Metadata, ListOffsets, Fetch (v2 record batches) — and behaves as Kafka does where a
 * client can tell: nothing but ApiVersions and SASL before authentication, a wrong
 * password answered with SASL_AUTHENTICATION_FAILED and the connection closed, an
 * unknown API or version closing the connection. Producing is the sandbox's own:
 * `produce` appends records, as the platform's feeds would.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MalformedRequest, WireReader, WireWriter } from './kafka-wire.js';
import { encodeRecordBatch, type BatchCompression, type Compressor, type StoredRecord } from './record-batch.js';
import { ScramExchange, ScramRefused, scramCredential, type ScramCredential } from './scram-server.js';

const API = { Fetch: 1, ListOffsets: 2, Metadata: 3, SaslHandshake: 17, ApiVersions: 18, SaslAuthenticate: 36 } as const;

/** What the broker answers to, and from which version each API is "flexible" (compact types, tagged fields). */
const SUPPORTED: Record<number, { min: number; max: number; flexibleFrom: number }> = {
  [API.Fetch]: { min: 12, max: 17, flexibleFrom: 12 },
  [API.ListOffsets]: { min: 6, max: 9, flexibleFrom: 6 },
  [API.Metadata]: { min: 9, max: 12, flexibleFrom: 9 },
  [API.SaslHandshake]: { min: 1, max: 1, flexibleFrom: Infinity },
  [API.ApiVersions]: { min: 0, max: 3, flexibleFrom: 3 },
  [API.SaslAuthenticate]: { min: 0, max: 2, flexibleFrom: 2 },
};

const ERROR = { none: 0, offsetOutOfRange: 1, unknownTopicOrPartition: 3, unsupportedSaslMechanism: 33, illegalSaslState: 34, unsupportedVersion: 35, saslAuthenticationFailed: 58, unknownTopicId: 100 } as const;
const MECHANISM = 'SCRAM-SHA-512';
/** Kafka's words for any failed SCRAM exchange (it never says which part was wrong). */
export const SCRAM_REFUSAL = `Authentication failed during authentication due to invalid credentials with SASL mechanism ${MECHANISM}`;
/** sasl.server.max.receive.size before authentication; the sandbox keeps the same bound after it. */
const MAX_REQUEST_BYTES = 512 * 1024;
const NODE_ID = 1;
const CLUSTER_ID = 'dpgw-sandbox-stream';
const NOT_REQUESTED = -2147483648;

export interface BrokerTopic {
  name: string;
  id: Buffer;
  partitions: StoredRecord[][];
  /** Each partition's earliest offset still held (retention, deleteRecords); 0 until records are deleted. */
  logStart?: number[];
}

export interface StreamBrokerOptions {
  port?: number;
  /** The stream users and their passwords (SCRAM-SHA-512). */
  users: Record<string, string>;
  /** How the batches it hands out are compressed, as a producer's `compression.type` would make them (default none). */
  compression?: BatchCompression;
}

export class StreamBroker {
  readonly topics = new Map<string, BrokerTopic>();
  private readonly credentials = new Map<string, ScramCredential>();
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  /** Why each refused authentication was refused (what a platform's broker log would show). */
  readonly refusals: string[] = [];
  /** Requests answered so far, by API. */
  readonly requestCounts: Record<string, number> = {};

  constructor(private readonly options: StreamBrokerOptions) {
    for (const [user, password] of Object.entries(options.users)) this.credentials.set(user, scramCredential(password));
  }

  private compressor: Compressor | undefined;

  async start(): Promise<void> {
    this.compressor = await compressorFor(this.options.compression ?? 'none');
    const server = createServer((socket) => this.serve(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, '127.0.0.1', () => resolve());
    });
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** host:port, as a broker list names it. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Whether `password` is the stream user's, checked the way a SCRAM exchange would be. */
  accepts(user: string, password: string): boolean {
    return this.options.users[user] === password;
  }

  createTopic(name: string, partitions: number): BrokerTopic {
    const existing = this.topics.get(name);
    if (existing) return existing;
    const topic: BrokerTopic = { name, id: randomBytes(16), partitions: Array.from({ length: partitions }, () => []) };
    this.topics.set(name, topic);
    return topic;
  }

  /** Appends messages, each to the partition its key chooses (round robin without a key). */
  produce(name: string, messages: Array<{ key?: string; value: string; timestamp?: number }>): void {
    const topic = this.topics.get(name);
    if (!topic) throw new Error(`no topic ${name}`);
    messages.forEach((message, index) => {
      const partition = message.key === undefined ? index % topic.partitions.length : keyHash(message.key) % topic.partitions.length;
      topic.partitions[partition]!.push({ key: message.key === undefined ? null : Buffer.from(message.key), value: Buffer.from(message.value), timestamp: BigInt(message.timestamp ?? Date.now()) });
    });
  }

  /**
   * Deletes a partition's records before an offset, as retention (or the admin's DeleteRecords)
   * does: its earliest offset moves there, a fetch below it is OFFSET_OUT_OF_RANGE, and the
   * offsets of the records after it stay as they were.
   */
  deleteRecords(name: string, partition: number, before: number): void {
    const topic = this.topics.get(name);
    const records = topic?.partitions[partition];
    if (!topic || !records) throw new Error(`no partition ${partition} of topic ${name}`);
    const starts = (topic.logStart ??= topic.partitions.map(() => 0));
    starts[partition] = Math.min(Math.max(starts[partition]!, before), records.length);
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const session: Session = { authenticated: undefined, handshake: false, exchange: undefined };
    let pending = Buffer.alloc(0);
    // One request at a time per connection, in order, as Kafka answers them.
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const size = pending.readInt32BE(0);
        if (size < 0 || size > MAX_REQUEST_BYTES) {
          socket.destroy();
          return;
        }
        if (pending.length < 4 + size) return;
        const frame = pending.subarray(4, 4 + size);
        pending = pending.subarray(4 + size);
        queue = queue.then(() => this.answer(socket, session, frame)).catch(() => void socket.destroy());
      }
    });
  }

  private async answer(socket: Socket, session: Session, frame: Buffer): Promise<void> {
    if (socket.destroyed) return;
    const reader = new WireReader(frame);
    const apiKey = reader.int16();
    const version = reader.int16();
    const correlationId = reader.int32();
    reader.string(false); // client_id
    const supported = SUPPORTED[apiKey];
    const apiName = Object.entries(API).find(([, key]) => key === apiKey)?.[0] ?? `api ${apiKey}`;
    this.requestCounts[apiName] = (this.requestCounts[apiName] ?? 0) + 1;
    if (apiKey === API.ApiVersions) return this.send(socket, correlationId, false, this.apiVersions(version, reader));
    if (!supported || version < supported.min || version > supported.max) throw new MalformedRequest(`unsupported API ${apiKey} v${version}`);
    const flexible = version >= supported.flexibleFrom;
    if (flexible) reader.taggedFields();
    // A SASL listener takes nothing but the SASL exchange before it succeeds (Kafka closes the connection).
    if (session.authenticated === undefined && apiKey !== API.SaslHandshake && apiKey !== API.SaslAuthenticate) throw new MalformedRequest('request before authentication');

    switch (apiKey) {
      case API.SaslHandshake: {
        const mechanism = reader.string(false);
        const known = mechanism === MECHANISM;
        session.handshake = known;
        session.exchange = known ? new ScramExchange((user) => this.credentials.get(user)) : undefined;
        return this.send(socket, correlationId, false, new WireWriter().int16(known ? ERROR.none : ERROR.unsupportedSaslMechanism).array([MECHANISM], false, (w, m) => w.string(m, false)));
      }
      case API.SaslAuthenticate:
        return this.authenticate(socket, session, correlationId, version, flexible, reader);
      case API.Metadata:
        return this.send(socket, correlationId, true, this.metadata(version, reader));
      case API.ListOffsets:
        return this.send(socket, correlationId, true, this.listOffsets(reader));
      case API.Fetch:
        return this.send(socket, correlationId, true, await this.fetch(version, reader));
    }
  }

  private send(socket: Socket, correlationId: number, taggedHeader: boolean, body: WireWriter): void {
    const header = new WireWriter().int32(correlationId);
    if (taggedHeader) header.taggedFields();
    const payload = Buffer.concat([header.toBuffer(), body.toBuffer()]);
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeInt32BE(payload.length);
    payload.copy(frame, 4);
    socket.write(frame);
  }

  private apiVersions(version: number, reader: WireReader): WireWriter {
    // A version newer than the broker knows is answered in v0 with UNSUPPORTED_VERSION and the list, as Kafka does.
    const known = version <= SUPPORTED[API.ApiVersions]!.max;
    const flexible = known && version >= 3;
    if (flexible) {
      reader.taggedFields();
      reader.string(true); // client_software_name
      reader.string(true); // client_software_version
    }
    const writer = new WireWriter().int16(known ? ERROR.none : ERROR.unsupportedVersion);
    writer.array(Object.entries(SUPPORTED), flexible, (w, [key, range]) => {
      w.int16(Number(key)).int16(range.min).int16(range.max);
      if (flexible) w.taggedFields();
    });
    if (known && version >= 1) writer.int32(0); // throttle_time_ms
    if (flexible) writer.taggedFields();
    return writer;
  }

  private authenticate(socket: Socket, session: Session, correlationId: number, version: number, flexible: boolean, reader: WireReader): void {
    const token = reader.byteArray(flexible) ?? Buffer.alloc(0);
    const reply = (error: number, message: string | null, bytes: Buffer) => {
      const writer = new WireWriter().int16(error).string(message, flexible).byteArray(bytes, flexible);
      if (version >= 1) writer.int64(0n); // session_lifetime_ms: no re-authentication asked
      if (flexible) writer.taggedFields();
      this.send(socket, correlationId, flexible, writer);
    };
    const exchange = session.exchange;
    if (!session.handshake || !exchange || session.authenticated !== undefined) {
      reply(ERROR.illegalSaslState, 'SaslAuthenticate request received before a SaslHandshake', Buffer.alloc(0));
      socket.end();
      return;
    }
    try {
      const text = token.toString('utf8');
      if (!session.firstDone) {
        const answer = exchange.first(text);
        session.firstDone = true;
        reply(ERROR.none, null, Buffer.from(answer));
      } else {
        const answer = exchange.final(text);
        session.authenticated = exchange.authenticated;
        reply(ERROR.none, null, Buffer.from(answer));
      }
    } catch (error) {
      if (!(error instanceof ScramRefused)) throw error;
      this.refusals.push(error.message);
      reply(ERROR.saslAuthenticationFailed, SCRAM_REFUSAL, Buffer.alloc(0));
      socket.end();
    }
  }

  private topicByName(name: string | null): BrokerTopic | undefined {
    return name === null ? undefined : this.topics.get(name);
  }

  private topicById(id: Buffer): BrokerTopic | undefined {
    for (const topic of this.topics.values()) if (topic.id.equals(id)) return topic;
    return undefined;
  }

  private metadata(version: number, reader: WireReader): WireWriter {
    const asked = reader.nullableArray(true, (r) => {
      const id = version >= 10 ? r.uuid() : undefined;
      const name = r.string(true);
      r.taggedFields();
      return { id, name };
    });
    // A null array asks for every topic.
    const topics =
      asked === null
        ? [...this.topics.values()].map((topic) => ({ asked: { name: topic.name as string | null, id: topic.id as Buffer | undefined }, topic }))
        : asked.map((t) => ({ asked: t, topic: t.name !== null ? this.topicByName(t.name) : t.id ? this.topicById(t.id) : undefined }));
    const port = this.port;
    const writer = new WireWriter()
      .int32(0)
      .array([NODE_ID], true, (w, node) => w.int32(node).string('127.0.0.1', true).int32(port).string(null, true).taggedFields())
      .string(CLUSTER_ID, true)
      .int32(NODE_ID);
    writer.array(topics, true, (w, { asked: wanted, topic }) => {
      w.int16(topic ? ERROR.none : version >= 10 && wanted.name === null ? ERROR.unknownTopicId : ERROR.unknownTopicOrPartition);
      w.string(topic?.name ?? wanted.name, true);
      if (version >= 10) w.uuid(topic?.id ?? Buffer.alloc(16));
      w.boolean(false);
      w.array(topic?.partitions.map((_, index) => index) ?? [], true, (pw, index) => {
        pw.int16(ERROR.none).int32(index).int32(NODE_ID).int32(0);
        for (let list = 0; list < 2; list++) pw.array([NODE_ID], true, (nw, node) => nw.int32(node));
        pw.array([], true, () => undefined).taggedFields();
      });
      w.int32(NOT_REQUESTED).taggedFields();
    });
    if (version <= 10) writer.int32(NOT_REQUESTED); // cluster_authorized_operations
    return writer.taggedFields();
  }

  private listOffsets(reader: WireReader): WireWriter {
    reader.int32(); // replica_id
    reader.int8(); // isolation_level
    const topics = reader.array(true, (r) => {
      const name = r.string(true) ?? '';
      const partitions = r.array(true, (p) => {
        const partition = p.int32();
        p.int32(); // current_leader_epoch
        const timestamp = p.int64();
        p.taggedFields();
        return { partition, timestamp };
      });
      r.taggedFields();
      return { name, partitions };
    });
    reader.taggedFields();
    return new WireWriter()
      .int32(0)
      .array(topics, true, (w, asked) => {
        const topic = this.topics.get(asked.name);
        w.string(asked.name, true).array(asked.partitions, true, (pw, { partition, timestamp }) => {
          const records = topic?.partitions[partition];
          if (!records) {
            pw.int32(partition).int16(ERROR.unknownTopicOrPartition).int64(-1n).int64(-1n).int32(-1).taggedFields();
            return;
          }
          const [offset, at] = offsetFor(records, timestamp, topic!.logStart?.[partition] ?? 0);
          pw.int32(partition).int16(ERROR.none).int64(at).int64(offset).int32(0).taggedFields();
        });
        w.taggedFields();
      })
      .taggedFields();
  }

  private async fetch(version: number, reader: WireReader): Promise<WireWriter> {
    if (version < 15) reader.int32(); // replica_id
    const maxWaitMs = reader.int32();
    reader.int32(); // min_bytes
    reader.int32(); // max_bytes
    reader.int8(); // isolation_level
    reader.int32(); // session_id
    reader.int32(); // session_epoch
    const byId = version >= 13;
    const asked = reader.array(true, (r) => {
      const key = byId ? r.uuid() : (r.string(true) ?? '');
      const partitions = r.array(true, (p) => {
        const partition = p.int32();
        p.int32(); // current_leader_epoch
        const offset = p.int64();
        p.int32(); // last_fetched_epoch
        p.int64(); // log_start_offset
        const maxBytes = p.int32();
        p.taggedFields();
        return { partition, offset, maxBytes };
      });
      r.taggedFields();
      return { key, partitions };
    });
    const resolve = (key: Buffer | string) => (typeof key === 'string' ? this.topics.get(key) : this.topicById(key));
    const hasData = () => asked.some((t) => t.partitions.some((p) => BigInt(resolve(t.key)?.partitions[p.partition]?.length ?? 0) > p.offset));
    // Nothing to hand out yet: wait (bounded by the client's max_wait_ms), as a broker holds a fetch.
    if (!hasData() && maxWaitMs > 0) await new Promise((r) => setTimeout(r, Math.min(maxWaitMs, 5_000)));

    const writer = new WireWriter().int32(0).int16(ERROR.none).int32(0);
    writer.array(asked, true, (w, { key, partitions }) => {
      const topic = resolve(key);
      if (typeof key === 'string') w.string(key, true);
      else w.uuid(key);
      w.array(partitions, true, (pw, { partition, offset, maxBytes }) => {
        const records = topic?.partitions[partition];
        const end = BigInt(records?.length ?? 0);
        const start = BigInt(topic?.logStart?.[partition] ?? 0);
        const error = !topic ? (byId ? ERROR.unknownTopicId : ERROR.unknownTopicOrPartition) : !records ? ERROR.unknownTopicOrPartition : offset > end || offset < start ? ERROR.offsetOutOfRange : ERROR.none;
        pw.int32(partition).int16(error).int64(error === ERROR.none ? end : -1n).int64(error === ERROR.none ? end : -1n).int64(start);
        pw.array([], true, () => undefined).int32(-1);
        const codec = this.options.compression ?? 'none';
        const batch = error === ERROR.none && offset < end ? encodeRecordBatch(offset, recordsUpTo(records!, Number(offset), maxBytes), { codec, compress: this.compressor! }) : null;
        pw.byteArray(batch, true).taggedFields();
      });
      w.taggedFields();
    });
    return writer.taggedFields();
  }
}

/** The codec's compressor: gzip from Node, snappy and lz4 (LZ4 frames) from the stream client's own codecs, loaded only when asked for. */
async function compressorFor(codec: BatchCompression): Promise<Compressor> {
  switch (codec) {
    case 'none':
      return (records) => records;
    case 'gzip': {
      const { gzipSync } = await import('node:zlib');
      return (records) => gzipSync(records);
    }
    case 'snappy':
    case 'lz4': {
      const codecs = await import('@platformatic/wasm-utils');
      return codec === 'snappy' ? (records) => Buffer.from(codecs.snappyCompress(records)) : (records) => Buffer.from(codecs.lz4Compress(records));
    }
  }
}

interface Session {
  authenticated: string | undefined;
  handshake: boolean;
  exchange: ScramExchange | undefined;
  firstDone?: boolean;
}

/** ListOffsets: -1 the end, -2 the start, -3 the record of the greatest timestamp, else the first record at or after the time. */
function offsetFor(records: readonly StoredRecord[], timestamp: bigint, logStart: number): [offset: bigint, timestamp: bigint] {
  if (timestamp === -1n) return [BigInt(records.length), -1n];
  if (timestamp === -2n) return [BigInt(logStart), -1n];
  if (timestamp === -3n) {
    let best = -1;
    records.forEach((r, i) => {
      if (best < 0 || r.timestamp > records[best]!.timestamp) best = i;
    });
    return best < 0 ? [-1n, -1n] : [BigInt(best), records[best]!.timestamp];
  }
  const index = records.findIndex((r, i) => i >= logStart && r.timestamp >= timestamp);
  return index < 0 ? [-1n, -1n] : [BigInt(index), records[index]!.timestamp];
}

/** From `start`, as many records as fit in `maxBytes` (at least one, as Kafka hands out an oversized first batch). */
function recordsUpTo(records: readonly StoredRecord[], start: number, maxBytes: number): StoredRecord[] {
  const out: StoredRecord[] = [];
  let size = 61; // the batch header
  for (let i = start; i < records.length; i++) {
    const record = records[i]!;
    size += 20 + (record.key?.length ?? 0) + (record.value?.length ?? 0);
    if (out.length > 0 && size > maxBytes) break;
    out.push(record);
  }
  return out;
}

/** A stable partition for a key (the sandbox's own; Kafka's murmur2 placement is not needed here). */
function keyHash(key: string): number {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash;
}
