// ListerWatcher: the two calls a Reflector needs, list and watch, for one
// resource with fixed selectors (client-go tools/cache listwatch.go). The
// Reflector supplies resourceVersion, limit/continue, timeoutSeconds and
// allowWatchBookmarks; the ListerWatcher adds its own label/field selectors.

import type { GroupVersionResource, KubeList, KubeObject } from '../machinery/meta.js';
import type { ListOptions, ResourceClient } from './rest-client.js';
import { Watch, type WatchEvent } from './watch.js';

export interface ListerWatcher<T extends KubeObject = KubeObject> {
  list(options: ListOptions): Promise<KubeList<T>>;
  watch(options: ListOptions): Promise<Watch<T>>;
}

export interface ListWatchSelectors {
  labelSelector?: string;
  fieldSelector?: string;
}

/** A ListerWatcher over a (possibly namespaced) resource client. */
export function listWatchFromClient<T extends KubeObject>(
  resource: ResourceClient<T>,
  selectors: ListWatchSelectors = {},
): ListerWatcher<T> {
  return {
    list: (options) => resource.list({ ...options, ...selectors }),
    watch: (options) => resource.watch({ ...options, ...selectors }),
  };
}

/**
 * Lists and watches answered without HTTP by a server in the same process
 * (src/server/in-process-reads.ts): undefined for a resource it does not
 * store. The objects are the server's own, shared: never to be changed.
 */
export interface InProcessReads {
  list(gvr: GroupVersionResource, query: Record<string, string | number | boolean | undefined>): Promise<KubeList> | undefined;
  watch(
    gvr: GroupVersionResource,
    query: Record<string, string | number | boolean | undefined>,
  ): Promise<AsyncIterable<{ type: string; object: unknown }> & { stop(): void }> | undefined;
}

/**
 * A ListerWatcher of gvr over in-process reads. `copy` makes, from each shared
 * object, what the caller keeps (the garbage collector's few metadata fields;
 * nothing of the shared object may be changed through it); `overHttp` serves a
 * call whose resource the server does not store (an aggregated API).
 */
export function inProcessListWatch<T extends KubeObject>(
  reads: InProcessReads,
  gvr: GroupVersionResource,
  copy: (object: KubeObject) => T,
  overHttp: ListerWatcher<T>,
): ListerWatcher<T> {
  return {
    list: async (options) => {
      const { signal: _signal, ...query } = options;
      const listed = reads.list(gvr, query);
      if (listed === undefined) return overHttp.list(options);
      const list = await listed;
      return { ...list, items: (list.items ?? []).map(copy) } as KubeList<T>;
    },
    watch: async (options) => {
      const { signal, ...query } = options;
      const started = reads.watch(gvr, query);
      if (started === undefined) return overHttp.watch(options);
      const events = await started;
      const onAbort = (): void => watch.stop();
      const watch = Watch.ofEvents(
        events as AsyncIterable<WatchEvent<T>>,
        () => {
          signal?.removeEventListener('abort', onAbort);
          events.stop();
        },
        (object: T) => copy(object),
      );
      if (signal?.aborted === true) watch.stop();
      else signal?.addEventListener('abort', onAbort, { once: true });
      return watch;
    },
  };
}
