// Every verb on every resource apiary serves (src/registry/<group>/index.ts), one
// case per resource: create (the defaulted object), get, list, update with the
// current and a stale resourceVersion, the three patch types, a watch that
// replays the writes from the first resourceVersion, delete, get of the
// deleted object, deletecollection and the list after it. The Table form of
// a list (what kubectl prints) is compared too.
//
// Namespaces have a case of their own (namespaces.ts): their deletion is the
// namespace controller's.

import type { DiffCase, DiffRequest } from '../case.js';

interface Resource {
  /** Collection path with {ns}, e.g. /api/v1/namespaces/{ns}/configmaps. */
  collection: string;
  apiVersion: string;
  kind: string;
  /** The object's content besides apiVersion, kind and metadata. */
  content: Record<string, unknown>;
  /** Names for cluster-scoped objects must not collide between cases: they carry {ns}. */
  clusterScoped?: boolean;
  /** A strategic merge patch that changes the content (default: a label). */
  strategic?: Record<string, unknown>;
  /** The top-level fields an update sends back as the server returned them (spec with its defaults). */
  keep?: string[];
  /**
   * Query of the delete steps. Replication controllers orphan their pods by
   * default: the reference's garbage collector then removes the object at a
   * time of its choosing, so their case deletes in the background.
   */
  deleteQuery?: string;
  /** Deleted objects wait for a controller to remove its finalizer: the reads after a delete wait for it (up to 20 s). */
  finalizedByController?: boolean;
  /**
   * Finalizers the server adds on create, sent back by the update as a client sends what it read
   * (else the update removes them and a controller adds them back at a time no case can predict).
   */
  finalizers?: string[];
}

const CONTAINER = { name: 'main', image: 'registry.example/app:1' };
const POD_SPEC = { containers: [CONTAINER] };

const RESOURCES: Resource[] = [
  { collection: '/api/v1/namespaces/{ns}/configmaps', apiVersion: 'v1', kind: 'ConfigMap', content: { data: { color: 'blue' } }, strategic: { data: { size: 'large' } } },
  {
    collection: '/api/v1/namespaces/{ns}/secrets',
    apiVersion: 'v1',
    kind: 'Secret',
    content: { type: 'Opaque', data: { password: 'c2VjcmV0' }, stringData: { user: 'admin' } },
    strategic: { data: { token: 'dG9rZW4=' } },
  },
  { collection: '/api/v1/namespaces/{ns}/serviceaccounts', apiVersion: 'v1', kind: 'ServiceAccount', content: { automountServiceAccountToken: false } },
  {
    collection: '/api/v1/namespaces/{ns}/services',
    apiVersion: 'v1',
    kind: 'Service',
    content: { spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    strategic: { spec: { ports: [{ name: 'https', port: 443 }] } },
    keep: ['spec'],
  },
  {
    collection: '/api/v1/namespaces/{ns}/pods',
    apiVersion: 'v1',
    kind: 'Pod',
    content: { spec: POD_SPEC },
    strategic: { spec: { containers: [{ name: 'main', image: 'registry.example/app:2' }] } },
    keep: ['spec'],
  },
  {
    collection: '/api/v1/namespaces/{ns}/events',
    apiVersion: 'v1',
    kind: 'Event',
    content: {
      involvedObject: { kind: 'ConfigMap', namespace: '{ns}', name: 'settings', apiVersion: 'v1' },
      reason: 'Checked',
      message: 'settings checked',
      type: 'Normal',
      source: { component: 'differential' },
      count: 1,
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:00:00Z',
    },
    strategic: { count: 2, message: 'checked again' },
  },
  {
    collection: '/api/v1/namespaces/{ns}/endpoints',
    apiVersion: 'v1',
    kind: 'Endpoints',
    content: { subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] },
    strategic: { subsets: [{ addresses: [{ ip: '10.1.2.4' }], ports: [{ name: 'http', port: 8080 }] }] },
  },
  {
    collection: '/api/v1/nodes',
    apiVersion: 'v1',
    kind: 'Node',
    clusterScoped: true,
    content: { spec: { podCIDR: '10.244.1.0/24' } },
    strategic: { spec: { unschedulable: true } },
    keep: ['spec'],
  },
  {
    collection: '/api/v1/namespaces/{ns}/limitranges',
    apiVersion: 'v1',
    kind: 'LimitRange',
    content: { spec: { limits: [{ type: 'Container', default: { cpu: '200m', memory: '64Mi' }, defaultRequest: { cpu: '100m' } }] } },
    strategic: { spec: { limits: [{ type: 'Pod', max: { cpu: '2' } }] } },
    keep: ['spec'],
  },
  {
    collection: '/api/v1/namespaces/{ns}/resourcequotas',
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    content: { spec: { hard: { pods: '10', 'requests.cpu': '4' } } },
    strategic: { spec: { hard: { 'limits.memory': '8Gi' } } },
    keep: ['spec'],
  },
  {
    collection: '/api/v1/namespaces/{ns}/persistentvolumeclaims',
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    content: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'standard' } },
    keep: ['spec'],
    // the kubernetes.io/pvc-protection finalizer: a deleted claim goes when the pvc-protection controller removes it
    finalizedByController: true,
    finalizers: ['kubernetes.io/pvc-protection'],
  },
  {
    collection: '/api/v1/namespaces/{ns}/replicationcontrollers',
    apiVersion: 'v1',
    kind: 'ReplicationController',
    content: { spec: { replicas: 2, selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: POD_SPEC } } },
    strategic: { spec: { replicas: 3 } },
    keep: ['spec'],
    deleteQuery: '?propagationPolicy=Background',
  },
  {
    collection: '/apis/apps/v1/namespaces/{ns}/deployments',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    content: { spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: POD_SPEC } } },
    strategic: { spec: { template: { spec: { containers: [{ name: 'main', image: 'registry.example/app:2' }] } } } },
    keep: ['spec'],
  },
  {
    collection: '/apis/coordination.k8s.io/v1/namespaces/{ns}/leases',
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    content: { spec: { holderIdentity: 'node-a', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.000000Z' } },
    strategic: { spec: { holderIdentity: 'node-b', leaseTransitions: 1 } },
    keep: ['spec'],
  },
  // ValidatingAdmissionPolicies get a status from a controller (kube-controller-manager upstream) at a time of
  // its choosing, which a watch replay cannot compare: their case is in admission-policy.ts. Bindings have none.
  {
    collection: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    clusterScoped: true,
    content: { spec: { policyName: '{ns}-no-such-policy', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { never: '{ns}' } } } } },
    strategic: { spec: { validationActions: ['Warn'] } },
    keep: ['spec'],
  },
  {
    collection: '/apis/events.k8s.io/v1/namespaces/{ns}/events',
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    content: {
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'example.com/differential',
      reportingInstance: 'differential-1',
      action: 'Check',
      reason: 'Checked',
      regarding: { kind: 'ConfigMap', namespace: '{ns}', name: 'settings', apiVersion: 'v1' },
      note: 'settings checked',
      type: 'Normal',
    },
    strategic: { note: 'checked again' },
  },
];

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

function resourceCase(r: Resource): DiffCase {
  const plural = r.collection.split('/').pop()!;
  const group = r.apiVersion.includes('/') ? r.apiVersion.split('/')[0] : 'core';
  const name = (n: string): string => (r.clusterScoped ? `{ns}-${n}` : n);
  const object = (n: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    apiVersion: r.apiVersion,
    kind: r.kind,
    metadata: { name: name(n), labels: { case: '{ns}', ...labels }, ...extra },
    ...r.content,
  });
  const item = `${r.collection}/${name('one')}`;
  // Lists select the case's objects: cluster-scoped ones share the list with every other case,
  // and the reference's service account controller adds `default` to each namespace.
  const select = 'labelSelector=case%3D{ns}';
  const kept = Object.fromEntries((r.keep ?? []).map((k) => [k, `{kept_${k}}`]));
  const capture = { rv0: 'metadata.resourceVersion', ...Object.fromEntries((r.keep ?? []).map((k) => [`kept_${k}`, k])) };
  const steps: DiffRequest[] = [
    { title: 'create: the defaulted object', method: 'POST', path: r.collection, body: object('one', { tier: 'a' }), capture },
    { title: 'get', method: 'GET', path: item },
    { title: 'create a second one', method: 'POST', path: r.collection, body: object('two', { tier: 'b' }) },
    { title: 'list', method: 'GET', path: `${r.collection}?${select}` },
    { title: 'list as a Table (kubectl get)', method: 'GET', path: `${r.collection}?${select}`, headers: { accept: TABLE }, mask: ['^\\d+[smhd]$'] },
    { title: 'list by label', method: 'GET', path: `${r.collection}?labelSelector=case%3D{ns},tier%3Db` },
    { title: 'get with resourceVersion=0', method: 'GET', path: `${item}?resourceVersion=0`, capture: { rv1: 'metadata.resourceVersion' } },
    {
      title: 'update',
      method: 'PUT',
      path: item,
      body: { ...object('one', { tier: 'a', updated: 'yes' }, { resourceVersion: '{rv1}', ...(r.finalizers ? { finalizers: r.finalizers } : {}) }), ...kept },
    },
    {
      title: 'update with a stale resourceVersion',
      method: 'PUT',
      path: item,
      body: { ...object('one', { tier: 'a', stale: 'yes' }, { resourceVersion: '{rv1}' }), ...kept },
    },
    {
      title: 'merge patch',
      method: 'PATCH',
      path: item,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { metadata: { labels: { merged: 'yes' }, annotations: { note: 'merge' } } },
    },
    {
      title: 'json patch',
      method: 'PATCH',
      path: item,
      headers: { 'content-type': 'application/json-patch+json' },
      body: [
        { op: 'add', path: '/metadata/labels/json', value: 'yes' },
        { op: 'remove', path: '/metadata/labels/merged' },
      ],
    },
    {
      title: 'strategic merge patch',
      method: 'PATCH',
      path: item,
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: r.strategic ?? { metadata: { labels: { strategic: 'yes' } } },
    },
    { title: 'watch from the first resourceVersion: the writes since, in order', method: 'GET', path: `${r.collection}?watch=true&resourceVersion={rv0}&${select}`, watchEvents: 5 },
    { title: 'delete', method: 'DELETE', path: `${item}${r.deleteQuery ?? ''}` },
    { title: 'get the deleted object', method: 'GET', path: item, ...(r.finalizedByController ? { until: { path: 'code', equals: 404 } } : {}) },
    { title: 'deletecollection', method: 'DELETE', path: `${r.collection}?${select}${(r.deleteQuery ?? '').replace('?', '&')}` },
    {
      title: 'list after deletecollection',
      method: 'GET',
      path: `${r.collection}?${select}`,
      ...(r.finalizedByController ? { until: { path: 'items.0', equals: undefined } } : {}),
    },
  ];
  return { name: `${group}/${plural}: every verb`, steps };
}

export const cases: DiffCase[] = RESOURCES.map(resourceCase);
