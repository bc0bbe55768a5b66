// policy/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { podDisruptionBudgetStrategy } from './poddisruptionbudgets.js';

export function policyEntries(): CatalogEntry[] {
  return [
    entry({ group: 'policy', version: 'v1', plainKey: true, resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', singular: 'poddisruptionbudget', short: ['pdb'], strategy: podDisruptionBudgetStrategy }),
  ];
}
