// PersistentVolumeClaims and the kubernetes.io/pvc-protection finalizer:
// StorageObjectInUseProtection admission adds it on create (after the client's
// own finalizers), and the pvc-protection controller removes it from a deleted
// claim once no scheduled pod uses the claim. The pod is made in setup (its
// create answer differs in admission plugins apiary lacks) and compared only
// by kind when deleted.

import type { DiffCase } from '../case.js';

const PVC = '/api/v1/namespaces/{ns}/persistentvolumeclaims';
const claim = (name: string, finalizers?: string[]): unknown => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'standard' },
});

export const cases: DiffCase[] = [
  {
    name: 'storage: the pvc-protection finalizer holds a claim a scheduled pod uses',
    setup: [
      {
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'user' },
          spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'registry.example/app:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] },
        },
      },
    ],
    steps: [
      { title: 'create: the finalizer is added', method: 'POST', path: PVC, body: claim('data') },
      { title: "create with the client's finalizers: appended after them", method: 'POST', path: `${PVC}?dryRun=All`, body: claim('own', ['example.com/keep']) },
      { title: 'create naming it already: not added twice', method: 'POST', path: `${PVC}?dryRun=All`, body: claim('twice', ['kubernetes.io/pvc-protection']) },
      { title: 'delete: Terminating, the finalizer stays', method: 'DELETE', path: `${PVC}/data` },
      { title: 'still there while the pod uses it', method: 'GET', path: `${PVC}/data` },
      { title: 'force-delete the pod', method: 'DELETE', path: '/api/v1/namespaces/{ns}/pods/user?gracePeriodSeconds=0', select: 'kind' },
      { title: 'then the claim goes', method: 'GET', path: `${PVC}/data`, until: { path: 'code', equals: 404 } },
    ],
  },
];
