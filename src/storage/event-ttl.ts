// withEventTtl: kube-apiserver's --event-ttl at the storage boundary.
//
// The registry marks the writes that expire (events, core and events.k8s.io:
// their strategies carry ttlSeconds) with WriteOptions.ttlSeconds; the value
// it carries is the built-in default of one hour. This wrapper replaces that
// value with the configured TTL on every create and update that asks for one,
// and passes everything else through untouched, so the choice of TTL stays a
// server setting while the choice of which resources expire stays with the
// strategies. Writes without a TTL never get one.

import type { Backend, WriteOptions } from './interface.js';

export function withEventTtl(backend: Backend, ttlSeconds: number): Backend {
  if (!(ttlSeconds > 0)) throw new Error(`event TTL must be positive, got ${ttlSeconds}`);
  const retime = (options: WriteOptions | undefined): WriteOptions | undefined =>
    options?.ttlSeconds !== undefined && options.ttlSeconds > 0 ? { ...options, ttlSeconds } : options;
  const wrapped: Backend = {
    consistentProgress: backend.consistentProgress,
    currentRevision: () => backend.currentRevision(),
    compactedRevision: () => backend.compactedRevision(),
    get: (key, options) => backend.get(key, options),
    range: (start, end, options) => backend.range(start, end, options),
    create: (key, value, options) => backend.create(key, value, retime(options)),
    update: (key, value, expected, options) => backend.update(key, value, expected, retime(options)),
    delete: (key, expected) => backend.delete(key, expected),
    watch: (prefix, afterRevision, handlers) => backend.watch(prefix, afterRevision, handlers),
    compact: (revision) => backend.compact(revision),
    close: () => backend.close(),
  };
  if (backend.localRevision !== undefined) wrapped.localRevision = () => backend.localRevision!();
  return wrapped;
}
