// A catalog entry: one built-in resource as the registry serves it. The facts
// discovery shows (kube-apiserver 1.32), the strategy that drives the generic
// store, and the hooks the entry declares instead of createRegistry naming
// resources:
// - keyResource: the key segment under the prefix (/registry/{keyResource}/…);
// - storedAs: the objects are another entry's, converted on every read and write;
// - wrapStorage: a storage wrapper around the entry's object store (services
//   allocate cluster IPs and node ports around their writes);
// - createSubresource: POST subresources served beside the store (pods/binding,
//   pods/eviction), built once every store exists.
// The group indexes (registry/<group>/index.ts) build their entries with entry().

import type { KubeObject } from '../machinery/meta.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { RESTStore, ResourceType, Verb } from './rest.js';
import type { Strategy, StrategyContext } from './strategy.js';
import type { Conversion } from './converting-store.js';
import type { RegistryOptions } from './index.js';

/** What an entry's hooks get from the registry being built. */
export interface RegistryContext extends StrategyContext {
  options: RegistryOptions;
  /** The store of a resource, once every store exists (call it from the returned functions, not while building). */
  storeFor(group: string, resource: string): RESTStore | undefined;
}

export interface CatalogEntry {
  type: ResourceType;
  strategy: Strategy;
  /** Key segment under the prefix; default `{group}/{resource}` (core and upstream's plain groups: `{resource}`). */
  keyResource?: string;
  /**
   * The objects are another entry's (listed before this one), stored in its
   * form under its keys and converted on every read and write.
   */
  storedAs?: { group: string; resource: string; conversion: Conversion };
  /** Drops unknown fields, returning their paths (default: by the schema registry). */
  prune?: (obj: KubeObject) => string[];
  /** Wraps the entry's object storage (after the watch cache, before the generic store). */
  wrapStorage?(storage: ObjectStore, ctx: RegistryContext): ObjectStore;
  /** POST subresources of this resource (served as the store's createSubresource). */
  createSubresource?(store: RESTStore, ctx: RegistryContext): NonNullable<RESTStore['createSubresource']>;
}

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const NO_COLLECTION_DELETE: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** One line of a group's index. */
export interface EntryLine {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular: string;
  short?: string[];
  categories?: string[];
  verbs?: Verb[];
  strategy: Strategy;
  /** Keys are /registry/{resource}/… as upstream's (core, apps, batch, …; admissionregistration). */
  plainKey?: boolean;
  storedAs?: CatalogEntry['storedAs'];
  wrapStorage?: CatalogEntry['wrapStorage'];
  createSubresource?: CatalogEntry['createSubresource'];
  /** Connect subresources served by the kubelet upstream (pods/log, nodes/proxy, …): listed in discovery only. */
  connect?: string[];
}

export function entry(l: EntryLine): CatalogEntry {
  const sub = Object.keys(l.strategy.subresources ?? {});
  if (l.strategy.scale !== undefined) sub.push('scale');
  sub.push(...(l.connect ?? []));
  const out: CatalogEntry = {
    type: {
      group: l.group,
      version: l.version,
      resource: l.resource,
      kind: l.kind,
      listKind: `${l.kind}List`,
      singularName: l.singular,
      namespaced: l.strategy.namespaced,
      verbs: l.verbs ?? ALL_VERBS,
      shortNames: l.short ?? [],
      categories: l.categories ?? [],
      subresources: sub,
    },
    strategy: l.strategy,
    keyResource: l.plainKey === true ? l.resource : `${l.group}/${l.resource}`,
  };
  if (l.storedAs !== undefined) out.storedAs = l.storedAs;
  if (l.wrapStorage !== undefined) out.wrapStorage = l.wrapStorage;
  if (l.createSubresource !== undefined) out.createSubresource = l.createSubresource;
  return out;
}
