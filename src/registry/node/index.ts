// node.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { runtimeClassStrategy } from './runtimeclasses.js';

export function nodeEntries(): CatalogEntry[] {
  return [entry({ group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', singular: 'runtimeclass', strategy: runtimeClassStrategy })];
}
