// etcd's hot messages in protobuf, by hand: the answers every read, write
// and watch event brings (RangeResponse, TxnResponse, WatchResponse, with
// their KeyValues) decoded straight into the shapes protocol.ts declares, and
// the requests a create, update, delete or get sends (TxnRequest,
// RangeRequest, DeleteRangeRequest) encoded into one buffer. protobufjs (the
// rest of protocol.ts) reads the .proto files and handles any message, at
// several times the cost: int64 fields become Long objects, a message is
// assembled in a list of operations and copied out, every field is looked up
// by name.
//
// Decoding follows protobuf's rules: fields in any order, a repeated message
// field appended to, a scalar or bytes field's last occurrence winning,
// unknown fields skipped by wire type. int64 fields become numbers (etcd's
// revisions and counts are far below 2^53; a lease id can be above it, which
// the backend only tests against zero).

import type {
  PbDeleteRangeResponse,
  PbEvent,
  PbHeader,
  PbKeyValue,
  PbPutResponse,
  PbRangeResponse,
  PbResponseOp,
  PbTxnResponse,
  PbWatchResponse,
} from './protocol.js';

export class WireError extends Error {}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const FIXED32 = 5;

/** A position in a buffer, moved along as fields are read. */
class Reader {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}

  varint(): number {
    const buf = this.buf;
    if (this.pos >= this.end) throw new WireError('truncated varint');
    let b = buf[this.pos++]!;
    if (b < 0x80) return b;
    let value = b & 0x7f;
    let scale = 128;
    for (let i = 1; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError('truncated varint');
      b = buf[this.pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new WireError('varint longer than 10 bytes');
  }

  /** A length-delimited field's extent; the reader moves past it. */
  length(): [number, number] {
    const n = this.varint();
    const start = this.pos;
    const end = start + n;
    if (end > this.end) throw new WireError('length-delimited field past the end of its message');
    this.pos = end;
    return [start, end];
  }

  bytes(): Buffer {
    const [start, end] = this.length();
    return this.buf.subarray(start, end);
  }

  skip(wire: number): void {
    switch (wire) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.pos += 8;
        break;
      case LENGTH:
        this.length();
        return;
      case FIXED32:
        this.pos += 4;
        break;
      default:
        throw new WireError(`unsupported wire type ${wire}`);
    }
    if (this.pos > this.end) throw new WireError('fixed-size field past the end of its message');
  }
}

/** Calls `field` for each field of the message in [start, end); it returns false for fields it does not read. */
function fields(buf: Buffer, start: number, end: number, field: (r: Reader, no: number, wire: number) => boolean): void {
  const r = new Reader(buf, start, end);
  while (r.pos < end) {
    const tag = r.varint();
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    if (no === 0) throw new WireError('field number 0');
    if (!field(r, no, wire)) r.skip(wire);
  }
  if (r.pos !== end) throw new WireError('message overran its length');
}

function sub<T>(r: Reader, wire: number, decode: (buf: Buffer, start: number, end: number) => T): T {
  if (wire !== LENGTH) throw new WireError('expected a message');
  const [start, end] = r.length();
  return decode(r.buf, start, end);
}

const EMPTY = Buffer.alloc(0);

function header(buf: Buffer, start: number, end: number): PbHeader {
  const h: PbHeader = { revision: 0 };
  fields(buf, start, end, (r, no, wire) => {
    if (no !== 3 || wire !== VARINT) return false;
    h.revision = r.varint();
    return true;
  });
  return h;
}

export function decodeKeyValue(buf: Buffer, start: number, end: number): PbKeyValue {
  const kv: PbKeyValue = { key: EMPTY, value: EMPTY, create_revision: 0, mod_revision: 0, version: 0, lease: 0 };
  fields(buf, start, end, (r, no, wire) => {
    if (no === 1 || no === 5) {
      if (wire !== LENGTH) return false;
      if (no === 1) kv.key = r.bytes();
      else kv.value = r.bytes();
      return true;
    }
    if (wire !== VARINT) return false;
    switch (no) {
      case 2:
        kv.create_revision = r.varint();
        return true;
      case 3:
        kv.mod_revision = r.varint();
        return true;
      case 4:
        kv.version = r.varint();
        return true;
      case 6:
        kv.lease = r.varint();
        return true;
      default:
        return false;
    }
  });
  return kv;
}

export function decodeRangeResponse(buf: Buffer, start = 0, end = buf.length): PbRangeResponse {
  const res: PbRangeResponse = { header: null, kvs: [], more: false, count: 0 };
  fields(buf, start, end, (r, no, wire) => {
    switch (no) {
      case 1:
        res.header = sub(r, wire, header);
        return true;
      case 2:
        res.kvs.push(sub(r, wire, decodeKeyValue));
        return true;
      case 3:
        if (wire !== VARINT) return false;
        res.more = r.varint() !== 0;
        return true;
      case 4:
        if (wire !== VARINT) return false;
        res.count = r.varint();
        return true;
      default:
        return false;
    }
  });
  return res;
}

function putResponse(buf: Buffer, start: number, end: number): PbPutResponse {
  const res: PbPutResponse = { header: null, prev_kv: null };
  fields(buf, start, end, (r, no, wire) => {
    if (no === 1) res.header = sub(r, wire, header);
    else if (no === 2) res.prev_kv = sub(r, wire, decodeKeyValue);
    else return false;
    return true;
  });
  return res;
}

export function decodeDeleteRangeResponse(buf: Buffer, start = 0, end = buf.length): PbDeleteRangeResponse {
  const res: PbDeleteRangeResponse = { header: null, deleted: 0, prev_kvs: [] };
  fields(buf, start, end, (r, no, wire) => {
    if (no === 1) res.header = sub(r, wire, header);
    else if (no === 2 && wire === VARINT) res.deleted = r.varint();
    else if (no === 3) res.prev_kvs.push(sub(r, wire, decodeKeyValue));
    else return false;
    return true;
  });
  return res;
}

function responseOp(buf: Buffer, start: number, end: number): PbResponseOp {
  const op: PbResponseOp = {};
  fields(buf, start, end, (r, no, wire) => {
    // One of: the last one read wins, as protobuf's oneof.
    if (no === 1) {
      const v = sub(r, wire, decodeRangeResponse);
      delete op.response_put;
      delete op.response_delete_range;
      op.response_range = v;
    } else if (no === 2) {
      const v = sub(r, wire, putResponse);
      delete op.response_range;
      delete op.response_delete_range;
      op.response_put = v;
    } else if (no === 3) {
      const v = sub(r, wire, decodeDeleteRangeResponse);
      delete op.response_range;
      delete op.response_put;
      op.response_delete_range = v;
    } else return false; // response_txn: the backend sends no nested txns
    return true;
  });
  return op;
}

export function decodeTxnResponse(buf: Buffer, start = 0, end = buf.length): PbTxnResponse {
  const res: PbTxnResponse = { header: null, succeeded: false, responses: [] };
  fields(buf, start, end, (r, no, wire) => {
    if (no === 1) res.header = sub(r, wire, header);
    else if (no === 2 && wire === VARINT) res.succeeded = r.varint() !== 0;
    else if (no === 3) res.responses.push(sub(r, wire, responseOp));
    else return false;
    return true;
  });
  return res;
}

function event(buf: Buffer, start: number, end: number): PbEvent {
  const e: PbEvent = { type: 0, kv: null, prev_kv: null };
  fields(buf, start, end, (r, no, wire) => {
    if (no === 1 && wire === VARINT) e.type = r.varint();
    else if (no === 2) e.kv = sub(r, wire, decodeKeyValue);
    else if (no === 3) e.prev_kv = sub(r, wire, decodeKeyValue);
    else return false;
    return true;
  });
  return e;
}

export function decodeWatchResponse(buf: Buffer, start = 0, end = buf.length): PbWatchResponse {
  const res: PbWatchResponse = { header: null, created: false, canceled: false, compact_revision: 0, cancel_reason: '', events: [] };
  fields(buf, start, end, (r, no, wire) => {
    switch (no) {
      case 1:
        res.header = sub(r, wire, header);
        return true;
      case 3:
      case 4:
      case 5: {
        if (wire !== VARINT) return false;
        const v = r.varint();
        if (no === 3) res.created = v !== 0;
        else if (no === 4) res.canceled = v !== 0;
        else res.compact_revision = v;
        return true;
      }
      case 6:
        if (wire !== LENGTH) return false;
        res.cancel_reason = r.bytes().toString('utf8');
        return true;
      case 11:
        res.events.push(sub(r, wire, event));
        return true;
      default:
        return false;
    }
  });
  return res;
}

// -- encoding ------------------------------------------------------------------

/** An int64 as the backend holds one: a number, or a Long (a lease id from protobufjs). */
export type Int64Value = number | { low: number; high: number };

/** A field's bytes: written as they are, or a string written as UTF-8. */
export type Bytes = Buffer | string;

export interface CompareSpec {
  /** Compare.CompareResult. */
  result: number;
  /** Compare.CompareTarget: the target_union field written is this target's. */
  target: number;
  key: Bytes;
  /** The version, create revision or mod revision compared against. */
  operand: number;
}

export type OpSpec =
  | { put: { key: Bytes; value: Bytes; lease: Int64Value; prevKv: boolean } }
  | { range: { key: Bytes } }
  | { deleteRange: { key: Bytes; prevKv: boolean } };

export interface TxnSpec {
  compare: CompareSpec[];
  success: OpSpec[];
  failure: OpSpec[];
}

export interface RangeSpec {
  key: Bytes;
  rangeEnd?: Bytes;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function int64Size(v: Int64Value): number {
  if (typeof v === 'number') return v < 0 ? 10 : varintSize(v);
  if (v.high < 0) return 10;
  return varintSize(v.high * 4294967296 + (v.low >>> 0)); // size only: precision is not needed here
}

function bytesLength(b: Bytes): number {
  return typeof b === 'string' ? Buffer.byteLength(b, 'utf8') : b.length;
}

/** Writes one message's fields into a buffer sized beforehand. */
class Writer {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start: number,
  ) {
    this.pos = start;
  }

  varint(n: number): void {
    const buf = this.buf;
    while (n >= 128) {
      buf[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    buf[this.pos++] = n;
  }

  int64(v: Int64Value): void {
    if (typeof v === 'number') {
      if (v >= 0) return this.varint(v);
      v = { low: v | 0, high: Math.floor(v / 4294967296) | 0 };
    }
    // Two's complement, 7 bits at a time from the low word into the high one.
    let low = v.low >>> 0;
    let high = v.high >>> 0;
    const buf = this.buf;
    while (high !== 0 || low >= 128) {
      buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low;
  }

  tag(no: number, wire: number): void {
    this.varint(no * 8 + wire);
  }

  bytes(no: number, b: Bytes, length: number): void {
    this.tag(no, LENGTH);
    this.varint(length);
    if (typeof b === 'string') this.pos += this.buf.write(b, this.pos, length, 'utf8');
    else this.pos += b.copy(this.buf, this.pos);
  }
}

function tagSize(no: number): number {
  return no < 16 ? 1 : varintSize(no * 8);
}

function lengthField(no: number, length: number): number {
  return tagSize(no) + varintSize(length) + length;
}

/** Sizes of a message's parts, computed once and used to write it. */
interface Sized<T> {
  spec: T;
  size: number;
  /** Byte lengths of its bytes fields, in the order they are written. */
  lengths: number[];
}

function compareSize(c: CompareSpec): Sized<CompareSpec> {
  const key = bytesLength(c.key);
  const size = 1 + varintSize(c.result) + 1 + varintSize(c.target) + lengthField(3, key) + 1 + varintSize(c.operand);
  return { spec: c, size, lengths: [key] };
}

/** Compare.target_union's field for each CompareTarget: VERSION 4, CREATE 5, MOD 6. */
const TARGET_FIELD = [4, 5, 6];

function writeCompare(w: Writer, s: Sized<CompareSpec>): void {
  const c = s.spec;
  const field = TARGET_FIELD[c.target];
  if (field === undefined) throw new WireError(`compare target ${c.target} is not encoded here`);
  w.tag(1, VARINT);
  w.varint(c.result);
  w.tag(2, VARINT);
  w.varint(c.target);
  w.bytes(3, c.key, s.lengths[0]!);
  w.tag(field, VARINT);
  w.varint(c.operand);
}

/** The RequestOp's inner message: its field number in RequestOp and its size. */
function opSize(op: OpSpec): Sized<OpSpec> & { inner: number } {
  if ('put' in op) {
    const p = op.put;
    const key = bytesLength(p.key);
    const value = bytesLength(p.value);
    const lease = typeof p.lease === 'number' && p.lease === 0 ? 0 : 1 + int64Size(p.lease);
    const inner = lengthField(1, key) + lengthField(2, value) + lease + (p.prevKv ? 2 : 0);
    return { spec: op, inner, size: lengthField(2, inner), lengths: [key, value] };
  }
  if ('range' in op) {
    const key = bytesLength(op.range.key);
    const inner = lengthField(1, key);
    return { spec: op, inner, size: lengthField(1, inner), lengths: [key] };
  }
  const key = bytesLength(op.deleteRange.key);
  const inner = lengthField(1, key) + (op.deleteRange.prevKv ? 2 : 0);
  return { spec: op, inner, size: lengthField(3, inner), lengths: [key] };
}

function writeOp(w: Writer, s: Sized<OpSpec> & { inner: number }): void {
  const op = s.spec;
  if ('put' in op) {
    const p = op.put;
    w.tag(2, LENGTH);
    w.varint(s.inner);
    w.bytes(1, p.key, s.lengths[0]!);
    w.bytes(2, p.value, s.lengths[1]!);
    if (!(typeof p.lease === 'number' && p.lease === 0)) {
      w.tag(3, VARINT);
      w.int64(p.lease);
    }
    if (p.prevKv) {
      w.tag(4, VARINT);
      w.varint(1);
    }
  } else if ('range' in op) {
    w.tag(1, LENGTH);
    w.varint(s.inner);
    w.bytes(1, op.range.key, s.lengths[0]!);
  } else {
    w.tag(3, LENGTH);
    w.varint(s.inner);
    w.bytes(1, op.deleteRange.key, s.lengths[0]!);
    if (op.deleteRange.prevKv) {
      w.tag(3, VARINT);
      w.varint(1);
    }
  }
}

/**
 * A message in a gRPC frame: the flag byte (0, not compressed) and the 4-byte
 * length, then the message, in one buffer.
 */
function framed(size: number, write: (w: Writer) => void): Buffer {
  const buf = Buffer.allocUnsafe(5 + size);
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
  const w = new Writer(buf, 5);
  write(w);
  if (w.pos !== buf.length) throw new WireError(`encoded ${w.pos - 5} bytes, sized ${size}`);
  return buf;
}

export function frameTxnRequest(txn: TxnSpec): Buffer {
  const compares = txn.compare.map(compareSize);
  const success = txn.success.map(opSize);
  const failure = txn.failure.map(opSize);
  let size = 0;
  for (const c of compares) size += lengthField(1, c.size);
  for (const op of success) size += lengthField(2, op.size);
  for (const op of failure) size += lengthField(3, op.size);
  return framed(size, (w) => {
    for (const c of compares) {
      w.tag(1, LENGTH);
      w.varint(c.size);
      writeCompare(w, c);
    }
    for (const [no, ops] of [[2, success], [3, failure]] as const) {
      for (const op of ops) {
        w.tag(no, LENGTH);
        w.varint(op.size);
        writeOp(w, op);
      }
    }
  });
}

export function frameRangeRequest(range: RangeSpec): Buffer {
  const key = bytesLength(range.key);
  const end = range.rangeEnd === undefined ? -1 : bytesLength(range.rangeEnd);
  const limit = range.limit ?? 0;
  const revision = range.revision ?? 0;
  const size =
    lengthField(1, key) +
    (end < 0 ? 0 : lengthField(2, end)) +
    (limit > 0 ? 1 + varintSize(limit) : 0) +
    (revision > 0 ? 1 + varintSize(revision) : 0) +
    (range.countOnly ? 2 : 0);
  return framed(size, (w) => {
    w.bytes(1, range.key, key);
    if (end >= 0) w.bytes(2, range.rangeEnd!, end);
    if (limit > 0) {
      w.tag(3, VARINT);
      w.varint(limit);
    }
    if (revision > 0) {
      w.tag(4, VARINT);
      w.varint(revision);
    }
    if (range.countOnly) {
      w.tag(9, VARINT);
      w.varint(1);
    }
  });
}

export function frameDeleteRangeRequest(key: Bytes, prevKv: boolean): Buffer {
  const length = bytesLength(key);
  return framed(lengthField(1, length) + (prevKv ? 2 : 0), (w) => {
    w.bytes(1, key, length);
    if (prevKv) {
      w.tag(3, VARINT);
      w.varint(1);
    }
  });
}
