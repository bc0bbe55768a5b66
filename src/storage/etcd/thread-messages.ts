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
 * Collects messages and posts them as one array when the current callback's
 * microtasks run: what one callback sends (a batch of calls received, a watch
 * response's events) crosses in one post. Waiting for the end of the event
 * loop's turn (setImmediate) would gather more per post, but the added latency
 * cost more than it saved: 7% fewer creates/s at concurrency 32 on etcd.
 */
export class Outbox<M> {
  private batch: M[] = [];

  constructor(private readonly post: (batch: M[]) => void) {}

  push(message: M): void {
    if (this.batch.length === 0) queueMicrotask(() => this.flush());
    this.batch.push(message);
  }

  flush(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.post(batch);
  }
}
