// The registry: one generic store per built-in resource of the catalog, over
// one KV backend. The HTTP layer finds stores with storeFor(group, resource).

import type { Backend } from '../storage/interface.js';
import { BackendObjectStore } from '../storage/object-store.js';
import type { Clock } from '../machinery/names.js';
import type { AdmissionPlugin } from '../admission/interface.js';
import type { RESTStore } from './rest.js';
import { GenericStore } from './generic-store.js';
import { catalog } from './catalog.js';
import { pruneObject } from '../api/schema/prune.js';

export interface RegistryOptions {
  backend: Backend;
  /** Key prefix, default "/registry" (kube-apiserver's --etcd-prefix). */
  prefix?: string;
  clock?: Clock;
  uid?: () => string;
  admission?: AdmissionPlugin[];
}

export interface Registry {
  stores: RESTStore[];
  storeFor(group: string, resource: string): RESTStore | undefined;
  /** Stops the registry's own work; the backend belongs to the caller. */
  close(): Promise<void>;
}

export function createRegistry(options: RegistryOptions): Registry {
  const byKey = new Map<string, RESTStore>();
  const stores: RESTStore[] = [];
  for (const { type, strategy } of catalog) {
    const storageOptions: ConstructorParameters<typeof BackendObjectStore>[0] = {
      backend: options.backend,
      resource: { group: type.group, resource: type.resource },
      namespaced: type.namespaced,
      // Two groups may serve one resource name (events): keep their keys apart.
      keyResource: type.group === '' || type.group === 'apps' || type.group === 'coordination.k8s.io' ? type.resource : `${type.group}/${type.resource}`,
    };
    if (options.prefix !== undefined) storageOptions.prefix = options.prefix;
    const storeOptions: ConstructorParameters<typeof GenericStore>[0] = {
      type,
      strategy,
      storage: new BackendObjectStore(storageOptions),
      prune: (obj) => pruneObject(type.group, type.version, type.kind, obj),
    };
    if (options.clock !== undefined) storeOptions.clock = options.clock;
    if (options.uid !== undefined) storeOptions.uid = options.uid;
    if (options.admission !== undefined) storeOptions.admission = options.admission;
    const store = new GenericStore(storeOptions);
    stores.push(store);
    byKey.set(`${type.group}/${type.resource}`, store);
  }
  return {
    stores,
    storeFor: (group, resource) => byKey.get(`${group}/${resource}`),
    close: async () => {},
  };
}
