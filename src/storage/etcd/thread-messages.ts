// The messages between the etcd backend's worker thread (thread-worker.ts) and
// its proxy on the main thread (thread.ts). What one callback has to say goes
// in one postMessage (Outbox), as one flat array of tagged records: a tag, then
// that record's fields in a fixed order.
//
// Why flat: structured clone writes an object's property names with every
// object and reads them back through the string table. node:v8's serialize and
// deserialize of a batch of four creates' answers and watch events: 14 + 14 µs
// as objects, 8 + 5 µs flat; bench/etcd-backend-ab.ts: 70.7 → 66.2 µs of CPU
// per create (main thread 20.7 → 17.0), 71.6 → 69.2 in the other order. The
// hot records (writes, gets, revision reads, their answers, watch events) are
// flat; the rest go as an object after MESSAGE.

import { StorageError, type KeyValue, type StorageErrorCode, type WatchEvent } from '../interface.js';
import type { EtcdConnectOptions } from './backend.js';

/** The Backend methods the proxy forwards as calls in a MESSAGE record (watch has messages of its own). */
export type CallMethod =
  | 'currentRevision'
  | 'compactedRevision'
  | 'get'
  | 'range'
  | 'create'
  | 'update'
  | 'delete'
  | 'compact'
  | 'compactCoordinated';

export type ToWorker =
  | { t: 'call'; id: number; method: CallMethod; args: unknown[] }
  | { t: 'watch'; watch: number; prefix: string; afterRevision: number }
  | { t: 'cancel'; watch: number }
  | { t: 'progress'; watch: number }
  | { t: 'close'; id: number };

export type FromWorker =
  | { t: 'ready'; consistentProgress: boolean }
  | { t: 'failed'; error: SerializedError }
  | { t: 'done'; id: number; value: unknown }
  | { t: 'fail'; id: number; error: SerializedError }
  | { t: 'progress'; watch: number; revision: number }
  | { t: 'error'; watch: number; error: SerializedError };

/** A batch on the wire: records of a tag and its fields (the tags below). */
export type Batch = unknown[];

// Records both ways.
/** MESSAGE, message: a ToWorker or FromWorker object. */
export const MESSAGE = 0;

// Records to the worker.
/** CREATE, id, key, value, ttlSeconds (0: none). */
export const CREATE = 1;
/** UPDATE, id, key, value, expectedModRevision (-1: none), ttlSeconds (0: none). */
export const UPDATE = 2;
/** GET, id, key, revision (0: current). */
export const GET = 3;
/** REVISION, id: currentRevision(). */
export const REVISION = 4;

// Records from the worker.
/** WRITTEN, id, createRevision, modRevision, lease (0: none): a create or update done; key and value are the call's. */
export const WRITTEN = 1;
/** NUMBER, id, value: a call answered with a number (currentRevision). */
export const NUMBER = 2;
/** GOT, id, revision, key (null: no such key), value, createRevision, modRevision, lease: a get's answer. */
export const GOT = 3;
/**
 * EVENTS, watch, count, then count events, each a kind and its fields:
 * PUT: key, value, createRevision, modRevision, lease;
 * PUT_WITH_PREV: those, then the previous value, createRevision, modRevision, lease (the key is the same);
 * DELETE: key, revision, then the previous value, createRevision, modRevision, lease.
 */
export const EVENTS = 4;
export const PUT = 0;
export const PUT_WITH_PREV = 1;
export const DELETE = 2;

/** Appends an EVENTS record of `events` to `batch`. */
export function writeEvents(batch: Batch, watch: number, events: WatchEvent[]): void {
  batch.push(EVENTS, watch, events.length);
  for (const e of events) {
    if (e.type === 'delete') {
      const p = e.prevKv;
      batch.push(DELETE, e.key, e.revision, p.value, p.createRevision, p.modRevision, p.lease ?? 0);
      continue;
    }
    const kv = e.kv;
    const p = e.prevKv;
    if (p === undefined) batch.push(PUT, kv.key, kv.value, kv.createRevision, kv.modRevision, kv.lease ?? 0);
    else batch.push(PUT_WITH_PREV, kv.key, kv.value, kv.createRevision, kv.modRevision, kv.lease ?? 0, p.value, p.createRevision, p.modRevision, p.lease ?? 0);
  }
}

/** A KeyValue from its fields as the records carry them (lease 0: none, as the backend leaves it out). */
export function keyValue(key: string, value: string, createRevision: number, modRevision: number, lease: number): KeyValue {
  const kv: KeyValue = { key, value, createRevision, modRevision };
  if (lease !== 0) kv.lease = lease;
  return kv;
}

/** Reads the events of an EVENTS record whose count is at batch[at]; returns them and the index after the record. */
export function readEvents(batch: Batch, at: number): { events: WatchEvent[]; next: number } {
  const count = batch[at] as number;
  let i = at + 1;
  const events: WatchEvent[] = [];
  for (let n = 0; n < count; n++) {
    const kind = batch[i] as number;
    const key = batch[i + 1] as string;
    if (kind === DELETE) {
      const prevKv = keyValue(key, batch[i + 3] as string, batch[i + 4] as number, batch[i + 5] as number, batch[i + 6] as number);
      events.push({ type: 'delete', key, revision: batch[i + 2] as number, prevKv });
      i += 7;
      continue;
    }
    const kv = keyValue(key, batch[i + 2] as string, batch[i + 3] as number, batch[i + 4] as number, batch[i + 5] as number);
    if (kind === PUT) {
      events.push({ type: 'put', kv });
      i += 6;
    } else {
      const prevKv = keyValue(key, batch[i + 6] as string, batch[i + 7] as number, batch[i + 8] as number, batch[i + 9] as number);
      events.push({ type: 'put', kv, prevKv });
      i += 10;
    }
  }
  return { events, next: i };
}

/** What the worker is started with. */
export type WorkerOptions = Omit<EtcdConnectOptions, 'now'>;

/** A StorageError as plain data (structured clone keeps no classes). */
export interface SerializedError {
  code: StorageErrorCode;
  message: string;
  key?: string;
  current?: KeyValue | null;
  revision?: number;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof StorageError) {
    const out: SerializedError = { code: err.code, message: err.message };
    if (err.key !== undefined) out.key = err.key;
    if (err.current !== undefined) out.current = err.current;
    if (err.revision !== undefined) out.revision = err.revision;
    return out;
  }
  return { code: 'Internal', message: err instanceof Error ? err.message : String(err) };
}

export function deserializeError(e: SerializedError): StorageError {
  return new StorageError(e.code, e.message, e.key, e.current, e.revision);
}

/**
 * Collects messages and posts them as arrays, fewer posts under load: a
 * postMessage costs its sender about 10 µs, and one that wakes an idle thread
 * twice that (bench/profile-ops.ts on etcd: 15 % of the main thread's time at
 * one post per create by V8's wall-clock profile, which charges a wait for a
 * core to the call that woke the peer; perf's CPU samples put serializing and
 * posting nearer 5 %, bench/README.md). The first message of an event loop turn leaves when
 * the current callback's microtasks run, so an idle peer starts on it at once;
 * what follows in the same turn (the other requests read in one poll phase, the
 * other answers of one HTTP/2 read) gathers and leaves in one post at the end
 * of the turn (setImmediate), while the peer is busy with the first. Batching
 * everything to the turn's end was slower: 7 % fewer creates/s at concurrency
 * 32 on etcd, the peer idle while the batch gathered.
 */
export class Outbox {
  private batch: Batch = [];
  /** A flush is scheduled (a microtask, or the turn's end). */
  private scheduled = false;
  /** A post went out this turn: more messages wait for the turn's end. */
  private inTurn = false;

  constructor(private readonly post: (batch: Batch) => void) {}

  /** The batch to append one record to (its tag, then its fields); it leaves as push() says. */
  open(): Batch {
    if (!this.scheduled) this.schedule();
    return this.batch;
  }

  /** Sends a message object (a MESSAGE record). */
  push(message: ToWorker | FromWorker): void {
    this.open().push(MESSAGE, message);
  }

  private schedule(): void {
    this.scheduled = true;
    if (this.inTurn) return; // endTurn flushes
    queueMicrotask(() => {
      this.scheduled = false;
      this.flush();
      this.inTurn = true;
      setImmediate(() => this.endTurn());
    });
  }

  flush(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.post(batch);
  }

  private endTurn(): void {
    this.inTurn = false;
    this.scheduled = false;
    this.flush();
  }
}
