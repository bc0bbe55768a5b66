// runController: a controller is a reconcile function plus a few lines of
// wiring. It waits for the informers' caches, then runs `workers` loops that
// take keys from the queue and reconcile them:
// - reconcile resolves (void or {}): forget the key (reset its backoff);
// - resolves { requeueAfter: ms }: forget, then add the key again after ms;
// - throws or rejects: addRateLimited (per-key exponential backoff capped by
//   the overall bucket), so a failing key is retried ever more slowly;
// and always done(key), so the same key is never reconciled by two workers
// at once and a key changed meanwhile is reconciled again.
// When signal aborts the queue shuts down; runController resolves once every
// worker has finished its current key.
//
// enqueueHandler(queue) is the usual event handler: every add, update and
// delete (tombstones included) enqueues the object's namespace/name key.

import type { KubeObject } from '../machinery/meta.js';
import { type ClientLogger, defaultLogger, errorField } from './logger.js';
import type { ResourceEventHandler } from './processor-listener.js';
import { waitForCacheSync } from './shared-informer.js';
import { type KeyFunc, metaNamespaceKeyFunc } from './store.js';
import type { WorkQueue } from './workqueue.js';

export interface ReconcileResult {
  /** Reconcile this key again after this many ms (also on success). */
  requeueAfter?: number;
}

export interface ControllerOptions<K> {
  name?: string;
  /** Informers (or handler registrations) whose caches must sync before work starts. */
  informers?: Array<{ hasSynced(): boolean }>;
  queue: WorkQueue<K>;
  workers?: number;
  reconcile(key: K): Promise<ReconcileResult | void> | ReconcileResult | void;
  signal: AbortSignal;
  logger?: ClientLogger;
}

export async function runController<K>(options: ControllerOptions<K>): Promise<void> {
  const { queue, signal } = options;
  const log = options.logger ?? defaultLogger();
  const name = options.name ?? 'controller';
  const stop = (): void => queue.shutDown();
  signal.addEventListener('abort', stop, { once: true });
  try {
    if (signal.aborted) return;
    if (!(await waitForCacheSync(signal, options.informers ?? []))) return;
    const workers = Math.max(1, options.workers ?? 1);
    await Promise.all(Array.from({ length: workers }, () => worker(options, name, log)));
  } finally {
    signal.removeEventListener('abort', stop);
    queue.shutDown();
  }
}

async function worker<K>(options: ControllerOptions<K>, name: string, log: ClientLogger): Promise<void> {
  const { queue } = options;
  for (;;) {
    const next = await queue.get();
    if (next.shutdown) return;
    const key = next.item;
    try {
      const result = await options.reconcile(key);
      queue.forget(key);
      if (result && typeof result.requeueAfter === 'number' && result.requeueAfter > 0) queue.addAfter(key, result.requeueAfter);
    } catch (err) {
      log.warn({ controller: name, key: String(key), requeues: queue.numRequeues(key), ...errorField(err) }, 'reconcile failed; requeueing');
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
  }
}

/** An event handler that enqueues the key of every added, updated or deleted object. */
export function enqueueHandler<T extends KubeObject>(queue: WorkQueue<string>, keyFunc: KeyFunc<T> = metaNamespaceKeyFunc as KeyFunc<T>): ResourceEventHandler<T> {
  return {
    onAdd: (obj) => queue.add(keyFunc(obj)),
    onUpdate: (_old, obj) => queue.add(keyFunc(obj)),
    onDelete: (obj) => queue.add(keyFunc(obj)),
  };
}
