// Stored objects per resource for list width estimation (upstream's object
// count tracker, refreshed from storage every minute). Here a count is read
// when a list asks for it and the last one is older than `maxAgeMs`: the
// request uses the count known then (none yet: one seat), and a one-item
// list (its remainingItemCount) refreshes it in the background.

import type { RESTStore } from '../../registry/rest.js';
import type { RequestInfo } from '../request-info.js';

export class ObjectCounts {
  private readonly counts = new Map<string, { count: number | undefined; at: number; refreshing: boolean }>();

  constructor(
    private readonly storeFor: (group: string, resource: string) => RESTStore | undefined,
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = 10_000,
  ) {}

  count(info: RequestInfo): number | undefined {
    const key = `${info.apiGroup}/${info.resource}`;
    let entry = this.counts.get(key);
    if (entry === undefined) {
      entry = { count: undefined, at: -Infinity, refreshing: false };
      this.counts.set(key, entry);
    }
    if (!entry.refreshing && this.now() - entry.at >= this.maxAgeMs) {
      const store = this.storeFor(info.apiGroup, info.resource);
      // Resources that serve no list (bindings) have no count; routing answers their 405.
      if (store !== undefined && store.type.verbs.includes('list')) {
        const e = entry;
        e.refreshing = true;
        // Called inside a promise: a store that throws synchronously fails the refresh, not the request.
        Promise.resolve()
          .then(() => store.list('', { limit: 1 }))
          .then((list) => {
            e.count = list.items.length + (list.metadata.remainingItemCount ?? 0);
          })
          .catch(() => {})
          .finally(() => {
            e.at = this.now();
            e.refreshing = false;
          });
      }
    }
    return entry.count;
  }
}
