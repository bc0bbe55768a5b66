// The core group ("", v1): its catalog entries, in discovery's order.
// services wrap their storage with cluster IP and node port allocation; pods
// serve binding and eviction as POST subresources.
import { entry, NO_COLLECTION_DELETE, type CatalogEntry, type RegistryContext } from '../catalog-entry.js';
import type { StrategyContext } from '../strategy.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { ServiceIPAllocator } from '../service-ip-allocator.js';
import { ServiceNodePortAllocator } from '../service-node-port-allocator.js';
import { AllocatingServiceStore } from './service-storage.js';
import { podSubresources } from './pod-subresources.js';
import { namespaceStrategy } from './namespaces.js';
import { configMapStrategy } from './configmaps.js';
import { secretStrategy } from './secrets.js';
import { serviceAccountStrategy } from './serviceaccounts.js';
import { serviceStrategy } from './services.js';
import { podStrategy } from './pods.js';
import { eventStrategy } from './events.js';
import { endpointsStrategy } from './endpoints.js';
import { nodeStrategy } from './nodes.js';
import { limitRangeStrategy } from './limitranges.js';
import { resourceQuotaStrategy } from './resourcequotas.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaims.js';
import { replicationControllerStrategy } from './replicationcontrollers.js';
import { persistentVolumeStrategy } from './persistentvolumes.js';
import { podTemplateStrategy } from './podtemplates.js';
import { bindingsStore } from './bindings.js';
import { componentStatusesStore } from './componentstatuses.js';
import type { RESTStore } from '../rest.js';

const core = { group: '', version: 'v1', plainKey: true } as const;

/** Cluster IPs and node ports: one persisted bitmap each, taken and freed around service writes. */
function allocatingServices(storage: ObjectStore, { options }: RegistryContext): ObjectStore {
  const ips = new ServiceIPAllocator({
    backend: options.backend,
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.serviceClusterIpRange !== undefined ? { cidr: options.serviceClusterIpRange } : {}),
  });
  const nodePorts = new ServiceNodePortAllocator({
    backend: options.backend,
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.serviceNodePortRange !== undefined ? { range: options.serviceNodePortRange } : {}),
  });
  return new AllocatingServiceStore(storage, ips, nodePorts);
}

export function coreEntries(ctx: StrategyContext): CatalogEntry[] {
  return [
    entry({ ...core, resource: 'namespaces', kind: 'Namespace', singular: 'namespace', short: ['ns'], verbs: NO_COLLECTION_DELETE, strategy: namespaceStrategy }),
    entry({ ...core, resource: 'configmaps', kind: 'ConfigMap', singular: 'configmap', short: ['cm'], strategy: configMapStrategy }),
    entry({ ...core, resource: 'secrets', kind: 'Secret', singular: 'secret', strategy: secretStrategy }),
    entry({ ...core, resource: 'serviceaccounts', kind: 'ServiceAccount', singular: 'serviceaccount', short: ['sa'], strategy: serviceAccountStrategy }),
    entry({ ...core, resource: 'services', kind: 'Service', singular: 'service', short: ['svc'], categories: ['all'], strategy: serviceStrategy,
      wrapStorage: allocatingServices, connect: ['proxy'] }),
    entry({ ...core, resource: 'pods', kind: 'Pod', singular: 'pod', short: ['po'], categories: ['all'], strategy: podStrategy,
      connect: ['attach', 'exec', 'log', 'portforward', 'proxy'],
      // binding and eviction act on pods (and, for eviction, on the budgets that select them).
      createSubresource: (pods, registry) =>
        podSubresources({ pods, budgets: () => registry.storeFor('policy', 'poddisruptionbudgets'), clock: registry.clock }) }),
    entry({ ...core, resource: 'events', kind: 'Event', singular: 'event', short: ['ev'], strategy: eventStrategy }),
    entry({ ...core, resource: 'endpoints', kind: 'Endpoints', singular: 'endpoints', short: ['ep'], strategy: endpointsStrategy }),
    entry({ ...core, resource: 'nodes', kind: 'Node', singular: 'node', short: ['no'], strategy: nodeStrategy, connect: ['proxy'] }),
    entry({ ...core, resource: 'limitranges', kind: 'LimitRange', singular: 'limitrange', short: ['limits'], strategy: limitRangeStrategy }),
    entry({ ...core, resource: 'resourcequotas', kind: 'ResourceQuota', singular: 'resourcequota', short: ['quota'], strategy: resourceQuotaStrategy }),
    entry({ ...core, resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', singular: 'persistentvolumeclaim', short: ['pvc'], strategy: persistentVolumeClaimStrategy }),
    entry({ ...core, resource: 'replicationcontrollers', kind: 'ReplicationController', singular: 'replicationcontroller', short: ['rc'], categories: ['all'], strategy: replicationControllerStrategy }),
    entry({ ...core, resource: 'persistentvolumes', kind: 'PersistentVolume', singular: 'persistentvolume', short: ['pv'], strategy: persistentVolumeStrategy(ctx) }),
    entry({ ...core, resource: 'podtemplates', kind: 'PodTemplate', singular: 'podtemplate', strategy: podTemplateStrategy }),
  ];
}

/** The core resources with no storage of their own: bindings (binds through pods/binding) and componentstatuses (the store's health). */
export function coreUnstoredStores(ctx: RegistryContext): RESTStore[] {
  const { backend } = ctx.options;
  return [
    bindingsStore(() => ctx.storeFor('', 'pods')?.createSubresource),
    componentStatusesStore(() => backend.currentRevision()),
  ];
}
