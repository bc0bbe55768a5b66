// The worker thread of the threaded etcd backend (thread.ts): it runs the
// EtcdBackend itself (its HTTP/2 connections, protobuf, watch streams and
// their reconnection) and answers the main thread's calls; see thread-messages.ts
// for what crosses between them.

import { parentPort, workerData } from 'node:worker_threads';
import { EtcdBackend, type EtcdWatchHandle } from './backend.js';
import type { KeyValue } from '../interface.js';
import { collectWhenSettled } from '../startup-gc.js';
import { Outbox, serializeError, type CallMethod, type FromWorker, type ToWorker, type WorkerOptions } from './thread-messages.js';

/**
 * A write's answer without the value the main thread sent (it puts it back:
 * thread.ts), so that a create or update copies its value across once.
 */
function withoutValue(kv: KeyValue): Omit<KeyValue, 'value'> {
  const { value: _value, ...rest } = kv;
  return rest;
}

const port = parentPort;
if (port === null) throw new Error('thread-worker.ts runs as a worker thread');

const outbox = new Outbox<FromWorker>((batch) => port.postMessage(batch));
const watches = new Map<number, EtcdWatchHandle>();

async function main(): Promise<void> {
  let backend: EtcdBackend;
  try {
    backend = await EtcdBackend.connect(workerData as WorkerOptions);
  } catch (err) {
    port!.postMessage([{ t: 'failed', error: serializeError(err) }] satisfies FromWorker[]);
    return;
  }
  port!.postMessage([{ t: 'ready', consistentProgress: backend.consistentProgress }] satisfies FromWorker[]);
  // The initial lists pass through this thread's heap too (../startup-gc.ts).
  const cancelCollections = collectWhenSettled();

  const call = (method: CallMethod, args: unknown[]): Promise<unknown> => {
    const fn = backend[method] as (...a: unknown[]) => Promise<unknown>;
    return fn.apply(backend, args);
  };

  port!.on('message', (batch: ToWorker[]) => {
    for (const m of batch) {
      switch (m.t) {
        case 'call':
          call(m.method, m.args).then(
            (value) => outbox.push({ t: 'done', id: m.id, value: m.method === 'create' || m.method === 'update' ? withoutValue(value as KeyValue) : value }),
            (err: unknown) => outbox.push({ t: 'fail', id: m.id, error: serializeError(err) }),
          );
          break;
        case 'watch': {
          const id = m.watch;
          const handle = backend.watch(m.prefix, m.afterRevision, {
            onEvents: (events) => outbox.push({ t: 'events', watch: id, events }),
            onProgress: (revision) => outbox.push({ t: 'progress', watch: id, revision }),
            onError: (err) => {
              watches.delete(id);
              outbox.push({ t: 'error', watch: id, error: serializeError(err) });
            },
          });
          watches.set(id, handle);
          break;
        }
        case 'cancel':
          watches.get(m.watch)?.cancel();
          watches.delete(m.watch);
          break;
        case 'progress':
          watches.get(m.watch)?.requestProgress();
          break;
        case 'close':
          cancelCollections();
          for (const handle of watches.values()) handle.cancel();
          watches.clear();
          void backend.close().finally(() => {
            outbox.push({ t: 'done', id: m.id, value: undefined });
            outbox.flush();
            port!.close();
          });
          break;
      }
    }
  });
}

void main();
