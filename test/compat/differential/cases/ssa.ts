// Server-side apply and managedFields, compared with kube-apiserver 1.32:
// create-on-apply, re-apply, removal of a field no longer applied,
// conflicts (one and several) and force, the managers of ordinary writes,
// client-sent managedFields, bad apply requests, /status and /scale, and
// entries recorded through one of the two Event APIs met by a write through
// the other (dropped: upstream cannot convert them).
// (managedFields times are masked by the runner.)
import type { DiffCase, DiffRequest } from '../case.js';

const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const CM = '/api/v1/namespaces/{ns}/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/{ns}/deployments';
const CORE_EVENTS = '/api/v1/namespaces/{ns}/events';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/{ns}/events';

function applyCm(name: string, manager: string, data: Record<string, string>, query = '', title?: string): DiffRequest {
  const lines = Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`);
  return {
    ...(title !== undefined ? { title } : {}),
    method: 'PATCH',
    path: `${CM}/${name}?fieldManager=${manager}${query}`,
    headers: APPLY,
    body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${lines.join('\n')}\n`,
  };
}

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.25
    ports:
    - containerPort: 80
  - name: sidecar
    image: busybox
    env:
    - name: MODE
      value: fast
`;

// replicas 0: the reference's deployment controller then has nothing to write into the Scale's status.
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 0
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`;

export const cases: DiffCase[] = [
  {
    name: 'apply: create, unchanged re-apply, removal of a field no longer applied',
    steps: [
      applyCm('a', 'm1', { x: '1', z: '2' }, '', 'create-on-apply answers 201 with an Apply entry'),
      applyCm('a', 'm1', { x: '1', z: '2' }, '', 'an unchanged re-apply writes nothing'),
      applyCm('a', 'm1', { x: '1' }, '', 'a key no longer applied is removed'),
      { method: 'GET', path: `${CM}/a` },
    ],
  },
  {
    name: 'apply: conflicts with one and with several fields, then force',
    setup: [applyCm('a', 'm1', { x: '1', z: '2' })],
    steps: [
      applyCm('a', 'm2', { x: 'other' }, '', 'one conflict'),
      applyCm('a', 'm2', { x: 'other', z: 'other' }, '', 'two conflicts, listed by manager'),
      applyCm('a', 'm2', { x: '1' }, '', 'the same value is shared, not a conflict'),
      applyCm('a', 'm2', { x: 'other' }, '&force=true', 'force takes the field'),
      applyCm('a', 'm1', { z: '2' }, '', 'the first manager no longer applying x keeps nothing of it'),
    ],
  },
  {
    name: 'managedFields of ordinary writes: managers from fieldManager and User-Agent, same-manager merging',
    steps: [
      {
        title: 'create with a User-Agent',
        method: 'POST',
        path: CM,
        headers: { 'User-Agent': 'my-tool/1.0 (linux/amd64)' },
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u', labels: { a: 'b' } }, data: { k: '1' } },
      },
      { title: 'merge patch by another manager', method: 'PATCH', path: `${CM}/u?fieldManager=patcher`, headers: MERGE, body: { data: { k: '2', n: '3' } } },
      { title: 'the same manager again merges into its entry', method: 'PATCH', path: `${CM}/u?fieldManager=patcher`, headers: MERGE, body: { metadata: { labels: { c: 'd' } } } },
      { title: 'json patch removing a key', method: 'PATCH', path: `${CM}/u?fieldManager=remover`, headers: { 'Content-Type': 'application/json-patch+json' }, body: [{ op: 'remove', path: '/data/n' }] },
    ],
  },
  {
    name: 'client-sent managedFields: replaced, malformed ignored, cleared with [{}]',
    setup: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { k: '1' } } }],
    steps: [
      {
        title: 'valid entries replace the stored ones',
        method: 'PATCH',
        path: `${CM}/u`,
        headers: MERGE,
        body: { metadata: { managedFields: [{ manager: 'zz', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } }] } },
      },
      {
        title: 'an entry with an unknown operation is ignored',
        method: 'PATCH',
        path: `${CM}/u`,
        headers: MERGE,
        body: { metadata: { managedFields: [{ manager: 'zz', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] } },
      },
      { title: '[{}] clears them', method: 'PATCH', path: `${CM}/u`, headers: MERGE, body: { metadata: { managedFields: [{}] } } },
      { title: 'an untracked object stays untracked on update', method: 'PATCH', path: `${CM}/u?fieldManager=later`, headers: MERGE, body: { data: { k: '2' } } },
      applyCm('u', 'ap', { k: '2' }, '', 'the first apply records before-first-apply'),
    ],
  },
  {
    name: 'bad apply requests',
    setup: [applyCm('a', 'm1', { x: '1' })],
    steps: [
      { title: 'no fieldManager', method: 'PATCH', path: `${CM}/a`, headers: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n' },
      { title: 'force on a merge patch', method: 'PATCH', path: `${CM}/a?force=true`, headers: MERGE, body: {} },
      { title: 'wrong kind', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n' },
      { title: 'no kind', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: 'metadata:\n  name: a\n' },
      { title: 'a list', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: '- a\n- b\n' },
      { title: 'managedFields in the body', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  managedFields: []\n' },
      { title: 'another name', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n' },
      { title: 'a stale resourceVersion', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  resourceVersion: "1"\n' },
      { title: 'a field the schema does not declare', method: 'PATCH', path: `${CM}/a?fieldManager=m`, headers: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nfoo: 1\n' },
      {
        title: 'a duplicate key with fieldValidation=Strict',
        method: 'PATCH',
        path: `${CM}/a?fieldManager=m&fieldValidation=Strict`,
        headers: APPLY,
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n  x: "2"\n',
      },
      {
        title: 'a duplicate key with fieldValidation=Warn: a Warning header',
        method: 'PATCH',
        path: `${CM}/a?fieldManager=m1&fieldValidation=Warn`,
        headers: APPLY,
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n  x: "1"\n',
      },
      { title: 'dry run of a create', method: 'PATCH', path: `${CM}/ghost?fieldManager=m&dryRun=All`, headers: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ghost\n' },
      { title: 'nothing was created', method: 'GET', path: `${CM}/ghost` },
    ],
  },
  {
    // Only Status answers are compared here: a pod's object also shows the reference's admission plugins (service account token volume, priority).
    name: 'apply of a pod: containers by name',
    setup: [
      { method: 'PATCH', path: '/api/v1/namespaces/{ns}/pods/web?fieldManager=kubectl', headers: APPLY, body: POD },
      { method: 'PATCH', path: '/api/v1/namespaces/{ns}/pods/web?fieldManager=kubectl', headers: APPLY, body: POD.replace('nginx:1.25', 'nginx:1.26') },
    ],
    steps: [
      {
        title: 'another manager changing an applied image conflicts on the container by name',
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}/pods/web?fieldManager=other',
        headers: APPLY,
        body: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.27\n  - name: sidecar\n    image: busybox:2\n',
      },
    ],
  },
  {
    name: 'the scale subresource of a deployment',
    setup: [{ method: 'PATCH', path: `${DEPLOY}/web?fieldManager=kubectl`, headers: APPLY, body: DEPLOYMENT }],
    steps: [
      { title: 'scale read', method: 'GET', path: `${DEPLOY}/web/scale` },
      { title: 'a stale scale update', method: 'PUT', path: `${DEPLOY}/web/scale`, body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', resourceVersion: '1' }, spec: { replicas: 4 } } },
      {
        title: 'scale apply conflicts with the main resource\'s applier, named as the Scale sees it',
        method: 'PATCH',
        path: `${DEPLOY}/web/scale?fieldManager=hpa`,
        headers: APPLY,
        body: 'apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 5\n',
      },
      { title: 'a Scale of another kind', method: 'PATCH', path: `${DEPLOY}/web/scale?fieldManager=hpa`, headers: APPLY, body: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n' },
      {
        title: 'a forced scale apply carrying labels',
        method: 'PATCH',
        path: `${DEPLOY}/web/scale?fieldManager=hpa&force=true`,
        headers: APPLY,
        body: 'apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\n  labels: {from: scale}\nspec:\n  replicas: 5\n',
      },
      { title: 'only the replicas reached the deployment: its labels', method: 'GET', path: `${DEPLOY}/web`, select: 'metadata.labels' },
      { title: 'the Scale applier\'s entry', method: 'GET', path: `${DEPLOY}/web`, select: 'metadata.managedFields[manager=hpa]' },
      { title: 'the main applier\'s entry, without the replicas', method: 'GET', path: `${DEPLOY}/web`, select: 'metadata.managedFields[manager=kubectl]' },
    ],
  },
  {
    name: 'managedFields across core/v1 and events.k8s.io/v1 Events',
    steps: [
      {
        title: 'an Event created through core/v1',
        method: 'POST',
        path: `${CORE_EVENTS}?fieldManager=coremgr`,
        body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: '{ns}' }, reason: 'R', message: 'hello', type: 'Normal', source: { component: 'c' }, count: 1, firstTimestamp: '2026-11-25T04:00:00Z', lastTimestamp: '2026-11-25T04:00:00Z' },
        select: 'metadata.managedFields',
      },
      { title: 'read through events.k8s.io/v1: the entry as recorded', method: 'GET', path: `${EVENTS}/e1`, select: 'metadata.managedFields' },
      {
        title: 'an update through events.k8s.io/v1 drops the core/v1 entry',
        method: 'PATCH',
        path: `${EVENTS}/e1?fieldManager=evmgr`,
        headers: MERGE,
        body: { metadata: { labels: { a: 'b' } }, series: { count: 2, lastObservedTime: '2026-11-25T04:01:00.000000Z' } },
        select: 'metadata.managedFields',
      },
      { title: 'read through core/v1', method: 'GET', path: `${CORE_EVENTS}/e1`, select: 'metadata.managedFields' },
      {
        title: 'an Event created through events.k8s.io/v1',
        method: 'POST',
        path: `${EVENTS}?fieldManager=evcreate`,
        body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e2' }, regarding: { kind: 'Pod', name: 'p', namespace: '{ns}' }, reason: 'R', note: 'hello', type: 'Normal', action: 'A', reportingController: 'x.io/c', reportingInstance: 'i', eventTime: '2026-11-25T04:00:00.000000Z' },
        select: 'metadata.managedFields',
      },
      { title: 'a core/v1 update drops the events.k8s.io/v1 entry', method: 'PATCH', path: `${CORE_EVENTS}/e2?fieldManager=coremgr`, headers: MERGE, body: { metadata: { labels: { a: 'b' } } }, select: 'metadata.managedFields' },
      { title: 'a core/v1 apply beside it', method: 'PATCH', path: `${CORE_EVENTS}/e2?fieldManager=same`, headers: APPLY, body: 'apiVersion: v1\nkind: Event\nmetadata:\n  name: e2\n  annotations: {s: "1", t: "1"}\n', select: 'metadata.managedFields' },
      {
        title: 'the same manager applies through events.k8s.io/v1: the core/v1 entries go',
        method: 'PATCH',
        path: `${EVENTS}/e2?fieldManager=same`,
        headers: APPLY,
        body: 'apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: e2\n  annotations: {s: "2"}\n',
        select: 'metadata.managedFields',
      },
      { title: 'its annotations after it', method: 'GET', path: `${EVENTS}/e2`, select: 'metadata.annotations' },
      {
        title: 'and back through core/v1: what it applied through events.k8s.io/v1 is not pruned',
        method: 'PATCH',
        path: `${CORE_EVENTS}/e2?fieldManager=same`,
        headers: APPLY,
        body: 'apiVersion: v1\nkind: Event\nmetadata:\n  name: e2\n  labels: {u: "1"}\n',
        select: 'metadata.managedFields',
      },
      { title: 'its annotations after it', method: 'GET', path: `${EVENTS}/e2`, select: 'metadata.annotations' },
      { title: 'its labels after it', method: 'GET', path: `${EVENTS}/e2`, select: 'metadata.labels' },
      { title: 'an update of nothing through events.k8s.io/v1 still drops the core/v1 entries', method: 'PATCH', path: `${EVENTS}/e2?fieldManager=other`, headers: MERGE, body: {}, select: 'metadata.managedFields' },
    ],
  },
];
