// apiregistration.k8s.io/v1: its catalog entry (the aggregator's APIServices; src/server/aggregator serves what they register).
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { apiServiceStrategy } from './apiservices.js';

export function apiregistrationEntries(): CatalogEntry[] {
  return [
    entry({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', singular: 'apiservice', categories: ['api-extensions'], strategy: apiServiceStrategy }),
  ];
}
