// The built-in groups added for issue 21 as a user meets them, on one server
// (memory storage, the lease endpoint reconciler at a 200 ms interval):
// kubectl creates one object of every new kind from a manifest and prints
// them as a real cluster does (`kubectl get`, `-o wide`, short names);
// protobuf answers decode to the JSON answers; the system priority classes
// are bootstrapped, refuse DELETE and come back after a deletecollection; the
// kubernetes Service and its endpoints come back when deleted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runKubectl } from '../helpers/kubectl.js';
import { get, request, assertStatus } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { decodeProtobuf } from '../../src/api/schema/protobuf.js';

const MANIFEST = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: deny-all, namespace: default }
spec: { podSelector: {} }
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: site, namespace: default }
spec:
  ingressClassName: nginx
  rules:
  - host: a.example.com
    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: { name: nginx }
spec: { controller: example.com/ingress }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-1, namespace: default }
addressType: IPv4
endpoints: [ { addresses: [ 10.1.0.1, 10.1.0.2 ] } ]
ports: [ { port: 80 } ]
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-1 }
spec: { capacity: { storage: 5Gi }, accessModes: [ ReadWriteOnce ], hostPath: { path: /data }, storageClassName: slow }
---
apiVersion: v1
kind: PodTemplate
metadata: { name: tpl, namespace: default }
template:
  metadata: { labels: { app: web } }
  spec: { containers: [ { name: web, image: registry.example/web:1 } ] }
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: slow }
provisioner: example.com/disk
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: { name: disk.csi.example.com }
spec: {}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: { name: node-a }
spec: { drivers: [ { name: disk.csi.example.com, nodeID: n-a } ] }
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: { name: va-1 }
spec: { attacher: disk.csi.example.com, nodeName: node-a, source: { persistentVolumeName: pv-1 } }
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: { name: cap-1, namespace: default }
storageClassName: slow
capacity: 100Gi
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: { name: high }
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: { name: gvisor }
handler: runsc
`;

function rows(stdout: string): string[][] {
  return stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
}

describe('the built-in groups of issue 21', { timeout: 90_000 }, () => {
  let server: TestServer;
  const kubectl = (...args: string[]) => runKubectl(server.kubeconfigPath, args);

  before(async () => {
    server = await startTestServer({ storage: 'memory', endpointReconcilerType: 'lease', advertiseAddress: '192.0.2.1', endpointReconcileIntervalMs: 200 });
  });
  after(async () => server?.stop());

  test('kubectl creates every new kind from one manifest', async () => {
    const res = await runKubectl(server.kubeconfigPath, ['apply', '-f', '-'], { stdin: MANIFEST });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout.trim().split('\n').length, 13, res.stdout);
  });

  test('kubectl get prints the columns a real cluster prints', async () => {
    const cases: [string[], string[][]][] = [
      [['get', 'netpol', '-n', 'default'], [['NAME', 'POD-SELECTOR', 'AGE'], ['deny-all', '<none>']]],
      [['get', 'ing', '-n', 'default'], [['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE'], ['site', 'nginx', 'a.example.com', '80']]],
      [['get', 'ingressclass'], [['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE'], ['nginx', 'example.com/ingress', '<none>']]],
      [['get', 'endpointslices', 'web-1', '-n', 'default'], [['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE'], ['web-1', 'IPv4', '80', '10.1.0.1,10.1.0.2']]],
      [['get', 'pv'], [['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE'], ['pv-1', '5Gi', 'RWO', 'Retain', 'Pending', 'slow', '<unset>']]],
      [['get', 'podtemplates', '-n', 'default'], [['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS'], ['tpl', 'web', 'registry.example/web:1', 'app=web']]],
      [['get', 'sc'], [['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'], ['slow', 'example.com/disk', 'Delete', 'Immediate', 'false']]],
      [['get', 'csidrivers'], [['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE'], ['disk.csi.example.com', 'true', 'false', 'false', '<unset>', 'false', 'Persistent']]],
      [['get', 'csinodes'], [['NAME', 'DRIVERS', 'AGE'], ['node-a', '1']]],
      [['get', 'volumeattachments'], [['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE'], ['va-1', 'disk.csi.example.com', 'pv-1', 'node-a', 'false']]],
      [['get', 'csistoragecapacities', '-n', 'default'], [['NAME', 'CREATED AT'], ['cap-1']]],
      [['get', 'pc', 'high', 'system-node-critical'], [['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE'], ['high', '1000', 'false'], ['system-node-critical', '2000001000', 'false']]],
      [['get', 'runtimeclasses'], [['NAME', 'HANDLER', 'AGE'], ['gvisor', 'runsc']]],
    ];
    for (const [args, want] of cases) {
      const res = await kubectl(...args);
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
      const got = rows(res.stdout);
      assert.equal(got.length, want.length, `${args.join(' ')}:\n${res.stdout}`);
      want.forEach((cells, i) => assert.deepEqual(got[i]!.slice(0, cells.length), cells, `${args.join(' ')}:\n${res.stdout}`));
    }
    const wide = await kubectl('get', 'pc', 'high', '-o', 'wide');
    assert.deepEqual(rows(wide.stdout)[0], ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    assert.equal(rows(wide.stdout)[1]![4], 'PreemptLowerPriority');
  });

  test('protobuf answers carry the same objects as JSON', async () => {
    const paths = [
      '/apis/networking.k8s.io/v1/namespaces/default/ingresses/site',
      '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/web-1',
      '/api/v1/persistentvolumes/pv-1',
      '/apis/storage.k8s.io/v1/csidrivers/disk.csi.example.com',
      '/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities/cap-1',
      '/apis/scheduling.k8s.io/v1/priorityclasses/high',
    ];
    for (const path of paths) {
      const json = (await get(server.url, path)).json as Record<string, unknown>;
      const res = await fetch(server.url + path, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'application/vnd.kubernetes.protobuf', path);
      const decoded = decodeProtobuf(new Uint8Array(await res.arrayBuffer())) as Record<string, unknown>;
      assert.equal(decoded['kind'], json['kind'], path);
      assert.deepEqual(decoded['metadata'], json['metadata'], path);
      for (const key of Object.keys(json)) if (key !== 'metadata') assert.deepEqual(decoded[key], json[key], `${path} ${key}`);
    }
  });

  test('the system priority classes: bootstrapped, undeletable, re-created', async () => {
    const pc = (await get(server.url, '/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical')).json;
    assert.equal(pc.value, 2000000000);
    assert.equal(pc.preemptionPolicy, 'PreemptLowerPriority');
    const refused = await request(server.url, 'DELETE', '/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical');
    assertStatus(refused, 403, 'Forbidden', 'priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class and cannot be deleted');
    const all = await request(server.url, 'DELETE', '/apis/scheduling.k8s.io/v1/priorityclasses');
    assert.equal(all.status, 200, all.text);
    await until('the system classes are back', async () => (await get(server.url, '/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical')).status === 200, 5000, 100);
    assert.equal((await get(server.url, '/apis/scheduling.k8s.io/v1/priorityclasses/high')).status, 404);
  });

  test('the kubernetes Service, Endpoints and EndpointSlice come back when deleted', async () => {
    await until('the service exists', async () => (await get(server.url, '/api/v1/namespaces/default/services/kubernetes')).status === 200, 5000, 100);
    for (const path of ['/api/v1/namespaces/default/services/kubernetes', '/api/v1/namespaces/default/endpoints/kubernetes', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes']) {
      const deleted = await request(server.url, 'DELETE', path);
      assert.equal(deleted.status, 200, `${path}: ${deleted.text}`);
      await until(`${path} is back`, async () => (await get(server.url, path)).status === 200, 5000, 100);
    }
    const ep = (await get(server.url, '/api/v1/namespaces/default/endpoints/kubernetes')).json;
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
    const svc = await kubectl('get', 'svc', 'kubernetes', '-n', 'default');
    assert.deepEqual(rows(svc.stdout)[1]!.slice(0, 5), ['kubernetes', 'ClusterIP', '10.0.0.1', '<none>', '443/TCP']);
  });
});

describe('the kube-system objects of a control plane', { timeout: 30_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ storage: 'memory', controlPlaneObjects: true, endpointReconcileIntervalMs: 200 });
  });
  after(async () => server?.stop());

  test('the identity lease and the token tracking ConfigMap appear once kube-system exists', async () => {
    const { apiserverIdentity } = await import('../../src/server/system-objects.js');
    const os = await import('node:os');
    const name = apiserverIdentity(os.hostname());
    assert.match(name, /^apiserver-[a-z2-7]{26}$/);
    const created = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } } });
    assert.equal(created.status, 201, created.text);
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`;
    await until('the identity lease', async () => (await get(server.url, leasePath)).status === 200, 5000, 100);
    const lease = (await get(server.url, leasePath)).json;
    assert.deepEqual(lease.metadata.labels, { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': os.hostname() });
    assert.equal(lease.spec.leaseDurationSeconds, 3600);
    assert.match(lease.spec.holderIdentity, new RegExp(`^${name}_[0-9a-f-]{36}$`));
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await until('the lease is renewed', async () => (await get(server.url, leasePath)).json.spec.renewTime !== lease.spec.renewTime, 5000, 100);
    const cm = await get(server.url, '/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking');
    assert.equal(cm.status, 200, cm.text);
    assert.match(cm.json.data.since, /^\d{4}-\d\d-\d\d$/);
  });
});
