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
//   endpoint, from the last revision delivered (never from a progress
//   notification: see progressFixedIn); if that revision has been compacted meanwhile the watch
//   ends with Compacted. After watchRetryWindowMs of failing to reconnect it
//   ends with Unavailable.
//
// Why our own gRPC calls rather than the etcd3 package's client: etcd3's
// watcher multiplexes all watches on one stream, resumes from the response
// header revision rather than the last event delivered, drops the compact
// revision of a cancelled watch, and has no way to send progress requests or
// per-stream metadata; its unary path adds retry and circuit-breaker policies
// whose timing we could not bound. We still use the .proto files etcd3 ships
// (etcd's own API definitions), compiled at start-up with protobufjs, and
// encode and decode the hot messages by hand (wire.ts). Unary calls and watch
// streams go over a small HTTP/2 client of our own (unary.ts, h2.ts, with the
// figures); @grpc/grpc-js, which they used before, is left to the benchmarks.

import type { ChannelOptions } from '@grpc/grpc-js';
import {
  StorageError,
  type Backend,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type WatchHandle,
  type WatchHandlers,
  type WriteOptions,
} from '../interface.js';
import {
  EQUAL,
  GREATER,
  TARGET_CREATE,
  TARGET_MOD,
  TARGET_VERSION,
  bytes,
  loadProtocol,
  num,
  progressFixedIn,
  toKeyValue,
  type Int64,
  type Method,
  type PbDeleteRangeResponse,
  type PbLeaseGrantResponse,
  type PbRangeResponse,
  type PbTxnResponse,
  type Protocol,
} from './protocol.js';
import { endpointFailure, grpcError, neverSent, toStorageError } from './errors.js';
import { LeaseManager } from './leases.js';
import { EtcdWatch, sleep } from './watch.js';
import { UnaryChannel } from './unary.js';

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

/** How long a request keeps retrying unreachable endpoints (within its deadline). */
const RETRY_WINDOW_MS = 3000;

/** How apiary's etcd connections were set up on @grpc/grpc-js (bench/etcd.ts and bench/etcd-client.ts compare against it). */
export const ETCD_CHANNEL_OPTIONS: ChannelOptions = {
  // Come back quickly after an etcd restart instead of grpc's default backoff of up to 2 minutes.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  // Notice a silently dead connection (kube-apiserver's client uses 30 s / 10 s too).
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.max_receive_message_length': 2 ** 31 - 1,
  'grpc.max_send_message_length': 2 ** 31 - 1,
  // Nothing reads channelz, and it keeps counters and traces for every call.
  'grpc.enable_channelz': 0,
};

// ---------------------------------------------------------------------------
// The backend.

export class EtcdBackend implements Backend {
  /** Unary calls' connections, one per endpoint (unary.ts says why not grpc-js). */
  private readonly clients: UnaryChannel[];
  /** Watch streams' own connections (see the constructor). */
  private readonly watchClients: UnaryChannel[];
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
    this.clients = endpoints.map((endpoint) => new UnaryChannel(endpoint));
    // Watch streams get a connection of their own: etcd writes each
    // connection's frames from one goroutine, so events and write replies
    // on one connection would queue behind each other.
    this.watchClients = endpoints.map((endpoint) => new UnaryChannel(endpoint));
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

  private unary<T>(client: UnaryChannel, method: Method, request: object, deadline: number): Promise<T> {
    return client.call(method, request, deadline) as Promise<T>;
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

  /**
   * A guarded write whose fate is unknown (the member answering it went away
   * after it may have been sent) is sent again, to any member, until the
   * request deadline: the guard keeps it from applying twice, and `ours`
   * tells the write's own effect (the key holding exactly this value, at a
   * later revision) from someone else's, which would have failed the guard.
   */
  private async retryAmbiguous<T>(write: () => Promise<T>, ours: (err: StorageError) => Promise<T | undefined>): Promise<T> {
    const until = Date.now() + this.requestTimeoutMs;
    let ambiguous = false;
    let backoffMs = 100;
    for (;;) {
      try {
        return await write();
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        if (ambiguous && (err.code === 'KeyExists' || err.code === 'Conflict')) {
          const mine = await ours(err);
          if (mine !== undefined) return mine;
        }
        if (err.code !== 'Unavailable' || this.closed || Date.now() + backoffMs >= until) throw err;
        ambiguous = true;
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 1000);
      }
    }
  }

  async create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    return this.retryAmbiguous(
      () => this.createOnce(key, value, options),
      async () => {
        const { kv } = await this.get(key);
        // The value holds the object's uid and creation time: the same bytes are this create's.
        return kv !== null && kv.value === value ? kv : undefined;
      },
    );
  }

  private async createOnce(key: string, value: string, options: WriteOptions): Promise<KeyValue> {
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
    // An unguarded update sent twice would write twice: only guarded ones are retried.
    if (expectedModRevision === undefined) return this.updateOnce(key, value, expectedModRevision, options);
    return this.retryAmbiguous(
      () => this.updateOnce(key, value, expectedModRevision, options),
      async (err) => {
        const current = err.current;
        return current && current.value === value && current.modRevision > expectedModRevision ? current : undefined;
      },
    );
  }

  private async updateOnce(key: string, value: string, expectedModRevision: number | undefined, options: WriteOptions): Promise<KeyValue> {
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

  /** @internal The connection a new watch stream should use. */
  watchChannel(rotate: boolean): UnaryChannel {
    if (rotate) this.active = (this.active + 1) % this.clients.length;
    return this.watchClients[this.active];
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
    for (const client of [...this.clients, ...this.watchClients]) client.close();
  }
}

/** One etcd watch stream, reconnecting from the last revision it delivered. */
