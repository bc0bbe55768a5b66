// ListerWatcher: the two calls a Reflector needs, list and watch, for one
// resource with fixed selectors (client-go tools/cache listwatch.go). The
// Reflector supplies resourceVersion, limit/continue, timeoutSeconds and
// allowWatchBookmarks; the ListerWatcher adds its own label/field selectors.

import type { KubeList, KubeObject } from '../machinery/meta.js';
import type { ListOptions, ResourceClient } from './rest-client.js';
import type { Watch } from './watch.js';

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
