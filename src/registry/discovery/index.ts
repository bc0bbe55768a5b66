// discovery.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { endpointSliceStrategy } from './endpointslices.js';

export function discoveryEntries(): CatalogEntry[] {
  return [entry({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', singular: 'endpointslice', strategy: endpointSliceStrategy })];
}
