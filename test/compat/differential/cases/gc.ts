// Deletion propagation: the finalizers the API server sets for
// propagationPolicy / orphanDependents and the resources' default policies
// (status codes, bodies), and the eventual state the garbage collector leaves
// (apiary's collector against kube-controller-manager's).

import type { DiffCase } from '../case.js';

const CM = '/api/v1/namespaces/{ns}/configmaps';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const cm = (name: string, meta: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...meta },
  data: { k: 'v' },
});
const release = (name: string): { method: 'PATCH'; path: string; headers: Record<string, string>; body: unknown } => ({
  method: 'PATCH',
  path: `${CM}/${name}`,
  headers: MERGE,
  body: { metadata: { finalizers: null } },
});
const rc = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'rc' },
  spec: { replicas: 0, selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } } },
};

export const cases: DiffCase[] = [
  {
    name: 'gc: finalizers set by DELETE options (dry run)',
    setup: [{ method: 'POST', path: CM, body: cm('plain') }],
    steps: [
      { title: 'Foreground adds foregroundDeletion', method: 'DELETE', path: `${CM}/plain?dryRun=All&propagationPolicy=Foreground` },
      { title: 'Orphan adds orphan', method: 'DELETE', path: `${CM}/plain?dryRun=All&propagationPolicy=Orphan` },
      { title: 'orphanDependents=true adds orphan', method: 'DELETE', path: `${CM}/plain?dryRun=All&orphanDependents=true` },
      { title: 'Background deletes at once', method: 'DELETE', path: `${CM}/plain?dryRun=All&propagationPolicy=Background` },
      { title: 'orphanDependents=false deletes at once (200)', method: 'DELETE', path: `${CM}/plain?dryRun=All&orphanDependents=false` },
      { title: 'policy in the body', method: 'DELETE', path: `${CM}/plain`, body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Foreground' } },
      { title: 'both orphanDependents and propagationPolicy', method: 'DELETE', path: `${CM}/plain?orphanDependents=true&propagationPolicy=Orphan` },
      { title: 'an unknown policy', method: 'DELETE', path: `${CM}/plain?propagationPolicy=Sideways` },
      { title: 'still there', method: 'GET', path: `${CM}/plain` },
    ],
  },
  {
    name: 'gc: replication controllers orphan by default on core/v1',
    setup: [{ method: 'POST', path: '/api/v1/namespaces/{ns}/replicationcontrollers', body: rc }],
    steps: [
      // Only metadata: a kube-controller-manager running the replication controller writes status meanwhile.
      { title: 'no policy: orphan', method: 'DELETE', path: '/api/v1/namespaces/{ns}/replicationcontrollers/rc?dryRun=All', select: 'metadata.finalizers' },
      { title: 'Background overrides the default', method: 'DELETE', path: '/api/v1/namespaces/{ns}/replicationcontrollers/rc?dryRun=All&propagationPolicy=Background' },
      { title: 'Foreground', method: 'DELETE', path: '/api/v1/namespaces/{ns}/replicationcontrollers/rc?dryRun=All&propagationPolicy=Foreground', select: 'metadata.finalizers' },
    ],
  },
  {
    name: 'gc: an object held by another finalizer (202, finalizer order, switching policy)',
    setup: [
      { method: 'POST', path: CM, body: cm('held', { finalizers: ['example.com/hold'] }) },
      { method: 'POST', path: CM, body: cm('held2', { finalizers: ['example.com/hold'] }) },
    ],
    steps: [
      { title: 'orphanDependents=false on an object that stays: 202', method: 'DELETE', path: `${CM}/held?orphanDependents=false` },
      { title: 'Foreground appends foregroundDeletion after the existing finalizer', method: 'DELETE', path: `${CM}/held2?propagationPolicy=Foreground` },
      { title: 'a second DELETE with Orphan swaps it for orphan', method: 'DELETE', path: `${CM}/held2?propagationPolicy=Orphan` },
    ],
    cleanup: [release('held'), release('held2')],
  },
  {
    name: 'gc: foreground deletion collects blocking dependents, then the owner',
    setup: [
      { method: 'POST', path: CM, body: cm('owner', { labels: { gc: 'fg' } }), capture: { ownerUid: 'metadata.uid' } },
      {
        method: 'POST',
        path: CM,
        body: cm('child', { labels: { gc: 'fg' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '{ownerUid}', blockOwnerDeletion: true }] }),
      },
      { method: 'DELETE', path: `${CM}/owner?propagationPolicy=Foreground` },
      // Owner and dependent carry the label: the list is empty once both are gone.
      { method: 'GET', path: `${CM}?labelSelector=gc%3Dfg`, until: { path: 'items', equals: [] } },
    ],
    steps: [
      { title: 'the owner is gone', method: 'GET', path: `${CM}/owner` },
      { title: 'its dependent is gone', method: 'GET', path: `${CM}/child` },
    ],
  },
  {
    name: 'gc: orphaning keeps dependents without the reference',
    setup: [
      { method: 'POST', path: CM, body: cm('owner', { labels: { gc: 'orphan-owner' } }), capture: { ownerUid: 'metadata.uid' } },
      { method: 'POST', path: CM, body: cm('child', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '{ownerUid}' }] }) },
      { method: 'DELETE', path: `${CM}/owner?propagationPolicy=Orphan` },
      { method: 'GET', path: `${CM}?labelSelector=gc%3Dorphan-owner`, until: { path: 'items', equals: [] } },
    ],
    steps: [{ title: 'the dependent stays, its ownerReferences gone', method: 'GET', path: `${CM}/child` }],
  },
  {
    name: 'gc: a dependent of a missing owner is collected',
    setup: [
      { method: 'POST', path: CM, body: cm('stray', { labels: { gc: 'stray' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '6a1f3c57-0000-4000-8000-000000000001' }] }) },
      { method: 'GET', path: `${CM}?labelSelector=gc%3Dstray`, until: { path: 'items', equals: [] } },
    ],
    steps: [{ title: 'collected', method: 'GET', path: `${CM}/stray` }],
  },
];
