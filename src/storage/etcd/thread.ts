// The etcd backend on a worker thread: the Backend contract of EtcdBackend
// (./backend.ts), with the etcd client itself running in thread-worker.ts.
//
// Why a thread: on etcd, about a third of a create's CPU in apiary was the
// etcd client when it ran on grpc-js (calls, Node's HTTP/2, protobuf, the
// watch stream that feeds the watch cache); its own HTTP/2 client (h2.ts)
// has since cut that to about a sixth. On one event loop that work queues behind HTTP and JSON;
// on its own thread it runs beside them, as kube-apiserver's etcd client runs
// on goroutines of its own. Calls and events cross in batches (thread-messages.ts).
//
// Contract: as EtcdBackend's, plus:
// - connect() resolves once the worker has connected (or rejects with its
//   Unavailable); close() closes the client in the worker and ends the thread.
// - If the worker dies, every pending call fails Unavailable and every watch
//   ends with onError(Unavailable); later calls fail the same way.
// - Watch handles have requestProgress(), forwarded to the worker's stream.

import { Worker } from 'node:worker_threads';
import {
  StorageError,
  type Backend,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type WatchHandlers,
  type WriteOptions,
} from '../interface.js';
import type { CoordinatedCompaction } from '../compactor.js';
import type { EtcdWatchHandle } from './backend.js';
import {
  CREATE,
  EVENTS,
  GET,
  GOT,
  NUMBER,
  Outbox,
  REVISION,
  UPDATE,
  WRITTEN,
  deserializeError,
  keyValue,
  readEvents,
  type Batch,
  type CallMethod,
  type FromWorker,
  type WorkerOptions,
} from './thread-messages.js';

/**
 * The worker runs thread-worker.js next to this file. From source (tests run
 * through tsx) it is the .ts file, and the worker registers tsx's loader
 * first: a worker does not inherit the loader hooks of its parent.
 */
function startWorker(options: WorkerOptions): Worker {
  const settings = { workerData: options, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./thread-worker.js', import.meta.url), settings);
  const entry = new URL('./thread-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...settings, eval: true });
}

/**
 * The client thread's young generation (new space at most two thirds of it).
 * V8's default lets the new space grow to 32 MiB in a burst (a restart's
 * initial lists, a load of writes) and keeps it, resident, while the thread
 * idles; what this thread allocates dies young (one call's messages), so a
 * small new space costs it little.
 */
const YOUNG_GENERATION_MB = 12;

interface Pending {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** A write's key and value, which its answer (WRITTEN) comes back without (thread-worker.ts). */
  key?: string;
  value?: string;
}

export class ThreadedEtcdBackend implements Backend, CoordinatedCompaction {
  consistentProgress = false;
  private readonly outbox: Outbox;
  private readonly pending = new Map<number, Pending>();
  private readonly watches = new Map<number, WatchHandlers>();
  private nextId = 1;
  /** Set once the worker is gone or closing: the error every later call gets. */
  private down: StorageError | undefined;

  private constructor(private readonly worker: Worker) {
    this.outbox = new Outbox((batch) => worker.postMessage(batch));
  }

  static async connect(options: WorkerOptions): Promise<ThreadedEtcdBackend> {
    const worker = startWorker(options);
    const backend = new ThreadedEtcdBackend(worker);
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number): void => reject(new StorageError('Unavailable', `etcd client thread exited (${code}) before connecting`));
      // A worker that fails to load emits 'error' (then 'exit'): unheard, it would crash the process.
      const onError = (err: Error): void => reject(new StorageError('Unavailable', `etcd client thread failed to start: ${err.message}`));
      worker.once('exit', onExit);
      worker.once('error', onError);
      worker.once('message', (batch: Batch) => {
        worker.off('exit', onExit);
        worker.off('error', onError);
        // The first batch is one MESSAGE record.
        const first = batch[1] as FromWorker | undefined;
        if (first?.t === 'ready') {
          backend.consistentProgress = first.consistentProgress;
          resolve();
        } else {
          void worker.terminate();
          reject(first?.t === 'failed' ? deserializeError(first.error) : new StorageError('Internal', 'etcd client thread: unexpected first message'));
        }
      });
    });
    worker.on('message', (batch: Batch) => backend.receive(batch));
    worker.on('error', (err) => backend.fail(`etcd client thread failed: ${err.message}`));
    worker.on('exit', (code) => backend.fail(`etcd client thread exited (${code})`));
    return backend;
  }

  private receive(batch: Batch): void {
    for (let i = 0; i < batch.length; ) {
      switch (batch[i]) {
        case WRITTEN: {
          const p = this.settle(batch[i + 1] as number);
          p?.resolve(keyValue(p.key!, p.value!, batch[i + 2] as number, batch[i + 3] as number, batch[i + 4] as number));
          i += 5;
          break;
        }
        case NUMBER:
          this.settle(batch[i + 1] as number)?.resolve(batch[i + 2]);
          i += 3;
          break;
        case GOT: {
          const p = this.settle(batch[i + 1] as number);
          const key = batch[i + 3] as string | null;
          const kv = key === null ? null : keyValue(key, batch[i + 4] as string, batch[i + 5] as number, batch[i + 6] as number, batch[i + 7] as number);
          p?.resolve({ kv, revision: batch[i + 2] as number } satisfies GetResult);
          i += 8;
          break;
        }
        case EVENTS: {
          const handlers = this.watches.get(batch[i + 1] as number);
          const { events, next } = readEvents(batch, i + 2);
          handlers?.onEvents(events);
          i = next;
          break;
        }
        default:
          this.onMessage(batch[i + 1] as FromWorker);
          i += 2;
      }
    }
  }

  private onMessage(m: FromWorker): void {
    switch (m.t) {
      case 'done':
        this.settle(m.id)?.resolve(m.value);
        break;
      case 'fail':
        this.settle(m.id)?.reject(deserializeError(m.error));
        break;
      case 'progress':
        this.watches.get(m.watch)?.onProgress?.(m.revision);
        break;
      case 'error': {
        const handlers = this.watches.get(m.watch);
        this.watches.delete(m.watch);
        handlers?.onError(deserializeError(m.error));
        break;
      }
      default:
        break; // 'ready' and 'failed' come only first
    }
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    return p;
  }

  /** The worker is gone: fail what waits, end the watches. */
  private fail(reason: string): void {
    const err = new StorageError('Unavailable', reason);
    this.down ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    const watches = [...this.watches.values()];
    this.watches.clear();
    for (const handlers of watches) handlers.onError(err);
  }

  /** Registers a call; false (and the promise rejected) when the worker is gone. */
  private pend<T>(id: number, key?: string, value?: string): Promise<T> | undefined {
    if (this.down !== undefined) return undefined;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, key, value });
    });
  }

  private call<T>(method: CallMethod, args: unknown[]): Promise<T> {
    const id = this.nextId++;
    const promise = this.pend<T>(id);
    if (promise === undefined) return Promise.reject(this.down);
    this.outbox.push({ t: 'call', id, method, args });
    return promise;
  }

  currentRevision(): Promise<number> {
    const id = this.nextId++;
    const promise = this.pend<number>(id);
    if (promise === undefined) return Promise.reject(this.down);
    this.outbox.open().push(REVISION, id);
    return promise;
  }

  compactedRevision(): Promise<number> {
    return this.call('compactedRevision', []);
  }

  get(key: string, options?: RangeOptions): Promise<GetResult> {
    const id = this.nextId++;
    const promise = this.pend<GetResult>(id);
    if (promise === undefined) return Promise.reject(this.down);
    this.outbox.open().push(GET, id, key, options?.revision ?? 0);
    return promise;
  }

  range(start: string, end: string, options?: RangeOptions): Promise<RangeResult> {
    return this.call('range', [start, end, options]);
  }

  create(key: string, value: string, options?: WriteOptions): Promise<KeyValue> {
    const id = this.nextId++;
    const promise = this.pend<KeyValue>(id, key, value);
    if (promise === undefined) return Promise.reject(this.down);
    this.outbox.open().push(CREATE, id, key, value, options?.ttlSeconds ?? 0);
    return promise;
  }

  update(key: string, value: string, expectedModRevision?: number, options?: WriteOptions): Promise<KeyValue> {
    const id = this.nextId++;
    const promise = this.pend<KeyValue>(id, key, value);
    if (promise === undefined) return Promise.reject(this.down);
    this.outbox.open().push(UPDATE, id, key, value, expectedModRevision ?? -1, options?.ttlSeconds ?? 0);
    return promise;
  }

  delete(key: string, expectedModRevision?: number): Promise<{ prevKv: KeyValue; revision: number }> {
    return this.call('delete', [key, expectedModRevision]);
  }

  compact(revision: number): Promise<void> {
    return this.call('compact', [revision]);
  }

  compactCoordinated(lastVersion: number, revision: number): Promise<{ version: number; currentRevision: number }> {
    return this.call('compactCoordinated', [lastVersion, revision]);
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): EtcdWatchHandle {
    const id = this.nextId++;
    const handle: EtcdWatchHandle = {
      cancel: () => {
        if (!this.watches.delete(id)) return;
        this.outbox.push({ t: 'cancel', watch: id });
      },
      requestProgress: () => {
        if (this.watches.has(id)) this.outbox.push({ t: 'progress', watch: id });
      },
    };
    if (this.down !== undefined) {
      const err = this.down;
      queueMicrotask(() => handlers.onError(err));
      return handle;
    }
    this.watches.set(id, handlers);
    this.outbox.push({ t: 'watch', watch: id, prefix, afterRevision });
    return handle;
  }

  async close(): Promise<void> {
    if (this.down !== undefined) return;
    const id = this.nextId++;
    const closed = new Promise<void>((resolve) => this.pending.set(id, { resolve: () => resolve(), reject: () => resolve() }));
    this.outbox.push({ t: 'close', id });
    this.outbox.flush();
    this.down = new StorageError('Unavailable', 'storage backend is closed');
    // As EtcdBackend.close: watches end without a call to their handlers.
    this.watches.clear();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    this.fail('storage backend is closed');
    await this.worker.terminate();
  }
}
