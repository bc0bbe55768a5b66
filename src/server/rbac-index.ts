// The RBAC objects the authorizer reads, kept in memory by watching the four
// RBAC stores of this server's registry (list, then watch from the list's
// resourceVersion; a watch that ends is started again from a fresh list).
// Every change drops the authorizer's decision cache; a ClusterRole's re-runs
// ClusterRole aggregation; a RoleBinding's costs its namespace only (deleting
// many namespaces deletes their bindings one by one). Also: the bootstrap
// policy reconciled on start (missing roles and bindings created, existing
// ones left as the admin changed them unless they are still marked autoupdate
// and lack something).
//
// A write of an RBAC object through this server returns only once the index
// holds it (syncedRbacStores): a binding created is in effect (here and, with
// hierarchical namespaces, in every descendant) before its create returns, and
// one deleted stops granting before its delete returns.
//
// Memory: Roles and RoleBindings (there may be one per namespace and user)
// are held as the authorizer reads them (authorizationView): name,
// namespace, uid, resourceVersion, deletionTimestamp, the inherited-from
// label of a propagated copy, and the rules or the roleRef and subjects;
// not managedFields, other labels, annotations. ClusterRoles and
// ClusterRoleBindings are held whole: bootstrap reconciliation writes them
// back and aggregation reads their labels.

import type { Logger } from 'pino';
import { labelSelectorFromMeta } from '../machinery/labels.js';
import type { KubeObject } from '../machinery/meta.js';
import { isStatusError } from '../machinery/errors.js';
import type { ClusterRole, PolicyRule, Role, RoleBinding, Subject } from '../api/rbac/v1/types.js';
import type { DeleteOptions, ListOptions, RESTStore, Watcher, WriteOptions } from '../registry/rest.js';
import type { RbacSource } from '../auth/authz/rbac.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../auth/authz/bootstrap-policy.js';
import type { RegistryView } from './routes.js';
import { uncoveredRules } from './rbac-escalation.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { LABEL_INHERITED_FROM } from '../api/hnc/v1alpha2/types.js';

const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');
}

const GROUP = 'rbac.authorization.k8s.io';
const RESOURCES = ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'] as const;
type RbacResource = (typeof RESOURCES)[number];

function isRbacResource(resource: string): resource is RbacResource {
  return (RESOURCES as readonly string[]).includes(resource);
}

/** How long a write waits for the index before it returns anyway (a watch being restarted). */
const WRITE_SYNC_TIMEOUT_MS = 10_000;

function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** Strings most bindings repeat, held once rather than once per binding. */
const SHARED_STRINGS = new Map<string, string>(
  [GROUP, '', 'User', 'Group', 'ServiceAccount', 'ClusterRole', 'Role', 'system:serviceaccounts', 'system:authenticated'].map((s) => [s, s]),
);

function shared<T extends string | undefined>(s: T): T {
  return s === undefined ? s : ((SHARED_STRINGS.get(s) as T | undefined) ?? s);
}

/**
 * What the index keeps of a Role or RoleBinding: what authorization, the
 * write waits (uid, resourceVersion, deletionTimestamp) and the binding
 * scope (a propagated copy's inherited-from label) read; see the header.
 * Each part is one object literal of a fixed shape (absent fields
 * undefined): V8 then sizes it exactly, with no separate property store.
 */
export function authorizationView(obj: KubeObject): Role | RoleBinding {
  const m = obj.metadata;
  const metadata: KubeObject['metadata'] = { name: m.name!, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion };
  // Rare (a binding being deleted, a propagated copy): added, not kept in every view.
  if (m.deletionTimestamp !== undefined && m.deletionTimestamp !== null) metadata.deletionTimestamp = m.deletionTimestamp;
  const inheritedFrom = m.labels?.[LABEL_INHERITED_FROM];
  if (inheritedFrom !== undefined) metadata.labels = { [LABEL_INHERITED_FROM]: inheritedFrom };
  const binding = obj as Partial<RoleBinding>;
  if (binding.roleRef === undefined) return { metadata, rules: (obj as Role).rules };
  const ref = binding.roleRef;
  return {
    metadata,
    roleRef: { apiGroup: shared(ref.apiGroup), kind: shared(ref.kind), name: ref.name },
    subjects: binding.subjects?.map((s) => ({ kind: shared(s.kind), apiGroup: shared(s.apiGroup), name: shared(s.name), namespace: s.namespace })),
  };
}

export class RbacIndex implements RbacSource {
  /** By "namespace/name": ClusterRoles and ClusterRoleBindings whole, Roles as authorizationView()s. */
  private readonly maps: Record<Exclude<RbacResource, 'rolebindings'>, Map<string, KubeObject>> = {
    clusterroles: new Map(),
    clusterrolebindings: new Map(),
    roles: new Map(),
  };
  /**
   * RoleBindings (authorizationView()s) by namespace and name, kept with each
   * change (a rebuild per change cost every binding of every namespace).
   */
  private readonly bindingsIn = new Map<string, Map<string, RoleBinding>>();
  /** Per namespace, the array roleBindings() hands out; made again after a change in that namespace. */
  private readonly bindingLists = new Map<string, RoleBinding[]>();
  private clusterBindingList: RoleBinding[] | undefined;
  private readonly watchers: Watcher[] = [];
  private stopped = false;
  private aggregating = false;
  private aggregateAgain = false;
  /** Per resource, the newest revision the index has applied (its list's, then each event's). */
  private readonly applied: Record<RbacResource, bigint> = { clusterroles: 0n, clusterrolebindings: 0n, roles: 0n, rolebindings: 0n };
  /** Conditions writes wait for, checked after each change. */
  private readonly waiters = new Set<() => boolean>();
  readonly onChange: (() => void)[] = [];

  constructor(
    private readonly registry: RegistryView,
    private readonly logger: Logger,
  ) {}

  private store(resource: RbacResource): RESTStore {
    return this.registry.storeFor(GROUP, resource)!;
  }

  /** Loads every RBAC object and keeps following changes. */
  async start(): Promise<void> {
    await Promise.all(RESOURCES.map((r) => this.follow(r)));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers.splice(0)) w.stop();
  }

  private async follow(resource: RbacResource): Promise<void> {
    const store = this.store(resource);
    const list = await store.list('', {});
    const view = resource === 'roles' || resource === 'rolebindings' ? authorizationView : (obj: KubeObject): KubeObject => obj;
    const map = resource === 'rolebindings' ? undefined : this.maps[resource];
    map?.clear();
    if (map === undefined) {
      this.bindingsIn.clear();
      this.bindingLists.clear();
    }
    for (const item of list.items) {
      if (map === undefined) this.setBinding(view(item), true);
      else map.set(key(item.metadata.namespace, item.metadata.name!), view(item));
    }
    this.advance(resource, list.metadata.resourceVersion);
    this.changed(resource);
    const watcher = await store.watch('', { resourceVersion: list.metadata.resourceVersion! }, {
      event: (e) => {
        if (e.type === 'BOOKMARK' || e.type === 'ERROR') return;
        const obj = e.object as KubeObject;
        if (map === undefined) this.setBinding(e.type === 'DELETED' ? obj : view(obj), e.type !== 'DELETED');
        else if (e.type === 'DELETED') map.delete(key(obj.metadata.namespace, obj.metadata.name!));
        else map.set(key(obj.metadata.namespace, obj.metadata.name!), view(obj));
        this.advance(resource, obj.metadata.resourceVersion);
        this.changed(resource);
      },
      done: () => {
        if (this.stopped) return;
        // Relist and watch again (compaction, timeout).
        setTimeout(() => void this.follow(resource).catch((err: unknown) => this.logger.warn({ err, resource }, 'rbac watch restart failed')), 100).unref();
      },
    });
    this.watchers.push(watcher);
  }

  private advance(resource: RbacResource, resourceVersion: string | undefined): void {
    if (resourceVersion === undefined || !/^[0-9]+$/.test(resourceVersion)) return;
    const revision = BigInt(resourceVersion);
    if (revision > this.applied[resource]) this.applied[resource] = revision;
  }

  /** Adds (present) or removes a RoleBinding in the per-namespace index. */
  private setBinding(binding: KubeObject, present: boolean): void {
    const namespace = binding.metadata.namespace ?? '';
    let names = this.bindingsIn.get(namespace);
    if (present) {
      if (names === undefined) this.bindingsIn.set(namespace, (names = new Map()));
      names.set(binding.metadata.name!, binding as RoleBinding);
    } else if (names !== undefined) {
      names.delete(binding.metadata.name!);
      if (names.size === 0) this.bindingsIn.delete(namespace);
    }
    this.bindingLists.delete(namespace);
  }

  private changed(resource: RbacResource): void {
    if (resource === 'clusterrolebindings') this.clusterBindingList = undefined;
    for (const f of this.onChange) f();
    for (const ready of this.waiters) if (ready()) this.waiters.delete(ready);
    // Aggregation reads ClusterRoles only.
    if (resource === 'clusterroles') void this.aggregate();
  }

  /** Resolves once `ready()` holds after a change (at once if it holds now), or after timeoutMs regardless. */
  private waitUntil(ready: () => boolean, timeoutMs: number): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        this.logger.warn('an RBAC write returned before the RBAC index saw it (its watch lags)');
        resolve();
      }, timeoutMs);
      timer.unref();
      const check = (): boolean => {
        if (!ready()) return false;
        clearTimeout(timer);
        resolve();
        return true;
      };
      this.waiters.add(check);
    });
  }

  /** Resolves once the index has applied `object` as written (its resourceVersion) to `resource`. */
  awaitWritten(resource: string, object: KubeObject, timeoutMs = WRITE_SYNC_TIMEOUT_MS): Promise<void> {
    if (!isRbacResource(resource) || !/^[0-9]+$/.test(object.metadata.resourceVersion ?? '')) return Promise.resolve();
    const revision = BigInt(object.metadata.resourceVersion!);
    return this.waitUntil(() => this.applied[resource] >= revision, timeoutMs);
  }

  /** The object (or authorizationView) the index holds under this name, if any. */
  private held(resource: RbacResource, namespace: string, name: string): KubeObject | undefined {
    if (resource === 'rolebindings') return this.bindingsIn.get(namespace)?.get(name);
    return this.maps[resource].get(key(namespace || undefined, name));
  }

  /** The uid of the object the index holds under this name, if any. */
  heldUid(resource: RbacResource, namespace: string, name: string): string | undefined {
    return this.held(resource, namespace, name)?.metadata.uid;
  }

  /**
   * Resolves once the index no longer holds the object with `uid` (any object
   * by that name when uid is undefined), or holds it marked for deletion when
   * finalizers keep it (`gone` false).
   */
  awaitDeleted(resource: RbacResource, namespace: string, name: string, uid: string | undefined, gone: boolean, timeoutMs = WRITE_SYNC_TIMEOUT_MS): Promise<void> {
    return this.waitUntil(() => {
      const held = this.held(resource, namespace, name);
      if (held === undefined || (uid !== undefined && held.metadata.uid !== uid)) return true;
      return !gone && held.metadata.deletionTimestamp !== undefined;
    }, timeoutMs);
  }

  *allRoleBindings(): Iterable<RoleBinding> {
    for (const names of this.bindingsIn.values()) yield* names.values();
  }

  clusterRoleBindings(): Iterable<RoleBinding> {
    return (this.clusterBindingList ??= [...this.maps.clusterrolebindings.values()] as RoleBinding[]);
  }

  roleBindings(namespace: string): Iterable<RoleBinding> {
    let list = this.bindingLists.get(namespace);
    if (list === undefined) {
      const names = this.bindingsIn.get(namespace);
      if (names === undefined) return [];
      this.bindingLists.set(namespace, (list = [...names.values()]));
    }
    return list;
  }

  role(namespace: string, name: string): Role | undefined {
    return this.maps.roles.get(key(namespace, name)) as Role | undefined;
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.maps.clusterroles.get(key(undefined, name)) as ClusterRole | undefined;
  }

  /** Creates the bootstrap roles and bindings that are missing. */
  async reconcileBootstrapPolicy(): Promise<void> {
    for (const role of bootstrapClusterRoles()) await this.reconcileObject('clusterroles', role);
    for (const binding of bootstrapClusterRoleBindings()) await this.reconcileObject('clusterrolebindings', binding);
  }

  /**
   * Upstream's bootstrap reconciliation (pkg/registry/rbac/reconciliation, in
   * union mode as kube-apiserver runs it on start): a missing object is
   * created; an existing one annotated rbac.authorization.kubernetes.io/autoupdate
   * "false" is left as it is; otherwise it gets the expected labels and
   * annotations it lacks (its own values win), the expected rules it does not
   * cover (broken down, appended), the aggregation selectors it lacks, the
   * subjects it lacks; a binding whose roleRef differs is deleted and made again.
   */
  private async reconcileObject(resource: 'clusterroles' | 'clusterrolebindings', expected: KubeObject): Promise<void> {
    const name = expected.metadata.name!;
    const existing = this.maps[resource].get(key(undefined, name)) ?? (await this.readLive(resource, name));
    if (existing === undefined) {
      try {
        await this.store(resource).create('', expected, {});
      } catch (err) {
        if (!(isStatusError(err) && err.code === 409)) throw err;
      }
      return;
    }
    if (existing.metadata.annotations?.[AUTOUPDATE] === 'false') return;
    const next = deepCopy(existing) as KubeObject & Partial<ClusterRole> & Partial<RoleBinding>;
    let changed = false;
    for (const field of ['labels', 'annotations'] as const) {
      const merged = { ...(expected.metadata[field] ?? {}), ...(existing.metadata[field] ?? {}) };
      if (Object.keys(merged).length !== Object.keys(existing.metadata[field] ?? {}).length) {
        next.metadata[field] = merged;
        changed = true;
      }
    }
    if (resource === 'clusterroles') {
      const want = expected as ClusterRole;
      const missing = uncoveredRules(next.rules ?? [], want.rules ?? []);
      if (missing.length > 0) {
        next.rules = [...(next.rules ?? []), ...missing];
        changed = true;
      }
      const wantSelectors = want.aggregationRule?.clusterRoleSelectors ?? [];
      const haveSelectors = next.aggregationRule?.clusterRoleSelectors ?? [];
      const lacking = wantSelectors.filter((w) => !haveSelectors.some((h) => JSON.stringify(h) === JSON.stringify(w)));
      if (lacking.length > 0) {
        next.aggregationRule = { clusterRoleSelectors: [...haveSelectors, ...lacking] };
        changed = true;
      }
    } else {
      const want = expected as RoleBinding;
      if (JSON.stringify(next.roleRef) !== JSON.stringify(want.roleRef)) {
        // roleRef is immutable: upstream deletes the binding and creates it again.
        await this.store(resource).delete('', name, {});
        const recreated = deepCopy(want) as RoleBinding;
        recreated.metadata = { ...recreated.metadata, labels: next.metadata.labels, annotations: next.metadata.annotations };
        recreated.subjects = [...(next.subjects ?? []), ...(want.subjects ?? []).filter((w) => !(next.subjects ?? []).some((h) => sameSubject(h, w)))];
        await this.store(resource).create('', recreated, {});
        return;
      }
      const lacking = (want.subjects ?? []).filter((w) => !(next.subjects ?? []).some((h) => sameSubject(h, w)));
      if (lacking.length > 0) {
        next.subjects = [...(next.subjects ?? []), ...lacking];
        changed = true;
      }
    }
    if (!changed) return;
    try {
      await this.store(resource).update('', name, next, {});
      this.logger.info({ resource, name }, 'reconciled bootstrap RBAC object');
    } catch (err) {
      // Another server reconciled it first; its next start looks again.
      if (!(isStatusError(err) && err.code === 409)) throw err;
    }
  }

  private async readLive(resource: RbacResource, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.store(resource).get('', name, {});
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  }

  /**
   * ClusterRole aggregation (upstream's clusterroleaggregation controller): a
   * role with an aggregationRule gets the union of the rules of every role its
   * selectors match, in name order, without duplicates.
   */
  private async aggregate(): Promise<void> {
    if (this.aggregating) {
      this.aggregateAgain = true;
      return;
    }
    this.aggregating = true;
    try {
      do {
        this.aggregateAgain = false;
        const roles = [...this.maps.clusterroles.values()] as ClusterRole[];
        for (const role of roles) {
          const selectors = role.aggregationRule?.clusterRoleSelectors;
          if (selectors === undefined || selectors === null) continue;
          const rules: PolicyRule[] = [];
          const seen = new Set<string>();
          const matching = roles
            .filter((r) => r.metadata.name !== role.metadata.name && selectors.some((s) => labelSelectorFromMeta(s).matches(r.metadata.labels)))
            .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
          for (const r of matching) {
            for (const rule of r.rules ?? []) {
              const k = JSON.stringify(rule);
              if (seen.has(k)) continue;
              seen.add(k);
              rules.push(rule);
            }
          }
          if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
          if (this.stopped) return;
          try {
            await this.store('clusterroles').patch('', role.metadata.name!, (current) => ({ ...current, rules }), {});
          } catch (err) {
            if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) this.logger.warn({ err, role: role.metadata.name }, 'clusterrole aggregation failed');
          }
        }
      } while (this.aggregateAgain && !this.stopped);
    } finally {
      this.aggregating = false;
    }
  }
}

/**
 * The RBAC stores, each write returning only once `index` has applied it
 * (dry runs return at once). Other stores are returned unchanged.
 */
export function syncedRbacStores(stores: RESTStore[], index: RbacIndex): RESTStore[] {
  return stores.map((store) => {
    const { group, resource } = store.type;
    if (group !== GROUP || !isRbacResource(resource)) return store;
    const written = async (object: KubeObject, dryRun: boolean | undefined): Promise<void> => {
      if (dryRun !== true) await index.awaitWritten(resource, object);
    };
    const synced: RESTStore = Object.create(store) as RESTStore;
    Object.assign(synced, {
      create: async (namespace: string, obj: KubeObject, options: WriteOptions) => {
        const created = await store.create(namespace, obj, options);
        await written(created, options.dryRun);
        return created;
      },
      update: async (namespace: string, name: string, obj: KubeObject, options: WriteOptions & { subresource?: string }) => {
        const result = await store.update(namespace, name, obj, options);
        await written(result.object, options.dryRun);
        return result;
      },
      patch: async (namespace: string, name: string, patch: (current: KubeObject) => KubeObject | Promise<KubeObject>, options: WriteOptions & { subresource?: string }) => {
        const patched = await store.patch(namespace, name, patch, options);
        await written(patched, options.dryRun);
        return patched;
      },
      delete: async (namespace: string, name: string, options: DeleteOptions) => {
        // The answer may be a Status without the object: the uid the index holds now names what goes.
        const uid = index.heldUid(resource, namespace, name);
        const outcome = await store.delete(namespace, name, options);
        if (options.dryRun !== true) await index.awaitDeleted(resource, namespace, name, uid, outcome.gone);
        return outcome;
      },
      deleteCollection: async (namespace: string, list: ListOptions, options: DeleteOptions) => {
        const deleted = await store.deleteCollection(namespace, list, options);
        if (options.dryRun !== true) await Promise.all(deleted.items.map((item) => index.awaitDeleted(resource, item.metadata.namespace ?? '', item.metadata.name ?? '', item.metadata.uid, item.metadata.deletionTimestamp === undefined)));
        return deleted;
      },
    });
    if (store.apply !== undefined) {
      const apply = store.apply.bind(store);
      synced.apply = async (namespace, name, config, options) => {
        const result = await apply(namespace, name, config, options);
        await written(result.object, options.dryRun);
        return result;
      };
    }
    return synced;
  });
}
