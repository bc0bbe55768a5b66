// Namespaces (every verb, the Terminating phase, /finalize and /status,
// NamespaceLifecycle admission), the status subresources, and watches:
// initial events, bookmarks, streaming lists, selectors, named watches.

import type { DiffCase, DiffRequest } from '../case.js';

const CM = '/api/v1/namespaces/{ns}/configmaps';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const cm = (name: string, data: Record<string, string> = { k: 'v' }, meta: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...meta },
  data,
});
const namespace = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { case: '{ns}' } },
  ...extra,
});
const REPLICATION_CONTROLLER = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'rc' },
  spec: { replicas: 2, selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
};
const deployment = (name: string): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] } },
  },
});

/** The namespace {ns}-held is kept Terminating by a configmap with a finalizer (released in cleanup). */
const HELD = '/api/v1/namespaces/{ns}-held';
const releaseHeld: DiffRequest = {
  method: 'PATCH',
  path: `${HELD}/configmaps/pin`,
  headers: MERGE,
  body: { metadata: { finalizers: null } },
};

export const cases: DiffCase[] = [
  {
    name: 'namespaces: every verb',
    steps: [
      { title: 'create', method: 'POST', path: '/api/v1/namespaces', body: namespace('{ns}-a'), capture: { rv0: 'metadata.resourceVersion' } },
      { title: 'get', method: 'GET', path: '/api/v1/namespaces/{ns}-a' },
      { title: 'list by label', method: 'GET', path: '/api/v1/namespaces?labelSelector=case%3D{ns}' },
      { title: 'list by name', method: 'GET', path: '/api/v1/namespaces?fieldSelector=metadata.name%3D{ns}-a' },
      { title: 'field selector on status.phase', method: 'GET', path: '/api/v1/namespaces?fieldSelector=status.phase%3DActive,metadata.name%3D{ns}-a' },
      { title: 'list as a Table', method: 'GET', path: '/api/v1/namespaces?labelSelector=case%3D{ns}', headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, mask: ['^\\d+[smhd]$'] },
      { title: 'update (labels)', method: 'PUT', path: '/api/v1/namespaces/{ns}-a', body: namespace('{ns}-a', { metadata: { name: '{ns}-a', labels: { case: '{ns}', updated: 'yes' } } }) },
      { title: 'merge patch', method: 'PATCH', path: '/api/v1/namespaces/{ns}-a', headers: MERGE, body: { metadata: { annotations: { note: 'x' } } } },
      { title: 'strategic merge patch of spec.finalizers', method: 'PATCH', path: '/api/v1/namespaces/{ns}-a', headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { finalizers: ['example.com/extra'] } } },
      { title: 'status cannot go Terminating by update', method: 'PUT', path: '/api/v1/namespaces/{ns}-a/status', body: namespace('{ns}-a', { status: { phase: 'Terminating' } }) },
      { title: 'get status', method: 'GET', path: '/api/v1/namespaces/{ns}-a/status' },
      { title: 'finalize with an invalid finalizer', method: 'PUT', path: '/api/v1/namespaces/{ns}-a/finalize', body: namespace('{ns}-a', { spec: { finalizers: ['Bad Finalizer'] } }) },
      { title: 'finalize sets spec.finalizers', method: 'PUT', path: '/api/v1/namespaces/{ns}-a/finalize', body: namespace('{ns}-a', { spec: { finalizers: ['kubernetes', 'example.com/extra'] } }) },
      { title: 'bad namespace name', method: 'POST', path: '/api/v1/namespaces', body: namespace('Bad.Name') },
      { title: 'create a namespace that exists', method: 'POST', path: '/api/v1/namespaces', body: namespace('{ns}-a') },
      { title: 'name mismatch', method: 'PUT', path: '/api/v1/namespaces/{ns}-a', body: namespace('{ns}-b') },
      { title: 'watch from the first resourceVersion', method: 'GET', path: '/api/v1/namespaces?watch=true&resourceVersion={rv0}&labelSelector=case%3D{ns}', watchEvents: 4 },
      { title: 'delete: Terminating', method: 'DELETE', path: '/api/v1/namespaces/{ns}-a' },
      { title: 'a namespace in a namespaced path has no route', method: 'GET', path: '/api/v1/namespaces/{ns}/namespaces/x' },
      { title: 'deleting a system namespace is forbidden', method: 'DELETE', path: '/api/v1/namespaces/kube-system?dryRun=All' },
      { title: 'deleting default is forbidden', method: 'DELETE', path: '/api/v1/namespaces/default?dryRun=All' },
    ],
    cleanup: [{ method: 'DELETE', path: '/api/v1/namespaces/{ns}-a' }],
  },
  {
    name: 'namespaces: lifecycle admission',
    setup: [
      { method: 'POST', path: '/api/v1/namespaces', body: namespace('{ns}-held') },
      { method: 'POST', path: `${HELD}/configmaps`, body: cm('pin', { k: 'v' }, { finalizers: ['example.com/hold'] }) },
      { method: 'DELETE', path: HELD },
      // The namespace controller has tried to empty it: its five deletion conditions are set, the pin is marked.
      { method: 'GET', path: HELD, until: { path: 'status.conditions.length', equals: 5 } },
      { method: 'GET', path: `${HELD}/configmaps/pin`, until: { path: 'metadata.deletionGracePeriodSeconds', equals: 0 } },
    ],
    steps: [
      { title: 'create in a terminating namespace', method: 'POST', path: `${HELD}/configmaps`, body: cm('late') },
      { title: 'create a deployment in a terminating namespace', method: 'POST', path: `${HELD}/deployments`.replace('/api/v1/', '/apis/apps/v1/'), body: deployment('late') },
      { title: 'dryRun create in a terminating namespace', method: 'POST', path: `${HELD}/configmaps?dryRun=All`, body: cm('late') },
      { title: 'updates in a terminating namespace are allowed', method: 'PATCH', path: `${HELD}/configmaps/pin`, headers: MERGE, body: { data: { k: 'still' } } },
      { title: 'delete a namespace that is already terminating', method: 'DELETE', path: HELD },
      { title: 'create in a namespace that does not exist', method: 'POST', path: '/api/v1/namespaces/{ns}-nowhere/configmaps', body: cm('x') },
      { title: 'create a namespace in a terminating namespace path', method: 'POST', path: '/api/v1/namespaces', body: namespace('{ns}-held') },
    ],
    cleanup: [releaseHeld],
  },
  {
    name: 'status subresources',
    setup: [
      { method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/deployments', body: deployment('web'), capture: { rv: 'metadata.resourceVersion' } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/resourcequotas', body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '5' } } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/replicationcontrollers', body: REPLICATION_CONTROLLER },
      { method: 'POST', path: '/api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: '{ns}-node' } } },
    ],
    steps: [
      { title: 'get deployment status', method: 'GET', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status' },
      {
        title: 'patch deployment status: spec changes are ignored',
        method: 'PATCH',
        path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status',
        headers: MERGE,
        body: { spec: { replicas: 5 }, status: { replicas: 1, observedGeneration: 1 } },
      },
      {
        title: 'patch deployment: status changes are ignored',
        method: 'PATCH',
        path: '/apis/apps/v1/namespaces/{ns}/deployments/web',
        headers: MERGE,
        body: { spec: { replicas: 3 }, status: { replicas: 9 } },
      },
      {
        title: 'invalid deployment status',
        method: 'PATCH',
        path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status',
        headers: MERGE,
        body: { status: { replicas: -1 } },
      },
      { title: 'put deployment status with a stale resourceVersion', method: 'PUT', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', body: { ...deployment('web'), metadata: { name: 'web', resourceVersion: '{rv}' } } },
      {
        title: 'pod status: conditions',
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}/pods/p/status',
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: { status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } },
      },
      { title: 'quota status: hard and used', method: 'PATCH', path: '/api/v1/namespaces/{ns}/resourcequotas/q/status', headers: MERGE, body: { status: { hard: { pods: '5' }, used: { pods: '1' } } } },
      { title: 'invalid quota status', method: 'PATCH', path: '/api/v1/namespaces/{ns}/resourcequotas/q/status', headers: MERGE, body: { status: { used: { pods: 'lots' } } } },
      { title: 'service status: load balancer ingress', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/s/status', headers: MERGE, body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } } },
      { title: 'the deployment after it all', method: 'GET', path: '/apis/apps/v1/namespaces/{ns}/deployments/web' },
      { title: 'replication controller status', method: 'PATCH', path: '/api/v1/namespaces/{ns}/replicationcontrollers/rc/status', headers: MERGE, body: { status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 } } },
      { title: 'invalid replication controller status', method: 'PATCH', path: '/api/v1/namespaces/{ns}/replicationcontrollers/rc/status', headers: MERGE, body: { status: { replicas: 1, readyReplicas: 3 } } },
      {
        title: 'node status: capacity and conditions',
        method: 'PATCH',
        path: '/api/v1/nodes/{ns}-node/status',
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: { status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2024-01-01T00:00:00Z', lastTransitionTime: '2024-01-01T00:00:00Z' }] } },
      },
      { title: 'node status cannot change the spec', method: 'PATCH', path: '/api/v1/nodes/{ns}-node/status', headers: MERGE, body: { spec: { unschedulable: true } } },
    ],
    cleanup: [{ method: 'DELETE', path: '/api/v1/nodes/{ns}-node' }],
  },
  {
    name: 'status subresources: replica counts and load balancers',
    setup: [
      { method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/deployments', body: deployment('web') },
      {
        method: 'POST',
        path: '/apis/apps/v1/namespaces/{ns}/statefulsets',
        body: { ...deployment('db'), kind: 'StatefulSet', spec: { ...(deployment('db')['spec'] as object), serviceName: 'db' } },
      },
      {
        method: 'POST',
        path: '/apis/apps/v1/namespaces/{ns}/daemonsets',
        body: { ...deployment('agent'), kind: 'DaemonSet', spec: { selector: { matchLabels: { app: 'agent' } }, template: (deployment('agent')['spec'] as { template: unknown }).template } },
      },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/replicationcontrollers', body: REPLICATION_CONTROLLER },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } } },
    ],
    steps: [
      { title: 'deployment: counts above replicas and available above ready', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { replicas: 2, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 2 } } },
      { title: 'deployment: available above zero ready', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { replicas: 2, readyReplicas: 0, availableReplicas: 1 } } },
      { title: 'deployment: a negative collision count', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { collisionCount: -1 } } },
      { title: 'deployment: a collision count', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { collisionCount: 3 } } },
      { title: 'deployment: the collision count may not go down', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { collisionCount: 2 } } },
      { title: 'deployment: nor go away', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { collisionCount: null } } },
      { title: 'daemon set: a collision count', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/daemonsets/agent/status', headers: MERGE, body: { status: { collisionCount: 2 } } },
      { title: 'daemon set: the collision count may not go down', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/daemonsets/agent/status', headers: MERGE, body: { status: { collisionCount: 1 } } },
      { title: 'deployment: valid counts', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/deployments/web/status', headers: MERGE, body: { status: { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 1 } } },
      { title: 'statefulset: counts above replicas', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/statefulsets/db/status', headers: MERGE, body: { status: { replicas: 1, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2 } } },
      { title: 'statefulset: available above ready', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/statefulsets/db/status', headers: MERGE, body: { status: { replicas: 2, readyReplicas: 1, availableReplicas: 2 } } },
      { title: 'statefulset: a collision count', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/statefulsets/db/status', headers: MERGE, body: { status: { replicas: 0, collisionCount: 2 } } },
      { title: 'statefulset: the collision count may not go down', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/statefulsets/db/status', headers: MERGE, body: { status: { collisionCount: 1 } } },
      { title: 'replication controller: every count check', method: 'PATCH', path: '/api/v1/namespaces/{ns}/replicationcontrollers/rc/status', headers: MERGE, body: { status: { replicas: 2, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 1 } } },
      { title: 'load balancer: an ingress IP gets its mode', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/lb/status', headers: MERGE, body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } } },
      { title: 'load balancer: a malformed IP', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/lb/status', headers: MERGE, body: { status: { loadBalancer: { ingress: [{ ip: 'not-an-ip' }] } } } },
      { title: 'load balancer: hostnames that are an IP or not DNS', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/lb/status', headers: MERGE, body: { status: { loadBalancer: { ingress: [{ hostname: '192.0.2.7' }, { hostname: 'Bad_Host' }] } } } },
      { title: 'load balancer: a mode without an IP', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/lb/status', headers: MERGE, body: { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com', ipMode: 'Proxy' }] } } } },
      { title: 'load balancer: an unknown mode', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/lb/status', headers: MERGE, body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ipMode: 'Bogus' }] } } } },
      { title: 'load balancer: malformed conditions', method: 'PATCH', path: '/api/v1/namespaces/{ns}/services/lb/status', headers: MERGE, body: { status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } } },
      { title: 'load balancer: the service after it all', method: 'GET', path: '/api/v1/namespaces/{ns}/services/lb' },
    ],
  },
  {
    name: 'watches',
    setup: [
      { method: 'POST', path: CM, body: cm('w1', { k: 'v' }, { labels: { app: 'a' } }), capture: { rv1: 'metadata.resourceVersion' } },
      { method: 'POST', path: CM, body: cm('w2', { k: 'v' }, { labels: { app: 'b' } }) },
      { method: 'PATCH', path: `${CM}/w1`, headers: MERGE, body: { data: { k: 'v2' } } },
      { method: 'DELETE', path: `${CM}/w2` },
      { method: 'POST', path: CM, body: cm('w3', { k: 'v' }, { labels: { app: 'a' } }) },
    ],
    steps: [
      { title: 'no resourceVersion: the current objects as ADDED', method: 'GET', path: `${CM}?watch=true&labelSelector=app`, watchEvents: 2 },
      { title: 'resourceVersion=0: from the cache', method: 'GET', path: `${CM}?watch=true&resourceVersion=0&labelSelector=app`, watchEvents: 2 },
      { title: 'from a resourceVersion: the history since', method: 'GET', path: `${CM}?watch=true&resourceVersion={rv1}&labelSelector=app`, watchEvents: 4 },
      { title: 'a label selector: the history of the matching objects', method: 'GET', path: `${CM}?watch=true&resourceVersion={rv1}&labelSelector=app%3Db`, watchEvents: 2 },
      { title: 'a field selector on the name', method: 'GET', path: `${CM}?watch=true&resourceVersion={rv1}&fieldSelector=metadata.name%3Dw1`, watchEvents: 1 },
      { title: 'the legacy /watch/ path', method: 'GET', path: '/api/v1/watch/namespaces/{ns}/configmaps?labelSelector=app', watchEvents: 2 },
      { title: 'the legacy /watch/ path of one object', method: 'GET', path: '/api/v1/watch/namespaces/{ns}/configmaps/w1', watchEvents: 1 },
      {
        title: 'streaming list: initial events then the bookmark',
        method: 'GET',
        path: `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=app`,
        watchEvents: 3,
      },
      { title: 'sendInitialEvents without allowWatchBookmarks', method: 'GET', path: `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, watchEvents: 1 },
      { title: 'sendInitialEvents without resourceVersionMatch', method: 'GET', path: `${CM}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true`, watchEvents: 1 },
      { title: 'resourceVersionMatch on a watch without sendInitialEvents', method: 'GET', path: `${CM}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=0`, watchEvents: 1 },
      { title: 'a malformed resourceVersion', method: 'GET', path: `${CM}?watch=true&resourceVersion=abc`, watchEvents: 1 },
      { title: 'a malformed label selector', method: 'GET', path: `${CM}?watch=true&labelSelector=a%3D%3D%3Db`, watchEvents: 1 },
      { title: 'watch as a Table', method: 'GET', path: `${CM}?watch=true&labelSelector=app%3Da`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, watchEvents: 2, mask: ['^\\d+[smhd]$'] },
      { title: 'watch of a cluster-scoped resource by name', method: 'GET', path: '/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3D{ns}', watchEvents: 1 },
      { title: 'watch of one object in the other form (?watch=true on its path)', method: 'GET', path: `${CM}/w3?watch=true`, watchEvents: 1 },
    ],
  },
];
