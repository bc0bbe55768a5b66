// Lists and watches for the controllers `apiary serve` runs in its own
// process, answered by the stores without HTTP.
//
// The garbage collector watches every resource. Over the loopback socket each
// write's event was encoded as JSON, written to the socket, read back and
// parsed in this same process: about a seventh of the main thread's time per
// create (bench/profile-ops.ts with and without the collector). Here a list or
// watch goes to the store as the HTTP handler's would: the same query
// parsing and validation (a malformed option fails as it would over HTTP),
// the same watch cache, timeouts, bookmarks and errors; only the encoding is
// skipped. What the caller receives are the store's own objects, shared with
// the watch cache and every other watcher: it must not change them.
//
// Skipped as well: authentication, authorization, audit and priority and
// fairness. The server hands these reads only to its own controllers, whose
// identities may list and watch everything anyway (the collector's role).
// Resources this server does not store, and a group/version an aggregated
// API server has taken over (its APIService names a service, so the HTTP
// handler would proxy there), are not answered here: the caller goes over
// HTTP for those.

import type { GroupVersionResource, KubeList } from '../machinery/meta.js';
import type { Registry } from '../registry/index.js';
import type { RESTStore, WatchEvent, Watcher } from '../registry/rest.js';
import { validateListOptions } from './list-options.js';
import { listOptionsFrom, watchOptionsFrom } from './request-options.js';
import type { WatchTracker } from './watch.js';

/** List options as a client sends them in the query (resourceVersion, limit, continue, …). */
export type ReadQuery = Record<string, string | number | boolean | undefined>;

/** A watch's events, in order; the iteration ends when the watch does. */
export interface InProcessWatch extends AsyncIterable<WatchEvent> {
  stop(): void;
}

export interface InProcessReads {
  /** undefined when this server does not store the resource. */
  list(gvr: GroupVersionResource, query: ReadQuery): Promise<KubeList> | undefined;
  /** undefined when this server does not store the resource. */
  watch(gvr: GroupVersionResource, query: ReadQuery): Promise<InProcessWatch> | undefined;
}

/**
 * Events a watch may hold that its consumer has not taken before it is ended
 * (the consumer then watches again from where it was, as a client whose
 * connection the server dropped for falling behind does). Over HTTP the bound
 * is bytes (WatchTracker.maxBufferedBytes); a metadata event is a few hundred.
 */
const MAX_PENDING_EVENTS = 50_000;

export interface InProcessReadsOptions {
  /** Whether an aggregated API server serves group/version (the aggregator's remoteFor). */
  remote?: (group: string, version: string) => boolean;
  maxPendingEvents?: number;
}

export function inProcessReads(registry: Pick<Registry, 'storeFor'>, tracker: WatchTracker, options: InProcessReadsOptions = {}): InProcessReads {
  const maxPendingEvents = options.maxPendingEvents ?? MAX_PENDING_EVENTS;
  const storeFor = (gvr: GroupVersionResource): RESTStore | undefined =>
    options.remote?.(gvr.group, gvr.version) === true ? undefined : registry.storeFor(gvr.group, gvr.resource, gvr.version);
  return {
    list: (gvr, query) => {
      const store = storeFor(gvr);
      if (store === undefined) return undefined;
      return (async () => store.list('', { ...listOptionsFrom(validated(query, false)), sharedItems: true }))();
    },
    watch: (gvr, query) => {
      const store = storeFor(gvr);
      if (store === undefined) return undefined;
      return (async () => {
        const options = watchOptionsFrom(validated(query, true), '');
        // As serveWatch: the store ends the watch at timeoutSeconds, with its closing bookmark.
        options.timeoutSeconds = tracker.timeoutSeconds(options.timeoutSeconds);
        const queue = new EventQueue(maxPendingEvents);
        let watcher: Watcher | undefined;
        const stop = (): void => {
          untrack();
          watcher?.stop();
          queue.end();
        };
        // A stopping server ends these watches as it ends its HTTP ones.
        const untrack = tracker.add(stop);
        try {
          watcher = await store.watch('', options, {
            event: (e) => {
              if (!queue.push(e)) stop();
            },
            events: (events) => {
              for (const e of events) if (!queue.push(e)) return stop();
            },
            done: stop,
          });
        } catch (err) {
          untrack();
          throw err;
        }
        if (queue.ended) watcher.stop();
        return { stop, [Symbol.asyncIterator]: () => queue.drain() };
      })();
    },
  };
}

/** The query as the HTTP handler reads it, checked as it checks it (a malformed option throws its Status). */
function validated(query: ReadQuery, watch: boolean): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  validateListOptions(params, watch);
  return params;
}

/** Events pushed by the store (synchronously, in its dispatch) and drained by one consumer. */
class EventQueue {
  constructor(private readonly maxPending: number) {}
  private items: WatchEvent[] = [];
  private head = 0;
  ended = false;
  private wake: (() => void) | undefined;

  /** false when the queue is full (the watch is then ended). */
  push(event: WatchEvent): boolean {
    if (this.ended) return true;
    if (this.items.length - this.head >= this.maxPending) return false;
    this.items.push(event);
    this.wakeUp();
    return true;
  }

  end(): void {
    this.ended = true;
    this.wakeUp();
  }

  async *drain(): AsyncGenerator<WatchEvent> {
    for (;;) {
      if (this.head < this.items.length) {
        const event = this.items[this.head]!;
        this.items[this.head++] = undefined as unknown as WatchEvent;
        if (this.head === this.items.length) {
          this.items = [];
          this.head = 0;
        }
        yield event;
        continue;
      }
      // Events pushed before the end are still delivered; after them, the end.
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
