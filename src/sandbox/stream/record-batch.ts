/**
 * The on-disk and on-wire form of Kafka messages since 0.11: a v2 record batch
 * (magic 2), its CRC-32C over everything after the CRC field, and each record's
 * varint-encoded fields as offset and timestamp deltas from the batch's base.
 */
import { crc32c, WireWriter } from './kafka-wire.js';

/** A batch's compression, as its attributes' low bits name it. */
export type BatchCompression = 'none' | 'gzip' | 'snappy' | 'lz4';
const CODEC_BITS: Record<BatchCompression, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3 };

/** Compresses a batch's records section with the named codec. */
export type Compressor = (records: Buffer) => Buffer;

export interface StoredRecord {
  key: Buffer | null;
  value: Buffer | null;
  /** Epoch milliseconds (CreateTime). */
  timestamp: bigint;
}

/** One batch holding `records`, the first of which sits at `baseOffset`; its records section compressed when a codec is given. */
export function encodeRecordBatch(baseOffset: bigint, records: readonly StoredRecord[], compression: { codec: BatchCompression; compress: Compressor } = { codec: 'none', compress: (b) => b }): Buffer {
  const baseTimestamp = records.reduce((min, r) => (r.timestamp < min ? r.timestamp : min), records[0]!.timestamp);
  const maxTimestamp = records.reduce((max, r) => (r.timestamp > max ? r.timestamp : max), baseTimestamp);
  const body = new WireWriter()
    .int16(CODEC_BITS[compression.codec]) // attributes: the codec; CreateTime, not transactional, not control
    .int32(records.length - 1) // lastOffsetDelta
    .int64(baseTimestamp)
    .int64(maxTimestamp)
    .int64(-1n) // producerId: none (not idempotent)
    .int16(-1) // producerEpoch
    .int32(-1) // baseSequence
    .int32(records.length);
  const encoded = Buffer.concat(records.map((record, index) => encodeRecord(record, index, record.timestamp - baseTimestamp)));
  body.raw(compression.compress(encoded));
  const afterCrc = body.toBuffer();
  const fromEpoch = new WireWriter()
    .int32(0) // partitionLeaderEpoch
    .int8(2) // magic
    .uint32(crc32c(afterCrc))
    .raw(afterCrc)
    .toBuffer();
  return new WireWriter().int64(baseOffset).int32(fromEpoch.length).raw(fromEpoch).toBuffer();
}

function encodeRecord(record: StoredRecord, offsetDelta: number, timestampDelta: bigint): Buffer {
  const fields = new WireWriter().int8(0).varlong(timestampDelta).varint(offsetDelta);
  if (record.key === null) fields.varint(-1);
  else fields.varint(record.key.length).raw(record.key);
  if (record.value === null) fields.varint(-1);
  else fields.varint(record.value.length).raw(record.value);
  fields.varint(0); // no headers
  const bytes = fields.toBuffer();
  return new WireWriter().varint(bytes.length).raw(bytes).toBuffer();
}
