// The worker thread of the threaded etcd backend (thread.ts): it runs the
// EtcdBackend itself (its HTTP/2 connections, protobuf, watch streams and
// their reconnection) and answers the main thread's calls; see thread-messages.ts
// for what crosses between them.

import { parentPort, workerData } from 'node:worker_threads';
import { EtcdBackend, type EtcdWatchHandle } from './backend.js';
import type { GetResult, KeyValue } from '../interface.js';
import { collectWhenSettled } from '../startup-gc.js';
import {
  CREATE,
  GET,
  GOT,
  MESSAGE,
  NUMBER,
  Outbox,
  REVISION,
  UPDATE,
  WRITTEN,
  serializeError,
  writeEvents,
  type Batch,
  type CallMethod,
  type FromWorker,
  type ToWorker,
  type WorkerOptions,
} from './thread-messages.js';

const port = parentPort;
if (port === null) throw new Error('thread-worker.ts runs as a worker thread');

const outbox = new Outbox((batch) => port.postMessage(batch));
const watches = new Map<number, EtcdWatchHandle>();

async function main(): Promise<void> {
  let backend: EtcdBackend;
  try {
    backend = await EtcdBackend.connect(workerData as WorkerOptions);
  } catch (err) {
    port!.postMessage([MESSAGE, { t: 'failed', error: serializeError(err) } satisfies FromWorker]);
    return;
  }
  port!.postMessage([MESSAGE, { t: 'ready', consistentProgress: backend.consistentProgress } satisfies FromWorker]);
  // The initial lists pass through this thread's heap too (../startup-gc.ts).
  const cancelCollections = collectWhenSettled();

  const call = (method: CallMethod, args: unknown[]): Promise<unknown> => {
    const fn = backend[method] as (...a: unknown[]) => Promise<unknown>;
    return fn.apply(backend, args);
  };

  const fail = (id: number) => (err: unknown): void => outbox.push({ t: 'fail', id, error: serializeError(err) });
  // A write's answer leaves without the value the main thread sent (it puts it back: thread.ts).
  const written = (id: number) => (kv: KeyValue): void => {
    outbox.open().push(WRITTEN, id, kv.createRevision, kv.modRevision, kv.lease ?? 0);
  };

  const onMessage = (m: ToWorker): void => {
    switch (m.t) {
      case 'call':
        call(m.method, m.args).then(
          (value) => outbox.push({ t: 'done', id: m.id, value }),
          fail(m.id),
        );
        break;
      case 'watch': {
        const id = m.watch;
        const handle = backend.watch(m.prefix, m.afterRevision, {
          onEvents: (events) => writeEvents(outbox.open(), id, events),
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
  };

  port!.on('message', (batch: Batch) => {
    for (let i = 0; i < batch.length; ) {
      switch (batch[i]) {
        case CREATE: {
          const id = batch[i + 1] as number;
          const ttlSeconds = batch[i + 4] as number;
          backend.create(batch[i + 2] as string, batch[i + 3] as string, ttlSeconds === 0 ? undefined : { ttlSeconds }).then(written(id), fail(id));
          i += 5;
          break;
        }
        case UPDATE: {
          const id = batch[i + 1] as number;
          const expected = batch[i + 4] as number;
          const ttlSeconds = batch[i + 5] as number;
          backend
            .update(batch[i + 2] as string, batch[i + 3] as string, expected === -1 ? undefined : expected, ttlSeconds === 0 ? undefined : { ttlSeconds })
            .then(written(id), fail(id));
          i += 6;
          break;
        }
        case GET: {
          const id = batch[i + 1] as number;
          const revision = batch[i + 3] as number;
          backend.get(batch[i + 2] as string, revision === 0 ? undefined : { revision }).then((res: GetResult) => {
            const kv = res.kv;
            if (kv === null) outbox.open().push(GOT, id, res.revision, null, '', 0, 0, 0);
            else outbox.open().push(GOT, id, res.revision, kv.key, kv.value, kv.createRevision, kv.modRevision, kv.lease ?? 0);
          }, fail(id));
          i += 4;
          break;
        }
        case REVISION: {
          const id = batch[i + 1] as number;
          backend.currentRevision().then((revision) => outbox.open().push(NUMBER, id, revision), fail(id));
          i += 2;
          break;
        }
        default:
          onMessage(batch[i + 1] as ToWorker);
          i += 2;
      }
    }
  });

}

void main();
