// etcd's gRPC protocol as we use it: the message shapes we read, the compare
// and target constants of txns, and the methods compiled at start-up from the
// .proto files the etcd3 package ships (etcd's own API definitions).

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import type { KeyValue } from '../interface.js';
import {
  decodeDeleteRangeResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  decodeWatchResponse,
  frameDeleteRangeRequest,
  frameRangeRequest,
  frameTxnRequest,
  type CompareSpec,
  type Int64Value,
  type OpSpec,
  type TxnSpec,
} from './wire.js';

// ---------------------------------------------------------------------------
// Protocol: etcd's protos, compiled with protobufjs.

/** An int64 as protobufjs decodes it: a Long when the long package is present, else a number. */
export type Int64 = number | { toNumber(): number; toString(): string; isZero(): boolean };

export interface PbHeader {
  revision: Int64;
}
export interface PbKeyValue {
  key: Uint8Array;
  value: Uint8Array;
  create_revision: Int64;
  mod_revision: Int64;
  version: Int64;
  lease: Int64;
}
export interface PbRangeResponse {
  header: PbHeader | null;
  kvs: PbKeyValue[];
  more: boolean;
  count: Int64;
}
export interface PbPutResponse {
  header: PbHeader | null;
  prev_kv: PbKeyValue | null;
}
export interface PbDeleteRangeResponse {
  header: PbHeader | null;
  deleted: Int64;
  prev_kvs: PbKeyValue[];
}
export interface PbResponseOp {
  response_range?: PbRangeResponse | null;
  response_put?: PbPutResponse | null;
  response_delete_range?: PbDeleteRangeResponse | null;
}
export interface PbTxnResponse {
  header: PbHeader | null;
  succeeded: boolean;
  responses: PbResponseOp[];
}
export interface PbLeaseGrantResponse {
  header: PbHeader | null;
  ID: Int64;
  TTL: Int64;
  error: string;
}
export interface PbEvent {
  /** 0 PUT, 1 DELETE. */
  type: number;
  kv: PbKeyValue | null;
  prev_kv: PbKeyValue | null;
}
export interface PbWatchResponse {
  header: PbHeader | null;
  created: boolean;
  canceled: boolean;
  compact_revision: Int64;
  cancel_reason: string;
  events: PbEvent[];
}

// Compare.CompareResult and Compare.CompareTarget from rpc.proto.
export const EQUAL = 0;
export const GREATER = 1;
export const TARGET_CREATE = 1;
export const TARGET_MOD = 2;
export const TARGET_VERSION = 0;

export interface Method {
  path: string;
  serialize(value: object): Buffer;
  deserialize(bytes: Buffer): unknown;
  /** The request as a gRPC frame (flag byte, length, message) in one buffer. */
  frame(value: object): Buffer;
}

export interface Protocol {
  range: Method;
  put: Method;
  deleteRange: Method;
  txn: Method;
  compact: Method;
  leaseGrant: Method;
  watch: Method;
  status: Method;
}

let protocol: Protocol | undefined;

export function loadProtocol(): Protocol {
  if (protocol) return protocol;
  const require = createRequire(import.meta.url);
  const protoDir = join(dirname(require.resolve('etcd3/package.json')), 'proto');
  const root = new protobuf.Root();
  root.loadSync(join(protoDir, 'rpc.proto'), { keepCase: true });
  root.resolveAll();
  /**
   * A method of the .proto files; `fast` replaces protobufjs where wire.ts
   * has the messages: its encoder (undefined for a request shape it does not
   * cover, which protobufjs then encodes) and its decoder.
   */
  const method = (
    service: string,
    name: string,
    request: string,
    response: string,
    fast?: { frame?: (value: object) => Buffer | undefined; deserialize?: (bytes: Buffer) => unknown },
  ): Method => {
    const req = root.lookupType(`etcdserverpb.${request}`);
    const res = root.lookupType(`etcdserverpb.${response}`);
    const serialize = (value: object): Buffer => {
      const bytes = req.encode(value).finish();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    };
    return {
      path: `/etcdserverpb.${service}/${name}`,
      serialize,
      deserialize: fast?.deserialize ?? ((bytes) => res.decode(bytes)),
      frame: (value) => fast?.frame?.(value) ?? grpcFrame(serialize(value)),
    };
  };
  protocol = {
    range: method('KV', 'Range', 'RangeRequest', 'RangeResponse', { frame: rangeFrame, deserialize: (b) => decodeRangeResponse(b) }),
    put: method('KV', 'Put', 'PutRequest', 'PutResponse'),
    deleteRange: method('KV', 'DeleteRange', 'DeleteRangeRequest', 'DeleteRangeResponse', {
      frame: deleteRangeFrame,
      deserialize: (b) => decodeDeleteRangeResponse(b),
    }),
    txn: method('KV', 'Txn', 'TxnRequest', 'TxnResponse', { frame: txnFrame, deserialize: (b) => decodeTxnResponse(b) }),
    compact: method('KV', 'Compact', 'CompactionRequest', 'CompactionResponse'),
    leaseGrant: method('Lease', 'LeaseGrant', 'LeaseGrantRequest', 'LeaseGrantResponse'),
    watch: method('Watch', 'Watch', 'WatchRequest', 'WatchResponse', { deserialize: (b) => decodeWatchResponse(b) }),
    status: method('Maintenance', 'Status', 'StatusRequest', 'StatusResponse'),
  };
  return protocol;
}

function grpcFrame(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

// The request shapes the backend builds (protobufjs's field names), mapped
// onto wire.ts's encoders; anything else is left to protobufjs.

type Bytes = Buffer | string;
interface PbCompare {
  key: Bytes;
  target: number;
  result?: number;
  version?: number;
  create_revision?: number;
  mod_revision?: number;
}
interface PbRequestOp {
  request_put?: { key: Bytes; value: Bytes; lease?: Int64Value; prev_kv?: boolean };
  request_range?: { key: Bytes };
  request_delete_range?: { key: Bytes; prev_kv?: boolean };
}

const TARGET_OPERAND = ['version', 'create_revision', 'mod_revision'] as const;

function compareSpec(c: PbCompare): CompareSpec | undefined {
  const field = TARGET_OPERAND[c.target];
  if (field === undefined) return undefined;
  const operand = c[field];
  const keys = Object.keys(c).length;
  // Exactly key, target, result (optional) and the target's operand.
  if (typeof operand !== 'number' || keys !== (c.result === undefined ? 3 : 4)) return undefined;
  return { result: c.result ?? 0, target: c.target, key: c.key, operand };
}

function opSpec(op: PbRequestOp): OpSpec | undefined {
  if (Object.keys(op).length !== 1) return undefined;
  const put = op.request_put;
  if (put !== undefined) return { put: { key: put.key, value: put.value, lease: put.lease ?? 0, prevKv: put.prev_kv === true } };
  const range = op.request_range;
  if (range !== undefined) return Object.keys(range).length === 1 ? { range: { key: range.key } } : undefined;
  const del = op.request_delete_range;
  if (del !== undefined) return { deleteRange: { key: del.key, prevKv: del.prev_kv === true } };
  return undefined;
}

function txnFrame(value: object): Buffer | undefined {
  const req = value as { compare?: PbCompare[]; success?: PbRequestOp[]; failure?: PbRequestOp[] };
  const spec: TxnSpec = { compare: [], success: [], failure: [] };
  for (const c of req.compare ?? []) {
    const s = compareSpec(c);
    if (s === undefined) return undefined;
    spec.compare.push(s);
  }
  for (const [from, to] of [
    [req.success ?? [], spec.success],
    [req.failure ?? [], spec.failure],
  ] as const) {
    for (const op of from) {
      const s = opSpec(op);
      if (s === undefined) return undefined;
      to.push(s);
    }
  }
  return frameTxnRequest(spec);
}

const RANGE_FIELDS = new Set(['key', 'range_end', 'revision', 'limit', 'count_only']);

function rangeFrame(value: object): Buffer | undefined {
  const req = value as { key: Bytes; range_end?: Bytes; revision?: number; limit?: number; count_only?: boolean };
  for (const k of Object.keys(req)) if (!RANGE_FIELDS.has(k)) return undefined;
  return frameRangeRequest({ key: req.key, rangeEnd: req.range_end, revision: req.revision, limit: req.limit, countOnly: req.count_only });
}

function deleteRangeFrame(value: object): Buffer | undefined {
  const req = value as { key: Bytes; range_end?: Bytes; prev_kv?: boolean };
  if (req.range_end !== undefined) return undefined;
  return frameDeleteRangeRequest(req.key, req.prev_kv === true);
}

/** True for etcd versions whose progress notifications never run ahead of undelivered events. */
export function progressFixedIn(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (m === null) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

export function num(value: Int64 | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : value.toNumber();
}

export function isZero(value: Int64 | null | undefined): boolean {
  if (value === null || value === undefined) return true;
  return typeof value === 'number' ? value === 0 : value.isZero();
}

export function bytes(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export function text(data: Uint8Array): string {
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** The protobuf envelope's magic (`k8s\0`), which kube-apiserver writes before a built-in's stored value. */
const PROTOBUF_MAGIC = [0x6b, 0x38, 0x73, 0x00];

/**
 * A stored value as text: UTF-8 (apiary's JSON), except a protobuf value
 * written by kube-apiserver, which is binary and kept byte for byte (one
 * latin1 character per byte) for the object layer to decode.
 */
export function valueText(data: Uint8Array): string {
  const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data);
  if (buffer.length >= 4 && PROTOBUF_MAGIC.every((b, i) => buffer[i] === b)) return buffer.toString('latin1');
  return buffer.toString('utf8');
}

export function toKeyValue(kv: PbKeyValue): KeyValue {
  const out: KeyValue = {
    key: text(kv.key),
    value: valueText(kv.value),
    createRevision: num(kv.create_revision),
    modRevision: num(kv.mod_revision),
  };
  // Lease ids are 64-bit; as a number this is only a marker that a lease is attached.
  if (!isZero(kv.lease)) out.lease = num(kv.lease);
  return out;
}

