// batch/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { jobStrategy } from './jobs.js';
import { cronJobStrategy } from './cronjobs.js';

const batch = { group: 'batch', version: 'v1', plainKey: true } as const;

export function batchEntries(): CatalogEntry[] {
  return [
    entry({ ...batch, resource: 'jobs', kind: 'Job', singular: 'job', categories: ['all'], strategy: jobStrategy }),
    entry({ ...batch, resource: 'cronjobs', kind: 'CronJob', singular: 'cronjob', short: ['cj'], categories: ['all'], strategy: cronJobStrategy }),
  ];
}
