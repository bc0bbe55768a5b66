// The namespaces a user may see (issue 31): a user refused the cluster-wide
// list or watch of namespaces is not answered 403 but served the namespaces in
// which RBAC lets them do something: those holding a RoleBinding to them (of a
// role with at least one rule), those below such a namespace in the hierarchy
// (their bindings are inherited), and any they may `get` by name. Everything
// else about the list is the store's: one resourceVersion, label and field
// selectors, limit and continue (a page holds up to `limit` visible
// namespaces; remainingItemCount is left out, it would count hidden ones).
// Users with the cluster-wide right are not affected, nor anonymous requests. Off with
// --namespace-list-filtering=false (upstream's 403).

import type { IncomingMessage } from 'node:http';
import type { KubeList, KubeObject } from '../machinery/meta.js';
import { ALL_AUTHENTICATED, type UserInfo } from '../machinery/user.js';
import type { Attributes } from '../auth/authz/attributes.js';
import type { RbacAuthorizer } from '../auth/authz/rbac.js';
import type { ListOptions, RESTStore, WatchEvent, WatchSink } from '../registry/rest.js';

export class NamespaceVisibility {
  constructor(private readonly rbac: RbacAuthorizer) {}

  /**
   * Whether a refused request is one this filter answers instead: a list or
   * watch of all namespaces by an authenticated user (anonymous requests keep
   * their 403: there is nothing a tenant sees there).
   */
  applies(a: Attributes): boolean {
    return (
      a.isResourceRequest &&
      a.apiGroup === '' &&
      a.resource === 'namespaces' &&
      a.subresource === '' &&
      (a.verb === 'list' || a.verb === 'watch') &&
      a.user.groups.includes(ALL_AUTHENTICATED)
    );
  }

  /**
   * Whether `user` may see a namespace, by name. The answer follows RBAC and
   * the hierarchy as they change (a long watch sees namespaces come and go
   * with the user's bindings).
   */
  visibleTo(user: UserInfo): (namespace: string) => boolean {
    const rbac = this.rbac;
    let generation = -1;
    let granted = new Set<string>();
    const known = new Map<string, boolean>();
    return (namespace) => {
      if (generation !== rbac.generation) {
        generation = rbac.generation;
        granted = rbac.namespacesWithGrants(user);
        known.clear();
      }
      let visible = known.get(namespace);
      if (visible === undefined) {
        visible = rbac.bindingNamespaces(namespace).some((ns) => granted.has(ns)) || rbac.authorize(getNamespace(user, namespace)).allowed;
        known.set(namespace, visible);
      }
      return visible;
    };
  }
}

function getNamespace(user: UserInfo, name: string): Attributes {
  // As request-info reads GET /api/v1/namespaces/{name}: the namespace is the name itself.
  return { user, verb: 'get', isResourceRequest: true, path: '', namespace: name, apiGroup: '', apiVersion: 'v1', resource: 'namespaces', subresource: '', name };
}

const FILTERS = new WeakMap<IncomingMessage, (namespace: string) => boolean>();

/** Marks a request as served through the filter. */
export function filterNamespacesOf(req: IncomingMessage, visible: (namespace: string) => boolean): void {
  FILTERS.set(req, visible);
}

/** The namespaces store as this request may see it: itself when the request is not filtered. */
export function namespacesStoreFor(req: IncomingMessage, store: RESTStore): RESTStore {
  const visible = FILTERS.get(req);
  return visible === undefined ? store : visibleNamespacesStore(store, visible);
}

/** The namespaces store with list and watch narrowed to `visible` (only list and watch reach it). */
export function visibleNamespacesStore(store: RESTStore, visible: (namespace: string) => boolean): RESTStore {
  const shows = (object: KubeObject): boolean => visible(object.metadata.name ?? '');
  const passes = (e: WatchEvent): boolean => e.type === 'BOOKMARK' || e.type === 'ERROR' || shows(e.object as KubeObject);
  const filtered = Object.create(store) as RESTStore;
  filtered.list = async (namespace: string, options: ListOptions): Promise<KubeList> => {
    const limit = options.limit ?? 0;
    let page = await store.list(namespace, options);
    const items = page.items.filter(shows);
    // Fill the page from the following ones (same resourceVersion: the continue token pins it).
    while (limit > 0 && items.length < limit && page.metadata.continue) {
      const { resourceVersion: _rv, resourceVersionMatch: _match, ...rest } = options;
      page = await store.list(namespace, { ...rest, continue: page.metadata.continue, limit: limit - items.length });
      items.push(...page.items.filter(shows));
    }
    const { remainingItemCount: _count, ...metadata } = page.metadata;
    return { ...page, metadata, items };
  };
  filtered.watch = (namespace, options, sink) => {
    const narrowed: WatchSink = {
      event: (e) => {
        if (passes(e)) sink.event(e);
      },
      done: () => sink.done(),
    };
    if (sink.events !== undefined) {
      const events = sink.events.bind(sink);
      narrowed.events = (batch) => {
        const kept = batch.filter(passes);
        if (kept.length > 0) events(kept);
      };
    }
    return store.watch(namespace, options, narrowed);
  };
  return filtered;
}
