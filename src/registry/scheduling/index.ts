// scheduling.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { priorityClassStrategy } from './priorityclasses.js';

export function schedulingEntries(): CatalogEntry[] {
  return [entry({ group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', singular: 'priorityclass', short: ['pc'], strategy: priorityClassStrategy })];
}
