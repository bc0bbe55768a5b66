// The registry: one generic store per built-in resource of the catalog, over
// one KV backend. The HTTP layer finds stores with storeFor(group, resource).
// By default every resource's reads and watches go through a watch cache
// (storage/cacher): createRegistry starts them all, close() stops their
// backend watches. `watchCache: false` wires the direct backend path instead.
// A catalog entry with `storedAs` gets no storage of its own: it converts
// another entry's (one watch cache, one set of keys for both API groups).
// Entries may come from outside the catalog (`extraEntries`: the
// CustomResourceDefinition kind from apiextensions/), and stores may be
// installed and removed while serving (custom resources, one store per served
// version): `generation()` changes on every such change, so discovery and
// OpenAPI know to rebuild.

import type { Backend } from '../storage/interface.js';
import { BackendObjectStore, type ObjectStore } from '../storage/object-store.js';
import { CachedObjectStore, type WatchCacheOptions } from '../storage/cacher/cacher.js';
import { ListMemoBudget } from '../storage/cacher/list-memo.js';
import { newUid, systemClock, type Clock } from '../machinery/names.js';
import type { AdmissionPlugin } from './admission.js';
import type { RESTStore } from './rest.js';
import type { Strategy } from './strategy.js';
import { GenericStore } from './generic-store.js';
import { builtInCatalog, builtInUnstoredStores } from './catalog.js';
import type { CatalogEntry, RegistryContext } from './catalog-entry.js';
import { ConvertingObjectStore } from './converting-store.js';
import { pruneObject } from '../api/schema/prune.js';
import { applySchemaFor } from '../api/schema/apply-schema.js';
import { hasStatus, specFieldNames } from '../api/schema/index.js';
import { builtInTypeCheck, decodeStoredProtobuf, servedScheme } from './stored-type.js';

export type { CatalogEntry } from './catalog-entry.js';

export interface RegistryOptions {
  backend: Backend;
  /** Key prefix, default "/registry" (kube-apiserver's --etcd-prefix). */
  prefix?: string;
  clock?: Clock;
  uid?: () => string;
  admission?: AdmissionPlugin[];
  /** The watch cache's settings, or false to read and watch the backend directly (default: on). */
  watchCache?: WatchCacheOptions | false;
  /** Interval of watch BOOKMARK events (default 60 s). */
  bookmarkIntervalMs?: number;
  /** The service CIDR cluster IPs come from (--service-cluster-ip-range, default 10.0.0.0/24; IPv4 only). */
  serviceClusterIpRange?: string;
  /** The range node ports come from (--service-node-port-range, default 30000-32767). */
  serviceNodePortRange?: string;
  /** Entries served beside the catalog's, built the same way (apiextensions' CRD kind). */
  extraEntries?: CatalogEntry[];
}

export interface Registry {
  /** Every served store: the catalog's, then those installed at run time. */
  stores: RESTStore[];
  /** The store of a resource; with `version`, the one serving that version (else the first one found). */
  storeFor(group: string, resource: string, version?: string): RESTStore | undefined;
  /** Serves `stores` (one group/resource, one store per version) under `key`, replacing what `key` served before; `release` runs when they go. */
  install(key: string, stores: RESTStore[], release?: () => void): void;
  /** Stops serving what `install(key, …)` added. */
  uninstall(key: string): void;
  /** Changes whenever the set of served stores does. */
  generation(): number;
  /** The options the registry was built with (backend, prefix, clock, …), for stores built later. */
  readonly options: RegistryOptions;
  /** Resolves once every watch cache holds its resource (immediately without caches). */
  ready: Promise<void>;
  /** Stops the registry's own work (the watch caches' backend watches); the backend belongs to the caller. */
  close(): Promise<void>;
}

/**
 * Upstream's reset fields per (sub)resource: what a write through it cannot
 * change, so nobody owns it there. Main resource: status (kinds with one);
 * /status: everything else at the top level; a strategy may say more.
 */
function resetFieldsOf(group: string, version: string, kind: string, strategy: Strategy): Record<string, string[][]> {
  const out: Record<string, string[][]> = {};
  if (hasStatus(group, version, kind)) out[''] = [['status']];
  for (const [name, sub] of Object.entries(strategy.subresources ?? {})) {
    out[name] = sub.resetFields ?? (name === 'status' ? specFieldNames(group, version, kind).map((f) => [f]) : []);
  }
  if (strategy.resetFields !== undefined) out[''] = strategy.resetFields;
  return out;
}

export function createRegistry(options: RegistryOptions): Registry {
  const byKey = new Map<string, RESTStore>();
  const stores: RESTStore[] = [];
  const caches: CachedObjectStore[] = [];
  // Every resource's cache keeps its shared objects within one budget (see list-memo.ts).
  const cacheOptions: WatchCacheOptions =
    options.watchCache === false ? {} : { ...options.watchCache, listMemo: options.watchCache?.listMemo ?? new ListMemoBudget(options.watchCache?.listMemoBytes) };
  const storages = new Map<string, ObjectStore>();
  const clock = options.clock ?? systemClock;
  const context: RegistryContext = {
    clock,
    uid: options.uid ?? newUid,
    options,
    storeFor: (group, resource) => byKey.get(`${group}/${resource}`),
  };
  const entries = [...builtInCatalog(context), ...(options.extraEntries ?? [])];
  const postSubresources: { build: NonNullable<CatalogEntry['createSubresource']>; store: RESTStore }[] = [];
  const scheme = servedScheme(entries);
  for (const entry of entries) {
    const { type, strategy, storedAs, prune } = entry;
    const storageOptions: ConstructorParameters<typeof BackendObjectStore>[0] = {
      backend: options.backend,
      resource: { group: type.group, resource: type.resource },
      namespaced: type.namespaced,
      // Two groups serving one resource name keep their keys apart (events.k8s.io
      // events are not two: they are stored as core events, see storedAs).
      keyResource: entry.keyResource ?? `${type.group}/${type.resource}`,
      // A stored value of another type is a decode error, as upstream's storage codec.
      decoders: { typeCheck: builtInTypeCheck(entry, entries, scheme), protobuf: decodeStoredProtobuf },
    };
    if (options.prefix !== undefined) storageOptions.prefix = options.prefix;
    let storage: ObjectStore;
    if (storedAs !== undefined) {
      const stored = storages.get(`${storedAs.group}/${storedAs.resource}`);
      if (stored === undefined) throw new Error(`${type.group}/${type.resource} is stored as ${storedAs.group}/${storedAs.resource}, which the catalog lists after it`);
      storage = new ConvertingObjectStore(storageOptions.resource, stored, storedAs.conversion);
    } else if (options.watchCache === false) storage = new BackendObjectStore(storageOptions);
    else {
      const cached = new CachedObjectStore({ ...storageOptions, cache: cacheOptions });
      caches.push(cached);
      storage = cached;
    }
    // The first entry of a group/resource owns its storage (a later version converts it).
    if (!storages.has(`${type.group}/${type.resource}`)) storages.set(`${type.group}/${type.resource}`, storage);
    if (entry.wrapStorage !== undefined) storage = entry.wrapStorage(storage, context);
    const storeOptions: ConstructorParameters<typeof GenericStore>[0] = {
      type,
      strategy,
      storage,
      prune: prune ?? ((obj) => pruneObject(type.group, type.version, type.kind, obj)),
      pruneIsDecoding: prune !== undefined,
    };
    const applySchema = applySchemaFor(type.group, type.version, type.kind);
    if (applySchema !== undefined) {
      storeOptions.applySchema = applySchema;
      storeOptions.resetFields = resetFieldsOf(type.group, type.version, type.kind, strategy);
    }
    storeOptions.clock = clock;
    storeOptions.uid = context.uid;
    if (options.admission !== undefined) storeOptions.admission = options.admission;
    if (options.bookmarkIntervalMs !== undefined) storeOptions.bookmarkIntervalMs = options.bookmarkIntervalMs;
    const store = new GenericStore(storeOptions);
    stores.push(store);
    if (entry.createSubresource !== undefined) postSubresources.push({ build: entry.createSubresource, store });
    // One resource served in several versions (autoscaling v2 and v1): the first listed answers version-less lookups.
    if (!byKey.has(`${type.group}/${type.resource}`)) byKey.set(`${type.group}/${type.resource}`, store);
  }
  // POST subresources (pods/binding, pods/eviction) may look up other stores: built once all exist.
  for (const { build, store } of postSubresources) store.createSubresource = build(store, context);
  for (const store of builtInUnstoredStores(context)) {
    stores.push(store);
    byKey.set(`${store.type.group}/${store.type.resource}`, store);
  }
  // A cache that fails to list retries on its own; reads fall back to the backend meanwhile.
  const ready = Promise.all(caches.map((c) => c.start().catch(() => c.restartLater()))).then(() => undefined);
  const builtIn = stores.length;
  // group → version → resource → store: the request's strings (kept per path, request-info.ts) hash once, no key is built per lookup.
  const byVersion = new Map<string, Map<string, Map<string, RESTStore>>>();
  const addVersioned = (s: RESTStore): void => {
    let versions = byVersion.get(s.type.group);
    if (versions === undefined) byVersion.set(s.type.group, (versions = new Map()));
    let resources = versions.get(s.type.version);
    if (resources === undefined) versions.set(s.type.version, (resources = new Map()));
    resources.set(s.type.resource, s);
  };
  for (const s of stores) addVersioned(s);
  const installed = new Map<string, { stores: RESTStore[]; release: (() => void) | undefined }>();
  let generation = 0;
  const rebuild = (): void => {
    stores.length = builtIn;
    for (const entry of installed.values()) stores.push(...entry.stores);
    byKey.clear();
    byVersion.clear();
    for (const s of stores) {
      const k = `${s.type.group}/${s.type.resource}`;
      if (!byKey.has(k)) byKey.set(k, s);
      addVersioned(s);
    }
    generation++;
  };
  const uninstall = (key: string): void => {
    const entry = installed.get(key);
    if (entry === undefined) return;
    installed.delete(key);
    rebuild();
    entry.release?.();
  };
  return {
    stores,
    storeFor: (group, resource, version) =>
      (version !== undefined ? byVersion.get(group)?.get(version)?.get(resource) : undefined) ?? byKey.get(`${group}/${resource}`),
    install(key, added, release) {
      const previous = installed.get(key);
      installed.set(key, { stores: added, release });
      rebuild();
      // The previous stores' resources (a cache they shared with the new ones) are released only if not reused.
      if (previous?.release !== undefined && previous.release !== release) previous.release();
    },
    uninstall,
    generation: () => generation,
    options,
    ready,
    close: async () => {
      for (const key of [...installed.keys()]) uninstall(key);
      for (const cache of caches) cache.stop();
    },
  };
}
