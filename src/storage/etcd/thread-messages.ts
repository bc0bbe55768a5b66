// The messages between the etcd backend's worker thread (thread-worker.ts) and
// its proxy on the main thread (thread.ts). Both sides send arrays of them
// (Outbox): what one callback has to say goes in one postMessage.

import { StorageError, type KeyValue, type StorageErrorCode, type WatchEvent } from '../interface.js';
import type { EtcdConnectOptions } from './backend.js';

/** The Backend methods the proxy forwards as calls (watch has messages of its own). */
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
  | { t: 'events'; watch: number; events: WatchEvent[] }
  | { t: 'progress'; watch: number; revision: number }
  | { t: 'error'; watch: number; error: SerializedError };

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
 * one post per create). The first message of an event loop turn leaves when
 * the current callback's microtasks run, so an idle peer starts on it at once;
 * what follows in the same turn (the other requests read in one poll phase, the
 * other answers of one HTTP/2 read) gathers and leaves in one post at the end
 * of the turn (setImmediate), while the peer is busy with the first. Batching
 * everything to the turn's end was slower: 7 % fewer creates/s at concurrency
 * 32 on etcd, the peer idle while the batch gathered.
 */
export class Outbox<M> {
  private batch: M[] = [];
  /** A flush is scheduled (a microtask, or the turn's end). */
  private scheduled = false;
  /** A post went out this turn: more messages wait for the turn's end. */
  private inTurn = false;

  constructor(private readonly post: (batch: M[]) => void) {}

  push(message: M): void {
    this.batch.push(message);
    if (this.scheduled) return;
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
