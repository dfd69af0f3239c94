/**
 * The Kafka protocol's primitive types, as the sandbox's broker reads requests and
 * writes answers: big-endian integers, (unsigned) varints, strings and byte arrays in
 * their classic and "compact" (flexible-version) forms, UUIDs and tagged fields.
 * Written from the protocol guide (kafka.apache.org/protocol), not from a client.
 */

/** Thrown for a request the broker cannot read: Kafka closes such a connection. */
export class MalformedRequest extends Error {}

export class WireReader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  get remaining(): number {
    return this.buffer.length - this.offset;
  }

  private take(bytes: number): number {
    if (bytes < 0 || this.offset + bytes > this.buffer.length) throw new MalformedRequest(`request ends early (wanted ${bytes} bytes at ${this.offset})`);
    const at = this.offset;
    this.offset += bytes;
    return at;
  }

  int8(): number {
    return this.buffer.readInt8(this.take(1));
  }
  int16(): number {
    return this.buffer.readInt16BE(this.take(2));
  }
  int32(): number {
    return this.buffer.readInt32BE(this.take(4));
  }
  int64(): bigint {
    return this.buffer.readBigInt64BE(this.take(8));
  }
  boolean(): boolean {
    return this.int8() !== 0;
  }
  uuid(): Buffer {
    const at = this.take(16);
    return Buffer.from(this.buffer.subarray(at, at + 16));
  }

  unsignedVarint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.buffer.readUInt8(this.take(1));
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value >>> 0;
    }
    throw new MalformedRequest('varint longer than 5 bytes');
  }

  bytes(length: number): Buffer {
    const at = this.take(length);
    return Buffer.from(this.buffer.subarray(at, at + length));
  }

  /** STRING / NULLABLE_STRING (int16 length) or, flexible, COMPACT_(NULLABLE_)STRING. */
  string(compact: boolean): string | null {
    const length = compact ? this.unsignedVarint() - 1 : this.int16();
    if (length < 0) return null;
    return this.bytes(length).toString('utf8');
  }

  /** BYTES (int32 length) or COMPACT_BYTES. */
  byteArray(compact: boolean): Buffer | null {
    const length = compact ? this.unsignedVarint() - 1 : this.int32();
    if (length < 0) return null;
    return this.bytes(length);
  }

  /** ARRAY (int32 count) or COMPACT_ARRAY; a null array reads as empty. */
  array<T>(compact: boolean, item: (reader: WireReader) => T): T[] {
    const count = compact ? this.unsignedVarint() - 1 : this.int32();
    if (count > this.remaining) throw new MalformedRequest(`array of ${count} items in ${this.remaining} bytes`);
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(item(this));
    return items;
  }

  /** A COMPACT_NULLABLE_ARRAY (or a classic one of count -1): null when the sender wrote null. */
  nullableArray<T>(compact: boolean, item: (reader: WireReader) => T): T[] | null {
    const count = compact ? this.unsignedVarint() - 1 : this.int32();
    if (count < 0) return null;
    if (count > this.remaining) throw new MalformedRequest(`array of ${count} items in ${this.remaining} bytes`);
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(item(this));
    return items;
  }

  /** Skips a TAG_BUFFER: no tagged field the broker reads is defined. */
  taggedFields(): void {
    const count = this.unsignedVarint();
    for (let i = 0; i < count; i++) {
      this.unsignedVarint();
      this.bytes(this.unsignedVarint());
    }
  }
}

export class WireWriter {
  private readonly chunks: Buffer[] = [];

  private push(buffer: Buffer): this {
    this.chunks.push(buffer);
    return this;
  }

  int8(value: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(value);
    return this.push(b);
  }
  int16(value: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(value);
    return this.push(b);
  }
  int32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(value);
    return this.push(b);
  }
  uint32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(value >>> 0);
    return this.push(b);
  }
  int64(value: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(value);
    return this.push(b);
  }
  boolean(value: boolean): this {
    return this.int8(value ? 1 : 0);
  }
  uuid(value: Buffer): this {
    return this.push(value);
  }
  raw(value: Buffer): this {
    return this.push(value);
  }

  unsignedVarint(value: number): this {
    const bytes: number[] = [];
    let rest = value >>> 0;
    while (rest > 0x7f) {
      bytes.push((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    bytes.push(rest);
    return this.push(Buffer.from(bytes));
  }

  /** A signed varint (zig-zag), as record fields are written. */
  varint(value: number): this {
    return this.unsignedVarint((value << 1) ^ (value >> 31));
  }

  /** A signed varlong (zig-zag), for record timestamps. */
  varlong(value: bigint): this {
    let zigzag = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
    const bytes: number[] = [];
    while (zigzag > 0x7fn) {
      bytes.push(Number(zigzag & 0x7fn) | 0x80);
      zigzag >>= 7n;
    }
    bytes.push(Number(zigzag));
    return this.push(Buffer.from(bytes));
  }

  string(value: string | null, compact: boolean): this {
    if (value === null) return compact ? this.unsignedVarint(0) : this.int16(-1);
    const bytes = Buffer.from(value, 'utf8');
    (compact ? this.unsignedVarint(bytes.length + 1) : this.int16(bytes.length)).push(bytes);
    return this;
  }

  byteArray(value: Buffer | null, compact: boolean): this {
    if (value === null) return compact ? this.unsignedVarint(0) : this.int32(-1);
    (compact ? this.unsignedVarint(value.length + 1) : this.int32(value.length)).push(value);
    return this;
  }

  array<T>(items: readonly T[], compact: boolean, item: (writer: WireWriter, value: T) => unknown): this {
    if (compact) this.unsignedVarint(items.length + 1);
    else this.int32(items.length);
    for (const value of items) item(this, value);
    return this;
  }

  /** An empty TAG_BUFFER. */
  taggedFields(): this {
    return this.unsignedVarint(0);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** CRC-32C (Castagnoli), which guards a v2 record batch. */
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32c(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC32C_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
