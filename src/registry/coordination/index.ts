// coordination.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { leaseStrategy } from './leases.js';

export function coordinationEntries(): CatalogEntry[] {
  return [entry({ group: 'coordination.k8s.io', version: 'v1', plainKey: true, resource: 'leases', kind: 'Lease', singular: 'lease', strategy: leaseStrategy })];
}
