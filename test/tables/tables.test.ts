import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTable, tableColumnsFor } from '../../src/api/tables/index.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { StatusError } from '../../src/machinery/errors.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

function meta(name: string, age = 5 * S, extra: Record<string, unknown> = {}): KubeObject['metadata'] {
  return { name, namespace: 'default', creationTimestamp: ago(age), resourceVersion: '7', uid: 'u-' + name, ...extra };
}

/** Column names as kubectl prints them (upper-cased), with -o wide ones marked. */
function header(group: string, kind: string): string[] {
  return tableColumnsFor(group, kind).map((c) => (c.priority > 0 ? `+${c.name.toUpperCase()}` : c.name.toUpperCase()));
}

function cells(group: string, kind: string, obj: KubeObject): unknown[] {
  return buildTable(group, kind, [obj], { now: NOW }).rows[0]!.cells;
}

test('columns per kind match kube-apiserver 1.32', () => {
  const want: Array<[string, string, string[]]> = [
    ['', 'Namespace', ['NAME', 'STATUS', 'AGE']],
    ['', 'ConfigMap', ['NAME', 'DATA', 'AGE']],
    ['', 'Secret', ['NAME', 'TYPE', 'DATA', 'AGE']],
    ['', 'ServiceAccount', ['NAME', 'SECRETS', 'AGE']],
    ['', 'Service', ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', '+SELECTOR']],
    ['', 'Pod', ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', '+IP', '+NODE', '+NOMINATED NODE', '+READINESS GATES']],
    [
      '',
      'Event',
      ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', '+SUBOBJECT', '+SOURCE', 'MESSAGE', '+FIRST SEEN', '+COUNT', '+NAME'],
    ],
    [
      'events.k8s.io',
      'Event',
      ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', '+SUBOBJECT', '+SOURCE', 'MESSAGE', '+FIRST SEEN', '+COUNT', '+NAME'],
    ],
    ['', 'Endpoints', ['NAME', 'ENDPOINTS', 'AGE']],
    [
      '',
      'Node',
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', '+INTERNAL-IP', '+EXTERNAL-IP', '+OS-IMAGE', '+KERNEL-VERSION', '+CONTAINER-RUNTIME'],
    ],
    ['', 'LimitRange', ['NAME', 'CREATED AT']],
    ['', 'ResourceQuota', ['NAME', 'AGE', 'REQUEST', 'LIMIT']],
    ['', 'ReplicationController', ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', '+CONTAINERS', '+IMAGES', '+SELECTOR']],
    ['coordination.k8s.io', 'Lease', ['NAME', 'HOLDER', 'AGE']],
    ['apps', 'Deployment', ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', '+CONTAINERS', '+IMAGES', '+SELECTOR']],
    ['example.com', 'Widget', ['NAME', 'CREATED AT']],
  ];
  for (const [group, kind, names] of want) assert.deepEqual(header(group, kind), names, `${group}/${kind}`);
});

test('column definitions carry type, format and priority; the name column is marked', () => {
  const pods = tableColumnsFor('', 'Pod');
  assert.deepEqual(
    pods.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ],
  );
  for (const c of pods) assert.ok(c.description.length > 0);
  assert.deepEqual(
    tableColumnsFor('', 'LimitRange').map((c) => [c.name, c.type, c.format]),
    [
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ],
  );
  assert.equal(tableColumnsFor('', 'Event').find((c) => c.name === 'Name')!.format, 'name');
});

test('simple kinds: namespaces, configmaps, secrets, serviceaccounts, leases, default table', () => {
  const cases: Array<[string, string, KubeObject, unknown[]]> = [
    ['', 'Namespace', { metadata: meta('kube-system', 3 * D), status: { phase: 'Active' } }, ['kube-system', 'Active', '3d']],
    [
      '',
      'ConfigMap',
      { metadata: meta('cfg', 3 * M + 2 * S), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } },
      ['cfg', 3, '3m2s'],
    ],
    ['', 'ConfigMap', { metadata: meta('empty', 70 * D) }, ['empty', 0, '70d']],
    [
      '',
      'Secret',
      { metadata: meta('s', 2 * D + 22 * H), type: 'Opaque', data: { user: 'YQ==', pass: 'Yg==' } },
      ['s', 'Opaque', 2, '2d22h'],
    ],
    ['', 'ServiceAccount', { metadata: meta('default', 45 * S) }, ['default', 0, '45s']],
    [
      'coordination.k8s.io',
      'Lease',
      { metadata: meta('leader', 9 * H), spec: { holderIdentity: 'node-a_123' } },
      ['leader', 'node-a_123', '9h'],
    ],
    ['coordination.k8s.io', 'Lease', { metadata: meta('free', 9 * H), spec: {} }, ['free', '', '9h']],
    [
      '',
      'LimitRange',
      { metadata: { name: 'limits', creationTimestamp: '2024-05-01T10:00:00Z' } },
      ['limits', '2024-05-01T10:00:00Z'],
    ],
    ['', 'Namespace', { metadata: { name: 'no-time' }, status: { phase: 'Terminating' } }, ['no-time', 'Terminating', '<unknown>']],
  ];
  for (const [group, kind, obj, want] of cases) assert.deepEqual(cells(group, kind, obj), want, `${kind} ${obj.metadata.name}`);
});

test('services: type, cluster IP, external IP and ports', () => {
  const svc = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
    metadata: meta('web', 10 * M),
    spec,
    status,
  });
  const cases: Array<[KubeObject, unknown[]]> = [
    [
      svc({ type: 'ClusterIP', clusterIP: '10.0.0.10', clusterIPs: ['10.0.0.10'], ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web', tier: 'fe' } }),
      ['web', 'ClusterIP', '10.0.0.10', '<none>', '80/TCP', '10m', 'app=web,tier=fe'],
    ],
    [
      svc({ type: 'NodePort', clusterIPs: ['10.0.0.11'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] }),
      ['web', 'NodePort', '10.0.0.11', '<none>', '80:30080/TCP,53/UDP', '10m', '<none>'],
    ],
    [
      svc({ type: 'LoadBalancer', clusterIPs: ['10.0.0.12'], ports: [{ port: 443, protocol: 'TCP' }] }),
      ['web', 'LoadBalancer', '10.0.0.12', '<pending>', '443/TCP', '10m', '<none>'],
    ],
    [
      svc({ type: 'LoadBalancer', clusterIPs: ['10.0.0.12'], externalIPs: ['1.2.3.4'] }, { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example.com' }] } }),
      ['web', 'LoadBalancer', '10.0.0.12', '5.6.7.8,lb.example.com,1.2.3.4', '<none>', '10m', '<none>'],
    ],
    [
      svc({ type: 'ExternalName', externalName: 'db.example.com', clusterIP: 'None' }),
      ['web', 'ExternalName', 'None', 'db.example.com', '<none>', '10m', '<none>'],
    ],
    [svc({ type: 'ClusterIP', clusterIP: 'None', externalIPs: ['9.9.9.9'] }), ['web', 'ClusterIP', 'None', '9.9.9.9', '<none>', '10m', '<none>']],
  ];
  for (const [obj, want] of cases) assert.deepEqual(cells('', 'Service', obj), want);
});

test('endpoints: up to three addresses, then "+ N more..."', () => {
  const ep = (subsets: unknown): KubeObject => ({ metadata: meta('web', 1 * H), subsets });
  assert.deepEqual(cells('', 'Endpoints', ep(undefined)), ['web', '<none>', '60m']);
  assert.deepEqual(
    cells('', 'Endpoints', ep([{ addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ port: 8080 }] }])),
    ['web', '10.1.0.1:8080,10.1.0.2:8080', '60m'],
  );
  assert.deepEqual(
    cells('', 'Endpoints', ep([{ addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }, { ip: '10.1.0.3' }], ports: [{ port: 80 }, { port: 443 }] }])),
    ['web', '10.1.0.1:80,10.1.0.2:80,10.1.0.3:80 + 3 more...', '60m'],
  );
  assert.deepEqual(cells('', 'Endpoints', ep([{ addresses: [{ ip: 'fd00::1' }] }])), ['web', 'fd00::1', '60m']);
  assert.deepEqual(cells('', 'Endpoints', ep([{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }])), ['web', '[fd00::1]:80', '60m']);
});

test('nodes: status, roles, version and the wide columns', () => {
  const node: KubeObject = {
    metadata: meta('n1', 20 * D, { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master', zone: 'a' } }),
    spec: { unschedulable: true },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
      addresses: [
        { type: 'InternalIP', address: '192.168.1.10' },
        { type: 'Hostname', address: 'n1' },
      ],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7' },
    },
  };
  assert.deepEqual(cells('', 'Node', node), [
    'n1',
    'Ready,SchedulingDisabled',
    'control-plane,master',
    '20d',
    'v1.32.0',
    '192.168.1.10',
    '<none>',
    'Debian 12',
    '6.1.0',
    'containerd://1.7',
  ]);
  assert.deepEqual(cells('', 'Node', { metadata: meta('bare', 5 * S) }), [
    'bare',
    'Unknown',
    '<none>',
    '5s',
    '',
    '<none>',
    '<none>',
    '<unknown>',
    '<unknown>',
    '<unknown>',
  ]);
  assert.equal(cells('', 'Node', { metadata: meta('nr'), status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } })[1], 'NotReady');
});

test('resource quotas: requests and limits columns, sorted by resource', () => {
  const rq: KubeObject = {
    metadata: meta('compute', 2 * H),
    status: {
      hard: { 'requests.cpu': '1', 'limits.memory': '2Gi', pods: '10', 'limits.cpu': '2' },
      used: { 'requests.cpu': '500m', 'limits.memory': '1Gi', 'limits.cpu': '0' },
    },
  };
  assert.deepEqual(cells('', 'ResourceQuota', rq), [
    'compute',
    '120m',
    'pods: 0/10, requests.cpu: 500m/1',
    'limits.cpu: 0/2, limits.memory: 1Gi/2Gi',
  ]);
  assert.deepEqual(cells('', 'ResourceQuota', { metadata: meta('none', 5 * S) }), ['none', '5s', '', '']);
});

test('replication controllers and deployments, with the wide columns', () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'busybox' }] },
  };
  const rc: KubeObject = {
    metadata: meta('rc', 3 * M),
    spec: { replicas: 3, selector: { app: 'web' }, template },
    status: { replicas: 3, readyReplicas: 2 },
  };
  assert.deepEqual(cells('', 'ReplicationController', rc), ['rc', 3, 3, 2, '3m', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web']);
  const deploy: KubeObject = {
    metadata: meta('web', 4 * D),
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }, { key: 'legacy', operator: 'DoesNotExist' }] },
      template,
    },
    status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  };
  assert.deepEqual(cells('apps', 'Deployment', deploy), [
    'web',
    '2/3',
    3,
    2,
    '4d',
    'nginx,sidecar',
    'nginx:1.27,busybox',
    'app=web,env in (dev,prod),!legacy',
  ]);
  const fresh: KubeObject = { metadata: meta('new', 1 * S), spec: { replicas: 1, selector: { matchLabels: { app: 'x' } }, template } };
  assert.deepEqual(cells('apps', 'Deployment', fresh).slice(0, 5), ['new', '0/1', 0, 0, '1s']);
});

test('events: core and events.k8s.io print the same columns', () => {
  const core: KubeObject = {
    metadata: meta('web.17a', 10 * M),
    involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default', fieldPath: 'spec.containers{nginx}' },
    reason: 'Pulled',
    message: '  Successfully pulled image  \n',
    source: { component: 'kubelet', host: 'node-a' },
    firstTimestamp: ago(10 * M),
    lastTimestamp: ago(2 * M),
    count: 4,
    type: 'Normal',
  };
  assert.deepEqual(cells('', 'Event', core), [
    '2m',
    'Normal',
    'Pulled',
    'pod/web-1',
    'spec.containers{nginx}',
    'kubelet, node-a',
    'Successfully pulled image',
    '10m',
    4,
    'web.17a',
  ]);
  const singleton: KubeObject = {
    metadata: meta('ns.1'),
    involvedObject: { kind: 'Namespace' },
    reason: 'Created',
    message: 'made',
    eventTime: new Date(NOW.getTime() - 30 * S).toISOString().replace('Z', '000Z'),
    // core/v1's wire name for the reporter.
    reportingComponent: 'apiary',
    reportingInstance: '',
    type: 'Normal',
  };
  assert.deepEqual(cells('', 'Event', singleton), ['30s', 'Normal', 'Created', 'namespace', '', 'apiary', 'made', '30s', 1, 'ns.1']);
  const v1: KubeObject = {
    metadata: meta('web.17b'),
    regarding: { kind: 'Deployment', name: 'web' },
    reason: 'ScalingReplicaSet',
    note: 'Scaled up',
    eventTime: ago(5 * M),
    series: { count: 7, lastObservedTime: ago(1 * M) },
    reportingController: 'deployment-controller',
    reportingInstance: 'cm-1',
    type: 'Normal',
  };
  assert.deepEqual(cells('events.k8s.io', 'Event', v1), [
    '60s',
    'Normal',
    'ScalingReplicaSet',
    'deployment/web',
    '',
    'deployment-controller, cm-1',
    'Scaled up',
    '5m',
    7,
    'web.17b',
  ]);
});

test('includeObject: None, Metadata (the default) and Object', () => {
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cfg', 5 * S, { labels: { a: 'b' } }), data: { k: 'v' } };
  const none = buildTable('', 'ConfigMap', [cm], { includeObject: 'None', now: NOW });
  // As upstream: an empty RawExtension prints null.
  assert.equal(none.rows[0]!.object, null);
  const def = buildTable('', 'ConfigMap', [cm], { now: NOW });
  assert.deepEqual(def.rows[0]!.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata });
  const beta = buildTable('', 'ConfigMap', [cm], { includeObject: 'Metadata', apiVersion: 'meta.k8s.io/v1beta1', now: NOW });
  assert.equal(beta.apiVersion, 'meta.k8s.io/v1beta1');
  assert.equal((beta.rows[0]!.object as { apiVersion: string }).apiVersion, 'meta.k8s.io/v1beta1');
  const full = buildTable('', 'ConfigMap', [cm], { includeObject: 'Object', now: NOW });
  assert.deepEqual(full.rows[0]!.object, cm);
  assert.throws(
    () => buildTable('', 'ConfigMap', [cm], { includeObject: 'Everything' as 'Object' }),
    (err: unknown) => err instanceof StatusError && err.code === 400 && err.message === 'unrecognized includeObject value: "Everything"',
  );
});

test('table metadata: list meta for lists, the object resourceVersion for a get; omitHeaders', () => {
  const a: KubeObject = { metadata: meta('a') };
  const b: KubeObject = { metadata: { ...meta('b'), resourceVersion: '9' } };
  const list = buildTable('', 'Namespace', [a, b], { listMeta: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 }, now: NOW });
  assert.equal(list.kind, 'Table');
  assert.equal(list.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(list.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
  assert.equal(list.rows.length, 2);
  const get = buildTable('', 'Namespace', [b], { now: NOW });
  assert.deepEqual(get.metadata, { resourceVersion: '9' });
  const empty = buildTable('', 'Namespace', [], { listMeta: { resourceVersion: '5' }, now: NOW });
  assert.deepEqual(empty.rows, []);
  assert.equal(empty.columnDefinitions?.length, 3);
  const noHeaders = buildTable('', 'Namespace', [a], { omitHeaders: true, now: NOW });
  // As upstream: a nil slice, null on the wire.
  assert.equal(noHeaders.columnDefinitions, null);
  // JSON round trip: what goes on the wire.
  assert.deepEqual(JSON.parse(JSON.stringify(noHeaders)).rows[0].cells, ['a', '', '5s']);
});

test('buildTable does not mutate its inputs', () => {
  const pod: KubeObject = {
    metadata: meta('p'),
    spec: { containers: [{ name: 'c' }] },
    status: { phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
  };
  const before = structuredClone(pod);
  const table = buildTable('', 'Pod', [pod], { includeObject: 'Object', now: NOW });
  table.rows[0]!.conditions![0]!.status = 'changed';
  assert.deepEqual(pod, before);
  assert.equal(buildTable('', 'Pod', [pod], { now: NOW }).rows[0]!.conditions![0]!.status, 'True');
});
