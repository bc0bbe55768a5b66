// apps/v1: its catalog entries (deployments, replica sets and stateful sets declare the scale subresource in their strategies).
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { deploymentStrategy } from './deployments.js';
import { replicaSetStrategy } from './replicasets.js';
import { statefulSetStrategy } from './statefulsets.js';
import { daemonSetStrategy } from './daemonsets.js';
import { controllerRevisionStrategy } from './controllerrevisions.js';

const apps = { group: 'apps', version: 'v1', plainKey: true } as const;

export function appsEntries(): CatalogEntry[] {
  return [
    entry({ ...apps, resource: 'deployments', kind: 'Deployment', singular: 'deployment', short: ['deploy'], categories: ['all'], strategy: deploymentStrategy }),
    entry({ ...apps, resource: 'replicasets', kind: 'ReplicaSet', singular: 'replicaset', short: ['rs'], categories: ['all'], strategy: replicaSetStrategy }),
    entry({ ...apps, resource: 'statefulsets', kind: 'StatefulSet', singular: 'statefulset', short: ['sts'], categories: ['all'], strategy: statefulSetStrategy }),
    entry({ ...apps, resource: 'daemonsets', kind: 'DaemonSet', singular: 'daemonset', short: ['ds'], categories: ['all'], strategy: daemonSetStrategy }),
    entry({ ...apps, resource: 'controllerrevisions', kind: 'ControllerRevision', singular: 'controllerrevision', strategy: controllerRevisionStrategy }),
  ];
}
