// Prometheus metrics served at /metrics, one prom-client Registry per server
// (tests run several servers in one process):
//
//   apiserver_request_total{verb,resource,code}            counter
//   apiserver_request_duration_seconds{verb,resource}       histogram
//   etcd_request_duration_seconds{operation,type}           histogram, per backend call
//                                                           (upstream's name for storage latency)
//   apiserver_storage_objects{resource}                     gauge, counted on scrape
//   apiserver_storage_decode_errors_total{resource}         counter, stored values that failed to decode
//   apiary_unhandled_errors_total{type}                     counter, survived by the process guard

import { Counter, Gauge, Registry as PromRegistry } from 'prom-client';
import { CounterVec, HistogramVec, type CounterChild, type HistogramChild } from './flowcontrol/metric-vecs.js';
import type { Backend } from '../storage/interface.js';
import { unhandledErrorCounts } from './process-guard.js';
import { prefixEnd } from '../storage/interface.js';

export class ServerMetrics {
  readonly registry = new PromRegistry();
  // The per-request series are plain numbers behind label-value maps, rendered
  // on scrape (flowcontrol/metric-vecs.ts): prom-client's children hash their
  // label set on every inc and observe, several times per request.
  private readonly requests: CounterVec;
  private readonly duration: HistogramVec;
  private readonly storageDuration: HistogramVec;
  private readonly requestCounts = new Map<string, Map<string, Map<number, CounterChild>>>();
  private readonly requestTimes = new Map<string, Map<string, HistogramChild>>();
  private readonly storageTimes = new Map<string, Map<string, HistogramChild>>();

  constructor(countObjects?: () => Promise<Array<{ resource: string; count: number }>>) {
    this.requests = new CounterVec('apiserver_request_total', 'Counter of apiserver requests broken out for each verb, resource and HTTP response code.', this.registry);
    this.duration = new HistogramVec(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb and resource.',
      [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      this.registry,
      true,
    );
    this.storageDuration = new HistogramVec(
      'etcd_request_duration_seconds',
      'Storage backend request latency in seconds for each operation and object type.',
      [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      this.registry,
      true,
    );
    this.countUnhandled();
    if (countObjects !== undefined) {
      new Gauge({
        name: 'apiserver_storage_objects',
        help: 'Number of stored objects at the time of last check split by kind.',
        labelNames: ['resource'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const { resource, count } of await countObjects()) this.set({ resource }, count);
        },
      });
    }
  }

  /** apiary_unhandled_errors_total{type}: rejections and exceptions the process guard survived. */
  private countUnhandled(): void {
    new Counter({
      name: 'apiary_unhandled_errors_total',
      help: 'Unhandled promise rejections and uncaught exceptions the process survived, by type.',
      labelNames: ['type'],
      registers: [this.registry],
      collect() {
        this.reset();
        const counts = unhandledErrorCounts();
        this.inc({ type: 'rejection' }, counts.rejection);
        this.inc({ type: 'exception' }, counts.exception);
      },
    });
  }

  /**
   * apiserver_storage_decode_errors_total{resource}: stored values that could
   * not be decoded, read from the storage layer's count on scrape.
   */
  countDecodeErrors(failures: () => ReadonlyMap<string, number>): void {
    new Counter({
      name: 'apiserver_storage_decode_errors_total',
      help: 'Number of stored object decode errors split by object type',
      labelNames: ['resource'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [resource, count] of failures()) this.inc({ resource }, count);
      },
    });
  }

  /**
   * Records a finished request under upstream's reported verb (GET, LIST,
   * WATCH, POST, PUT, PATCH, DELETE). Watches are counted but not timed, as upstream.
   */
  observeRequest(verb: string, resource: string, code: number, seconds: number): void {
    let byResource = this.requestCounts.get(verb);
    if (byResource === undefined) this.requestCounts.set(verb, (byResource = new Map()));
    let byCode = byResource.get(resource);
    if (byCode === undefined) byResource.set(resource, (byCode = new Map()));
    let count = byCode.get(code);
    if (count === undefined) byCode.set(code, (count = this.requests.child({ verb, resource, code: String(code) })));
    count.value++;
    if (verb === 'WATCH') return;
    this.duration.observe(this.timeSeries(this.requestTimes, this.duration, verb, resource, 'verb', 'resource'), seconds);
  }

  /** One backend call's latency, under etcd_request_duration_seconds{operation,type}. */
  observeStorage(operation: string, type: string, seconds: number): void {
    this.storageDuration.observe(this.timeSeries(this.storageTimes, this.storageDuration, operation, type, 'operation', 'type'), seconds);
  }

  private timeSeries(series: Map<string, Map<string, HistogramChild>>, vec: HistogramVec, a: string, b: string, aName: string, bName: string): HistogramChild {
    let byB = series.get(a);
    if (byB === undefined) series.set(a, (byB = new Map()));
    let child = byB.get(b);
    if (child === undefined) byB.set(b, (child = vec.child({ [aName]: a, [bName]: b })));
    return child;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

const REPORTED_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

/** Upstream's metric verb for a request verb (non-resource requests report their HTTP method). */
export function reportedVerb(verb: string, method: string): string {
  return REPORTED_VERBS[verb] ?? method.toUpperCase();
}

/** The resource a storage key belongs to: "/registry/configmaps/ns/a" → "configmaps". */
function keyType(prefix: string, key: string): string {
  let start = key.startsWith(prefix) ? prefix.length : 0;
  while (key.charCodeAt(start) === 0x2f /* / */) start++;
  const end = key.indexOf('/', start);
  return end < 0 ? key.slice(start) : key.slice(start, end);
}

/** Wraps a backend so every call is timed into etcd_request_duration_seconds. */
export function instrumentBackend(backend: Backend, metrics: Pick<ServerMetrics, 'observeStorage'>, prefix: string): Backend {
  // The backend's own promise, observed on settling: no async wrapper, whose
  // promise and extra turn every storage call would pay for.
  const timed = <T>(operation: string, key: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const observe = (): void => metrics.observeStorage(operation, keyType(prefix, key), (performance.now() - started) / 1000);
    let pending: Promise<T>;
    try {
      pending = run();
    } catch (err) {
      observe();
      return Promise.reject(err as Error);
    }
    pending.then(observe, observe);
    return pending;
  };
  const wrapped: Backend = {
    consistentProgress: backend.consistentProgress,
    currentRevision: () => backend.currentRevision(),
    compactedRevision: () => backend.compactedRevision(),
    get: (key, options) => timed('get', key, () => backend.get(key, options)),
    range: (start, end, options) => timed('list', start, () => backend.range(start, end, options)),
    create: (key, value, options) => timed('create', key, () => backend.create(key, value, options)),
    update: (key, value, expected, options) => timed('update', key, () => backend.update(key, value, expected, options)),
    delete: (key, expected) => timed('delete', key, () => backend.delete(key, expected)),
    watch: (watchPrefix, afterRevision, handlers) => backend.watch(watchPrefix, afterRevision, handlers),
    compact: (revision) => backend.compact(revision),
    close: () => backend.close(),
  };
  if (backend.localRevision !== undefined) wrapped.localRevision = () => backend.localRevision!();
  return wrapped;
}

/** Counts the keys under {prefix}/{resource}/ with a one-key range read (the backend reports the total). */
export async function countKeys(backend: Backend, prefix: string, resource: string): Promise<number> {
  const start = `${prefix}/${resource}/`;
  const result = await backend.range(start, prefixEnd(start), { limit: 1 });
  return result.count;
}
