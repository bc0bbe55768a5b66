// The namespaces a user may see (issue 31): a user refused the cluster-wide
// list or watch of namespaces is not answered 403 but served the namespaces in
// which RBAC lets them do something: those holding a RoleBinding to them (of a
// role with at least one rule), those below such a namespace in the hierarchy
// (their bindings are inherited), and any they may `get` by name. A user whom
// a ClusterRoleBinding grants a rule on some namespaced resource (`list pods`,
// say) may act in every namespace, so sees them all, and their list is the
// store's own, remainingItemCount included. Everything
// else about the list is the store's: one resourceVersion, label and field
// selectors, limit and continue (a page holds up to `limit` visible
// namespaces; remainingItemCount is left out, it would count hidden ones). A
// watch follows the user's access as it changes: a namespace that becomes
// visible arrives as ADDED, one that stops being visible as DELETED.
// Users with the cluster-wide right are not affected, nor anonymous requests. Off with
// --namespace-list-filtering=false (upstream's 403).

import type { IncomingMessage } from 'node:http';
import type { KubeList, KubeObject } from '../machinery/meta.js';
import type { PolicyRule } from '../api/rbac/v1/types.js';
import { ALL_AUTHENTICATED, type UserInfo } from '../machinery/user.js';
import type { Attributes } from '../auth/authz/attributes.js';
import type { RbacAuthorizer } from '../auth/authz/rbac.js';
import type { ListOptions, RESTStore, WatchEvent, WatchSink } from '../registry/rest.js';
import { parseLabelSelector } from '../machinery/labels.js';

/** The resources served, with their scope (the registry's view: custom resources come and go). */
export interface ServedResources {
  /** Changes whenever the served resources do. */
  generation(): number;
  resources(): Iterable<{ group: string; resource: string; namespaced: boolean }>;
}

export class NamespaceVisibility {
  constructor(
    private readonly rbac: RbacAuthorizer,
    private readonly served?: ServedResources,
  ) {}

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
   * the hierarchy as they change (onChange tells when it may have).
   */
  visibleTo(user: UserInfo): Visibility {
    const rbac = this.rbac;
    let generation = -1;
    let servedGeneration = -1;
    let granted: { inherited: Set<string>; local: Set<string> } = { inherited: new Set(), local: new Set() };
    let everywhere = false;
    const known = new Map<string, boolean>();
    const refresh = (): void => {
      const nowServed = this.served?.generation() ?? 0;
      if (generation === rbac.generation && servedGeneration === nowServed) return;
      generation = rbac.generation;
      servedGeneration = nowServed;
      everywhere = this.grantsInEveryNamespace(user);
      granted = everywhere ? { inherited: new Set(), local: new Set() } : rbac.namespacesWithGrants(user);
      known.clear();
    };
    const visible = (namespace: string): boolean => {
      refresh();
      if (everywhere) return true;
      let answer = known.get(namespace);
      if (answer === undefined) {
        answer =
          granted.local.has(namespace) ||
          rbac.bindingNamespaces(namespace).some((ns) => granted.inherited.has(ns)) ||
          rbac.authorize(getNamespace(user, namespace)).allowed;
        known.set(namespace, answer);
      }
      return answer;
    };
    const all = (): boolean => {
      refresh();
      return everywhere;
    };
    return { visible, all, onChange: (listener) => rbac.onInvalidate(listener) };
  }

  /**
   * Whether a ClusterRoleBinding of the user's grants a rule on a namespaced
   * resource: then the user may act in every namespace (rules on cluster-scoped
   * resources only, as system:basic-user's reviews, or on non-resource URLs, do not count).
   */
  private grantsInEveryNamespace(user: UserInfo): boolean {
    const namespaced: { group: string; resource: string }[] = [];
    for (const r of this.served?.resources() ?? []) if (r.namespaced) namespaced.push(r);
    let found = false;
    this.rbac.visitRules(user, '', (rules, err) => {
      if (err === undefined && rules.some((rule) => ruleCoversNamespaced(rule, namespaced))) found = true;
      return !found;
    });
    return found;
  }
}

/** Whether a rule grants some verb on one of the namespaced resources (or a subresource of one). */
function ruleCoversNamespaced(rule: PolicyRule, namespaced: readonly { group: string; resource: string }[]): boolean {
  if ((rule.verbs ?? []).length === 0) return false;
  const groups = rule.apiGroups ?? [];
  const resources = rule.resources ?? [];
  if (resources.length === 0) return false;
  return namespaced.some(
    (r) =>
      (groups.includes('*') || groups.includes(r.group)) &&
      resources.some((entry) => entry === '*' || entry === r.resource || entry.startsWith(`${r.resource}/`) || entry.startsWith('*/')),
  );
}

/** What one user may see, and when that may have changed. */
export interface Visibility {
  visible(namespace: string): boolean;
  /** True while the user may see every namespace (a cluster-wide grant on a namespaced resource). */
  all?(): boolean;
  /** Calls `listener` when RBAC or the hierarchy changed; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

function getNamespace(user: UserInfo, name: string): Attributes {
  // As request-info reads GET /api/v1/namespaces/{name}: the namespace is the name itself.
  return { user, verb: 'get', isResourceRequest: true, path: '', namespace: name, apiGroup: '', apiVersion: 'v1', resource: 'namespaces', subresource: '', name };
}

const FILTERS = new WeakMap<IncomingMessage, Visibility>();

/** Marks a request as served through the filter. */
export function filterNamespacesOf(req: IncomingMessage, visibility: Visibility): void {
  FILTERS.set(req, visibility);
}

/** The namespaces store as this request may see it: itself when the request is not filtered. */
export function namespacesStoreFor(req: IncomingMessage, store: RESTStore): RESTStore {
  const visibility = FILTERS.get(req);
  return visibility === undefined ? store : visibleNamespacesStore(store, visibility);
}

/**
 * The namespaces store with list and watch narrowed to what `visibility`
 * shows (only list and watch reach it). A watch also follows the user's
 * access: a namespace that becomes visible is sent as ADDED, one that stops
 * being visible as DELETED (the namespace as the watch cache holds it).
 */
export function visibleNamespacesStore(store: RESTStore, visibility: Visibility): RESTStore {
  const visible = visibility.visible;
  const shows = (object: KubeObject): boolean => visible(object.metadata.name ?? '');
  const filtered = Object.create(store) as RESTStore;
  filtered.list = async (namespace: string, options: ListOptions): Promise<KubeList> => {
    // Nothing hidden: the store's list as it is (as upstream serves a user allowed to list).
    if (visibility.all?.() === true) return store.list(namespace, options);
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
  filtered.watch = async (namespace, options, sink) => {
    const selected = selectorOf(options);
    // The namespaces the client holds as present, by what this watch has sent (or the list before it).
    const shown = new Set<string>();
    for (const ns of store.listCached?.('') ?? []) if (selected(ns) && shows(ns as KubeObject)) shown.add(ns.metadata.name!);
    const passes = (e: WatchEvent): boolean => {
      if (e.type === 'BOOKMARK' || e.type === 'ERROR') return true;
      const name = (e.object as KubeObject).metadata.name ?? '';
      if (e.type === 'DELETED') return shown.delete(name) || visible(name);
      if (!visible(name)) return false;
      shown.add(name);
      return true;
    };
    let done = false;
    const narrowed: WatchSink = {
      event: (e) => {
        if (passes(e)) sink.event(e);
      },
      done: () => {
        done = true;
        unsubscribe();
        sink.done();
      },
    };
    if (sink.events !== undefined) {
      const events = sink.events.bind(sink);
      narrowed.events = (batch) => {
        const kept = batch.filter(passes);
        if (kept.length > 0) events(kept);
      };
    }
    // Access changed: send what appeared and what went (once per burst of changes).
    let pending = false;
    const unsubscribe = visibility.onChange(() => {
      if (pending || done) return;
      pending = true;
      setImmediate(() => {
        pending = false;
        if (done) return;
        const present = new Set<string>();
        for (const ns of store.listCached?.('') ?? []) {
          const name = ns.metadata.name!;
          present.add(name);
          if (!selected(ns)) continue;
          const now = visible(name);
          if (now && !shown.has(name)) {
            shown.add(name);
            sink.event({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Namespace', ...ns } as KubeObject });
          } else if (!now && shown.has(name)) {
            shown.delete(name);
            sink.event({ type: 'DELETED', object: { apiVersion: 'v1', kind: 'Namespace', ...ns } as KubeObject });
          }
        }
      });
    });
    try {
      const watcher = await store.watch(namespace, options, narrowed);
      return {
        stop: () => {
          unsubscribe();
          watcher.stop();
        },
      };
    } catch (err) {
      unsubscribe();
      throw err;
    }
  };
  return filtered;
}

/** The watch's label and field selectors as a test of a cached namespace (name and labels; other fields pass). */
function selectorOf(options: ListOptions): (ns: Readonly<KubeObject>) => boolean {
  const labels = options.labelSelector ? parseLabelSelector(options.labelSelector) : undefined;
  const nameMatch = /(?:^|,)\s*metadata\.name\s*(==?|!=)\s*([^,]*)/.exec(options.fieldSelector ?? '');
  return (ns) => {
    if (labels !== undefined && !labels.matches(ns.metadata.labels ?? {})) return false;
    if (nameMatch !== null) {
      const equal = ns.metadata.name === nameMatch[2]!.trim();
      return nameMatch[1] === '!=' ? !equal : equal;
    }
    return true;
  };
}
