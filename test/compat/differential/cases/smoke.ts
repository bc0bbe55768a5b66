import type { DiffCase } from '../case.js';
export const cases: DiffCase[] = [
  {
    name: 'smoke',
    steps: [
      { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } } },
      { method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/a' },
      { method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/missing' },
    ],
  },
];
