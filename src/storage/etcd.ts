// The etcd v3 storage backend: the Backend contract (./interface.ts) on a real
// etcd 3.4+ cluster, in the way kube-apiserver's storage/etcd3 uses it.
//
// - resourceVersion is etcd's revision: a key's modRevision is etcd's
//   mod_revision, a read answers with the header revision (or the revision it
//   was asked for).
// - create is a txn on create_revision(key) = 0; guarded update/delete are txns
//   on mod_revision(key) = expected; the else-branch reads the key so that a
//   Conflict carries the current value without a second round trip.
// - ttlSeconds attaches an etcd lease. Leases are shared per TTL, as
//   kube-apiserver's lease manager does: a lease is granted for ttl plus a
//   small reuse window (5 % of the TTL, at most 60 s) and reused while it still
//   expires within [ttl, ttl + window] from now, so a key lives between its TTL
//   and TTL + window, and a busy event stream needs one lease a minute, not one
//   per event.
// - Every unary call carries a deadline (requestTimeoutMs), so nothing hangs
//   when etcd is down or has lost quorum. Reads are retried on another endpoint
//   when one is unreachable; writes only when the request provably never left
//   (no connection), because a retried write that had been applied would be
//   applied twice.
// - watch() opens one gRPC Watch stream per call (prefix, start revision
//   afterRevision + 1, prev_kv, progress_notify, and etcd's "hasleader"
//   metadata so a member cut off from the quorum cancels instead of going
//   silent). When the stream breaks it reconnects, possibly to another
//   endpoint, from the last revision delivered (or confirmed by a progress
//   notification); if that revision has been compacted meanwhile the watch
//   ends with Compacted. After watchRetryWindowMs of failing to reconnect it
//   ends with Unavailable.
//
// Why @grpc/grpc-js directly rather than the etcd3 package's client: etcd3's
// watcher multiplexes all watches on one stream, resumes from the response
// header revision rather than the last event delivered, drops the compact
// revision of a cancelled watch, and has no way to send progress requests or
// per-stream metadata; its unary path adds retry and circuit-breaker policies
// whose timing we could not bound. We still use the .proto files etcd3 ships
// (etcd's own API definitions), compiled at start-up with protobufjs.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import {
  StorageError,
  prefixEnd,
  type Backend,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type WatchEvent,
  type WatchHandle,
  type WatchHandlers,
  type WriteOptions,
} from './interface.js';

export interface EtcdConnectOptions {
  /** Client URLs: http://host:port (https:// uses TLS with the system roots). */
  endpoints: string[];
  /** How long connect() waits for a first successful request. Default 5 s. */
  dialTimeoutMs?: number;
  /** Deadline of every unary request, retries included. Default 10 s. */
  requestTimeoutMs?: number;
  /** How long a broken watch keeps trying to reconnect before it ends with Unavailable. Default 30 s. */
  watchRetryWindowMs?: number;
  /** Clock for lease reuse decisions (ms since the epoch). */
  now?: () => number;
}

/** A watch on etcd; requestProgress() asks etcd for a progress notification (onProgress). */
export interface EtcdWatchHandle extends WatchHandle {
  requestProgress(): void;
}

/** The key kube-apiserver's compactors coordinate on; we use the same one so both can share an etcd. */
export const COMPACT_REV_KEY = 'compact_rev_key';

/**
 * The (empty) metadata of every unary call, shared: grpc-js copies a call's
 * metadata when the call starts (ResolvingCall.start) and changes only its copy.
 */
const NO_METADATA = new grpc.Metadata();

/** How long a request keeps retrying unreachable endpoints (within its deadline). */
const RETRY_WINDOW_MS = 3000;

// ---------------------------------------------------------------------------
// Protocol: etcd's protos, compiled with protobufjs.

/** An int64 as protobufjs decodes it: a Long when the long package is present, else a number. */
type Int64 = number | { toNumber(): number; toString(): string; isZero(): boolean };

interface PbHeader {
  revision: Int64;
}
interface PbKeyValue {
  key: Uint8Array;
  value: Uint8Array;
  create_revision: Int64;
  mod_revision: Int64;
  version: Int64;
  lease: Int64;
}
interface PbRangeResponse {
  header: PbHeader | null;
  kvs: PbKeyValue[];
  more: boolean;
  count: Int64;
}
interface PbPutResponse {
  header: PbHeader | null;
  prev_kv: PbKeyValue | null;
}
interface PbDeleteRangeResponse {
  header: PbHeader | null;
  deleted: Int64;
  prev_kvs: PbKeyValue[];
}
interface PbResponseOp {
  response_range?: PbRangeResponse | null;
  response_put?: PbPutResponse | null;
  response_delete_range?: PbDeleteRangeResponse | null;
}
interface PbTxnResponse {
  header: PbHeader | null;
  succeeded: boolean;
  responses: PbResponseOp[];
}
interface PbLeaseGrantResponse {
  header: PbHeader | null;
  ID: Int64;
  TTL: Int64;
  error: string;
}
interface PbEvent {
  /** 0 PUT, 1 DELETE. */
  type: number;
  kv: PbKeyValue | null;
  prev_kv: PbKeyValue | null;
}
interface PbWatchResponse {
  header: PbHeader | null;
  created: boolean;
  canceled: boolean;
  compact_revision: Int64;
  cancel_reason: string;
  events: PbEvent[];
}

// Compare.CompareResult and Compare.CompareTarget from rpc.proto.
const EQUAL = 0;
const GREATER = 1;
const TARGET_CREATE = 1;
const TARGET_MOD = 2;
const TARGET_VERSION = 0;

interface Method {
  path: string;
  serialize(value: object): Buffer;
  deserialize(bytes: Buffer): unknown;
}

interface Protocol {
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

function loadProtocol(): Protocol {
  if (protocol) return protocol;
  const require = createRequire(import.meta.url);
  const protoDir = join(dirname(require.resolve('etcd3/package.json')), 'proto');
  const root = new protobuf.Root();
  root.loadSync(join(protoDir, 'rpc.proto'), { keepCase: true });
  root.resolveAll();
  const method = (service: string, name: string, request: string, response: string): Method => {
    const req = root.lookupType(`etcdserverpb.${request}`);
    const res = root.lookupType(`etcdserverpb.${response}`);
    return {
      path: `/etcdserverpb.${service}/${name}`,
      serialize: (value) => {
        const bytes = req.encode(value).finish();
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      },
      deserialize: (bytes) => res.decode(bytes),
    };
  };
  protocol = {
    range: method('KV', 'Range', 'RangeRequest', 'RangeResponse'),
    put: method('KV', 'Put', 'PutRequest', 'PutResponse'),
    deleteRange: method('KV', 'DeleteRange', 'DeleteRangeRequest', 'DeleteRangeResponse'),
    txn: method('KV', 'Txn', 'TxnRequest', 'TxnResponse'),
    compact: method('KV', 'Compact', 'CompactionRequest', 'CompactionResponse'),
    leaseGrant: method('Lease', 'LeaseGrant', 'LeaseGrantRequest', 'LeaseGrantResponse'),
    watch: method('Watch', 'Watch', 'WatchRequest', 'WatchResponse'),
    status: method('Maintenance', 'Status', 'StatusRequest', 'StatusResponse'),
  };
  return protocol;
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

function num(value: Int64 | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : value.toNumber();
}

function isZero(value: Int64 | null | undefined): boolean {
  if (value === null || value === undefined) return true;
  return typeof value === 'number' ? value === 0 : value.isZero();
}

function bytes(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

function text(data: Uint8Array): string {
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

function toKeyValue(kv: PbKeyValue): KeyValue {
  const out: KeyValue = {
    key: text(kv.key),
    value: text(kv.value),
    createRevision: num(kv.create_revision),
    modRevision: num(kv.mod_revision),
  };
  // Lease ids are 64-bit; as a number this is only a marker that a lease is attached.
  if (!isZero(kv.lease)) out.lease = num(kv.lease);
  return out;
}

// ---------------------------------------------------------------------------
// Errors.

function grpcError(err: unknown): grpc.ServiceError | undefined {
  return err && typeof err === 'object' && 'code' in err && typeof err.code === 'number'
    ? (err as grpc.ServiceError)
    : undefined;
}

/** True when the call failed before anything was sent to etcd, so retrying a write is safe. */
function neverSent(err: unknown): boolean {
  const e = grpcError(err);
  return e?.code === grpc.status.UNAVAILABLE && /No connection established|failed to connect/i.test(e.details ?? '');
}

/** True when another endpoint (or a later attempt) might succeed. */
function endpointFailure(err: unknown): boolean {
  const e = grpcError(err);
  if (!e) return false;
  if (e.code === grpc.status.UNAVAILABLE) return true;
  return /no leader|leader changed|not capable/i.test(e.details ?? '');
}

function toStorageError(err: unknown, key?: string): StorageError {
  if (err instanceof StorageError) return err;
  const e = grpcError(err);
  const details = e?.details ?? (err instanceof Error ? err.message : String(err));
  if (/required revision has been compacted/.test(details)) {
    return new StorageError('Compacted', `etcd: ${details}`, key);
  }
  if (/required revision is a future revision/.test(details)) {
    return new StorageError('FutureRevision', `etcd: ${details}`, key);
  }
  if (e) {
    switch (e.code) {
      case grpc.status.UNAVAILABLE:
      case grpc.status.DEADLINE_EXCEEDED:
        return new StorageError('Unavailable', `etcd unavailable: ${details}`, key);
      case grpc.status.RESOURCE_EXHAUSTED:
        if (/too many requests/.test(details)) return new StorageError('Unavailable', `etcd: ${details}`, key);
        break;
      default:
        if (/no leader|leader changed|request timed out/.test(details)) {
          return new StorageError('Unavailable', `etcd: ${details}`, key);
        }
    }
  }
  return new StorageError('Internal', `etcd: ${details}`, key);
}

// ---------------------------------------------------------------------------
// Leases.

interface CachedLease {
  id: Int64;
  expiresAt: number;
}

/** Shares leases between keys with the same TTL (kube-apiserver's leaseManager scheme). */
class LeaseManager {
  private readonly leases = new Map<number, CachedLease>();
  private readonly pending = new Map<number, Promise<CachedLease>>();

  constructor(
    private readonly grant: (ttlSeconds: number) => Promise<Int64>,
    private readonly now: () => number,
  ) {}

  async leaseFor(ttlSeconds: number): Promise<Int64> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const reuseSeconds = Math.min(Math.floor(ttl * 0.05), 60);
    const now = this.now();
    const cached = this.leases.get(ttl);
    // Reusable when the lease outlives the TTL but not by more than the reuse window.
    if (cached && now + ttl * 1000 < cached.expiresAt && now + (ttl + reuseSeconds) * 1000 >= cached.expiresAt) {
      return cached.id;
    }
    let inflight = this.pending.get(ttl);
    if (!inflight) {
      inflight = (async () => {
        const grantedAt = this.now();
        const id = await this.grant(ttl + reuseSeconds);
        const lease = { id, expiresAt: grantedAt + (ttl + reuseSeconds) * 1000 };
        this.leases.set(ttl, lease);
        return lease;
      })().finally(() => this.pending.delete(ttl));
      this.pending.set(ttl, inflight);
    }
    return (await inflight).id;
  }

  /** Forgets a lease etcd no longer knows (revoked, or the cluster was restored). */
  forget(id: Int64): void {
    for (const [ttl, lease] of this.leases) if (String(lease.id) === String(id)) this.leases.delete(ttl);
  }
}

// ---------------------------------------------------------------------------
// The backend.

type Client = grpc.Client;

export class EtcdBackend implements Backend {
  private readonly clients: Client[];
  /** Index of the endpoint requests go to first; moves on when it fails. */
  private active = 0;
  private closed = false;
  private readonly watches = new Set<EtcdWatch>();
  private readonly leases: LeaseManager;
  /** The last compaction point we learned of: a hint for compactedRevision(). */
  private compactedHint = 0;
  private readonly requestTimeoutMs: number;
  readonly watchRetryWindowMs: number;
  readonly proto: Protocol;
  /** Whether this etcd's progress notifications can be trusted (see Backend); set at connect from its version. */
  consistentProgress = false;

  private constructor(readonly endpoints: string[], options: EtcdConnectOptions) {
    if (endpoints.length === 0) throw new Error('etcd: at least one endpoint is required');
    this.proto = loadProtocol();
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.watchRetryWindowMs = options.watchRetryWindowMs ?? 30_000;
    const channelOptions: grpc.ChannelOptions = {
      // Come back quickly after an etcd restart instead of grpc's default backoff of up to 2 minutes.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      // Notice a silently dead connection (kube-apiserver's client uses 30 s / 10 s too).
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.max_receive_message_length': 2 ** 31 - 1,
      'grpc.max_send_message_length': 2 ** 31 - 1,
    };
    this.clients = endpoints.map((endpoint) => {
      const url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
      const credentials =
        url.protocol === 'https:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
      return new grpc.Client(url.host, credentials, channelOptions);
    });
    this.leases = new LeaseManager((ttl) => this.grantLease(ttl), options.now ?? Date.now);
  }

  /** Connects and checks that etcd answers within dialTimeoutMs; fails with Unavailable otherwise. */
  static async connect(options: EtcdConnectOptions): Promise<EtcdBackend> {
    const backend = new EtcdBackend(options.endpoints, options);
    const dialTimeoutMs = options.dialTimeoutMs ?? 5000;
    const deadline = Date.now() + dialTimeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline) {
      try {
        await backend.currentRevision(Math.min(deadline, Date.now() + backend.requestTimeoutMs));
        backend.consistentProgress = await backend.progressIsConsistent(Math.min(deadline, Date.now() + backend.requestTimeoutMs));
        return backend;
      } catch (err) {
        lastError = err;
        await sleep(100);
      }
    }
    await backend.close();
    throw new StorageError(
      'Unavailable',
      `etcd: no endpoint of ${options.endpoints.join(',')} answered within ${dialTimeoutMs} ms: ${
        lastError instanceof Error ? lastError.message : String(lastError)
      }`,
    );
  }

  /**
   * etcd before 3.4.31 (3.4 line) and 3.5.13 (3.5 line) may send a progress
   * notification to a watch that is still catching up, ahead of events it has
   * not delivered; kube-apiserver trusts progress only from the fixed releases.
   */
  private async progressIsConsistent(deadline: number): Promise<boolean> {
    const res = await this.unary<{ version?: string }>(this.clients[this.active]!, this.proto.status, {}, deadline);
    return progressFixedIn(res.version ?? '');
  }

  // -- unary calls -----------------------------------------------------------

  private check(): void {
    if (this.closed) throw new StorageError('Unavailable', 'storage backend is closed');
  }

  private unary<T>(client: Client, method: Method, request: object, deadline: number): Promise<T> {
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        method.path,
        method.serialize,
        method.deserialize,
        request,
        NO_METADATA,
        { deadline },
        (err, response) => (err ? reject(err) : resolve(response as T)),
      );
    });
  }

  /**
   * One request with failover, within one deadline: tries the active endpoint,
   * then the others, while the failure says the endpoint (not the request) is at
   * fault. Once every endpoint has failed it keeps retrying with a short backoff
   * for up to RETRY_WINDOW_MS (long enough to ride out a member restart or a
   * leader election, short enough that a dead cluster fails fast). Writes are
   * retried only when they were never sent.
   */
  private async call<T>(method: Method, request: object, kind: 'read' | 'write', deadline?: number): Promise<T> {
    this.check();
    const started = Date.now();
    const until = deadline ?? started + this.requestTimeoutMs;
    let failures = 0;
    let backoffMs = 50;
    for (;;) {
      const index = this.active;
      try {
        return await this.unary<T>(this.clients[index], method, request, until);
      } catch (err) {
        if (this.closed) throw new StorageError('Unavailable', 'storage backend is closed');
        if (!endpointFailure(err)) throw err;
        if (kind === 'write' && !neverSent(err)) throw err;
        if (this.active === index) this.active = (index + 1) % this.clients.length;
        failures++;
        if (failures < this.clients.length) continue;
        const now = Date.now();
        if (now - started + backoffMs > RETRY_WINDOW_MS || now + backoffMs >= until) throw err;
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 400);
      }
    }
  }

  private async grantLease(ttlSeconds: number): Promise<Int64> {
    try {
      const res = await this.call<PbLeaseGrantResponse>(this.proto.leaseGrant, { TTL: ttlSeconds }, 'write');
      if (res.error) throw new StorageError('Internal', `etcd lease grant: ${res.error}`);
      return res.ID;
    } catch (err) {
      throw toStorageError(err);
    }
  }

  // -- reads -------------------------------------------------------------------

  /** The revision of the last write, from the header of a count-only range (linearizable). */
  async currentRevision(deadline?: number): Promise<number> {
    try {
      const res = await this.call<PbRangeResponse>(
        this.proto.range,
        { key: bytes(COMPACT_REV_KEY), count_only: true },
        'read',
        deadline,
      );
      return num(res.header?.revision);
    } catch (err) {
      throw toStorageError(err);
    }
  }

  /**
   * The oldest readable revision (0 when nothing was ever compacted). etcd does
   * not report its compaction point directly, so we probe: a read at revision r
   * fails Compacted exactly when r is below it. The last point we learned of is
   * checked first (two reads); otherwise a binary search over [1, current].
   */
  async compactedRevision(): Promise<number> {
    this.check();
    const deadline = Date.now() + this.requestTimeoutMs;
    const readable = async (revision: number): Promise<boolean> => {
      try {
        await this.call<PbRangeResponse>(
          this.proto.range,
          { key: bytes(COMPACT_REV_KEY), count_only: true, revision },
          'read',
          deadline,
        );
        return true;
      } catch (err) {
        const mapped = toStorageError(err);
        if (mapped.code === 'Compacted') return false;
        throw mapped;
      }
    };
    const hint = this.compactedHint;
    if (hint > 1 && (await readable(hint)) && !(await readable(hint - 1))) return hint;
    if (await readable(1)) return 0;
    // Invariant: lo is not readable, hi is.
    let lo = 1;
    let hi = await this.currentRevision(deadline);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    this.compactedHint = hi;
    return hi;
  }

  /** Fills in the revision a Compacted or FutureRevision error must carry. */
  private async explain(err: unknown, key?: string): Promise<StorageError> {
    const mapped = toStorageError(err, key);
    try {
      if (mapped.code === 'Compacted') {
        const compacted = await this.compactedRevision();
        return new StorageError('Compacted', mapped.message, key, undefined, compacted);
      }
      if (mapped.code === 'FutureRevision') {
        const current = await this.currentRevision();
        return new StorageError('FutureRevision', mapped.message, key, undefined, current);
      }
    } catch {
      // Best effort: the original error is still the right answer.
    }
    return mapped;
  }

  async get(key: string, options: RangeOptions = {}): Promise<GetResult> {
    const revision = options.revision ?? 0;
    try {
      const res = await this.call<PbRangeResponse>(this.proto.range, { key: bytes(key), revision }, 'read');
      return { kv: res.kvs.length > 0 ? toKeyValue(res.kvs[0]) : null, revision: revision || num(res.header?.revision) };
    } catch (err) {
      throw await this.explain(err, key);
    }
  }

  async range(start: string, end: string, options: RangeOptions = {}): Promise<RangeResult> {
    const revision = options.revision ?? 0;
    try {
      const res = await this.call<PbRangeResponse>(
        this.proto.range,
        { key: bytes(start), range_end: bytes(end), revision, limit: options.limit ?? 0 },
        'read',
      );
      return {
        kvs: res.kvs.map(toKeyValue),
        revision: revision || num(res.header?.revision),
        more: res.more,
        count: num(res.count),
      };
    } catch (err) {
      throw await this.explain(err);
    }
  }

  // -- writes ------------------------------------------------------------------

  /** A txn; retried once with a fresh lease when etcd no longer knows the cached one. */
  private async txn(request: (lease: Int64 | 0) => object, ttlSeconds: number | undefined, key: string): Promise<PbTxnResponse> {
    for (let attempt = 0; ; attempt++) {
      const lease = ttlSeconds ? await this.leases.leaseFor(ttlSeconds) : 0;
      try {
        return await this.call<PbTxnResponse>(this.proto.txn, request(lease), 'write');
      } catch (err) {
        const details = grpcError(err)?.details ?? '';
        if (lease && attempt === 0 && /lease not found/.test(details)) {
          this.leases.forget(lease);
          continue;
        }
        throw toStorageError(err, key);
      }
    }
  }

  async create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    this.check();
    const k = bytes(key);
    const res = await this.txn(
      (lease) => ({
        compare: [{ key: k, target: TARGET_CREATE, result: EQUAL, create_revision: 0 }],
        success: [{ request_put: { key: k, value: bytes(value), lease } }],
        failure: [],
      }),
      options.ttlSeconds,
      key,
    );
    if (!res.succeeded) throw new StorageError('KeyExists', `key already exists: ${key}`, key);
    const revision = num(res.header?.revision);
    const out: KeyValue = { key, value, createRevision: revision, modRevision: revision };
    return out;
  }

  async update(key: string, value: string, expectedModRevision?: number, options: WriteOptions = {}): Promise<KeyValue> {
    this.check();
    const k = bytes(key);
    const compare =
      expectedModRevision === undefined
        ? { key: k, target: TARGET_CREATE, result: GREATER, create_revision: 0 }
        : { key: k, target: TARGET_MOD, result: EQUAL, mod_revision: expectedModRevision };
    const res = await this.txn(
      (lease) => ({
        compare: [compare],
        success: [{ request_put: { key: k, value: bytes(value), lease, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
      options.ttlSeconds,
      key,
    );
    if (!res.succeeded) throw this.failedGuard(res, key);
    const prev = res.responses[0]?.response_put?.prev_kv;
    const revision = num(res.header?.revision);
    return { key, value, createRevision: prev ? num(prev.create_revision) : revision, modRevision: revision };
  }

  async delete(key: string, expectedModRevision?: number): Promise<{ prevKv: KeyValue; revision: number }> {
    this.check();
    const k = bytes(key);
    if (expectedModRevision === undefined) {
      let res: PbDeleteRangeResponse;
      try {
        res = await this.call<PbDeleteRangeResponse>(this.proto.deleteRange, { key: k, prev_kv: true }, 'write');
      } catch (err) {
        throw toStorageError(err, key);
      }
      if (res.prev_kvs.length === 0) throw new StorageError('KeyNotFound', `key not found: ${key}`, key);
      return { prevKv: toKeyValue(res.prev_kvs[0]), revision: num(res.header?.revision) };
    }
    const res = await this.txn(
      () => ({
        compare: [{ key: k, target: TARGET_MOD, result: EQUAL, mod_revision: expectedModRevision }],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
      undefined,
      key,
    );
    if (!res.succeeded) throw this.failedGuard(res, key);
    const deleted = res.responses[0]?.response_delete_range;
    // mod_revision = 0 matches a missing key: the txn "succeeds" and deletes nothing.
    if (!deleted || deleted.prev_kvs.length === 0) throw new StorageError('KeyNotFound', `key not found: ${key}`, key);
    return { prevKv: toKeyValue(deleted.prev_kvs[0]), revision: num(res.header?.revision) };
  }

  /** KeyNotFound or Conflict (with the stored value) from a guarded txn's else-branch read. */
  private failedGuard(res: PbTxnResponse, key: string): StorageError {
    const current = res.responses[0]?.response_range?.kvs[0];
    if (!current) return new StorageError('KeyNotFound', `key not found: ${key}`, key);
    return new StorageError(
      'Conflict',
      `the object has been modified: ${key} is at revision ${num(current.mod_revision)}`,
      key,
      toKeyValue(current),
    );
  }

  // -- compaction --------------------------------------------------------------

  /** Compacts history below revision. Compacting to an already compacted revision is a no-op. */
  async compact(revision: number): Promise<void> {
    this.check();
    try {
      await this.call(this.proto.compact, { revision, physical: false }, 'write');
      this.compactedHint = Math.max(this.compactedHint, revision);
    } catch (err) {
      const mapped = toStorageError(err);
      if (mapped.code === 'Compacted') return;
      if (mapped.code === 'FutureRevision') throw await this.explain(err);
      throw mapped;
    }
  }

  /**
   * One round of kube-apiserver's compaction election. Every server calls this
   * once per interval with the compact_rev_key version it last saw and the
   * revision it read one interval ago. A txn on that version lets exactly one
   * server per interval win: the winner records the revision in the key and
   * compacts to it; the losers learn the key's new version. Returns the version
   * to pass next time and the current revision (the next round's target).
   */
  async compactCoordinated(lastVersion: number, revision: number): Promise<{ version: number; currentRevision: number }> {
    this.check();
    const k = bytes(COMPACT_REV_KEY);
    let res: PbTxnResponse;
    try {
      res = await this.call<PbTxnResponse>(
        this.proto.txn,
        {
          compare: [{ key: k, target: TARGET_VERSION, result: EQUAL, version: lastVersion }],
          success: [{ request_put: { key: k, value: bytes(String(revision)) } }],
          failure: [{ request_range: { key: k } }],
        },
        'write',
      );
    } catch (err) {
      throw toStorageError(err, COMPACT_REV_KEY);
    }
    const currentRevision = num(res.header?.revision);
    if (!res.succeeded) {
      const kv = res.responses[0]?.response_range?.kvs[0];
      return { version: num(kv?.version), currentRevision };
    }
    // The first round only records where we are: there is nothing a full interval old yet.
    if (revision > 0) await this.compact(revision);
    return { version: lastVersion + 1, currentRevision };
  }

  // -- watch -------------------------------------------------------------------

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): EtcdWatchHandle {
    const watch = new EtcdWatch(this, prefix, afterRevision, handlers);
    if (this.closed) {
      queueMicrotask(() => watch.fail(new StorageError('Unavailable', 'storage backend is closed')));
      return watch;
    }
    this.watches.add(watch);
    watch.start();
    return watch;
  }

  /** @internal The client a new watch stream should use. */
  watchClient(rotate: boolean): Client {
    if (rotate) this.active = (this.active + 1) % this.clients.length;
    return this.clients[this.active];
  }

  /** @internal */
  forgetWatch(watch: EtcdWatch): void {
    this.watches.delete(watch);
  }

  isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const watch of [...this.watches]) watch.cancel();
    for (const client of this.clients) client.close();
  }
}

/** One etcd watch stream, reconnecting from the last revision it delivered. */
class EtcdWatch implements EtcdWatchHandle {
  private stream: grpc.ClientDuplexStream<object, PbWatchResponse> | null = null;
  /**
   * Every event up to this revision has been delivered: the resume point after a
   * reconnect. Only delivered events move it, never a progress notification
   * (which older etcd may send ahead of events still to come).
   */
  private lastRevision: number;
  private cancelled = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** When the current run of failed connection attempts began. */
  private failingSince: number | null = null;
  private backoffMs = 100;

  constructor(
    private readonly backend: EtcdBackend,
    private readonly prefix: string,
    afterRevision: number,
    private readonly handlers: WatchHandlers,
  ) {
    this.lastRevision = afterRevision;
  }

  start(rotate = false): void {
    if (this.cancelled) return;
    const metadata = new grpc.Metadata();
    // Have etcd cancel the watch if this member loses its leader, rather than go quiet.
    metadata.set('hasleader', 'true');
    const method = this.backend.proto.watch;
    const stream = this.backend
      .watchClient(rotate)
      .makeBidiStreamRequest(method.path, method.serialize, method.deserialize, metadata, {}) as grpc.ClientDuplexStream<
      object,
      PbWatchResponse
    >;
    this.stream = stream;
    stream.on('data', (res: PbWatchResponse) => {
      if (this.stream === stream) this.onResponse(res);
    });
    stream.on('error', (err: Error) => {
      if (this.stream === stream) this.reconnect(err);
    });
    stream.on('end', () => {
      if (this.stream === stream) this.reconnect(new Error('watch stream ended'));
    });
    stream.write({
      create_request: {
        key: bytes(this.prefix),
        range_end: bytes(prefixEnd(this.prefix)),
        start_revision: this.lastRevision + 1,
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  private onResponse(res: PbWatchResponse): void {
    if (res.canceled) {
      const compactRevision = num(res.compact_revision);
      if (compactRevision > 0) {
        this.fail(
          new StorageError(
            'Compacted',
            `watch from revision ${this.lastRevision + 1}: required revision has been compacted`,
            undefined,
            undefined,
            compactRevision,
          ),
        );
      } else if (/no leader|leader changed/.test(res.cancel_reason)) {
        this.reconnect(new Error(res.cancel_reason));
      } else {
        this.fail(new StorageError('Internal', `etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    if (res.created) {
      this.failingSince = null;
      this.backoffMs = 100;
      return;
    }
    if (res.events.length === 0) {
      // A progress notification: nothing under the prefix up to this revision is
      // pending, if this etcd keeps that promise (see progressFixedIn).
      const revision = num(res.header?.revision);
      if (revision < this.lastRevision || !this.backend.consistentProgress) return;
      this.deliver(() => this.handlers.onProgress?.(revision));
      return;
    }
    const events: WatchEvent[] = [];
    for (const event of res.events) {
      if (!event.kv) continue;
      const revision = num(event.kv.mod_revision);
      if (revision <= this.lastRevision) continue; // replayed after a reconnect
      if (event.type === 1) {
        if (!event.prev_kv) {
          this.fail(new StorageError('Internal', `etcd delete event without prev_kv for ${text(event.kv.key)} at ${revision}`));
          return;
        }
        events.push({ type: 'delete', key: text(event.kv.key), revision, prevKv: toKeyValue(event.prev_kv) });
      } else {
        const put: WatchEvent = { type: 'put', kv: toKeyValue(event.kv) };
        if (event.prev_kv) put.prevKv = toKeyValue(event.prev_kv);
        events.push(put);
      }
      this.lastRevision = revision;
    }
    if (events.length > 0) this.deliver(() => this.handlers.onEvents(events));
  }

  /** Calls a handler; one that throws ends the watch with Internal, as in the other backends. */
  private deliver(call: () => void): void {
    if (this.cancelled) return;
    try {
      call();
    } catch (err) {
      this.fail(new StorageError('Internal', `watch handler failed: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  private reconnect(err: Error): void {
    if (this.cancelled) return;
    this.dropStream();
    if (this.backend.isClosed()) {
      this.fail(new StorageError('Unavailable', 'storage backend is closed'));
      return;
    }
    const now = Date.now();
    this.failingSince ??= now;
    if (now - this.failingSince > this.backend.watchRetryWindowMs) {
      this.fail(toStorageError(err));
      return;
    }
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 1000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.start(true);
    }, delay);
  }

  private dropStream(): void {
    const stream = this.stream;
    this.stream = null;
    if (stream) {
      stream.removeAllListeners('data');
      stream.on('error', () => {}); // the cancellation itself reports an error
      stream.cancel();
    }
  }

  /** Ends the watch with err: the last handler call. */
  fail(err: StorageError): void {
    if (this.cancelled) return;
    this.cancel();
    this.handlers.onError(err);
  }

  requestProgress(): void {
    this.stream?.write({ progress_request: {} });
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.dropStream();
    this.backend.forgetWatch(this);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
