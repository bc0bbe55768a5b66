// Objects read back as kube-apiserver 1.32 prints them (checked against a real
// one by the differential pass): the zero values Go's typed encode writes
// (fields without omitempty, struct fields, null times), the defaults that
// belong to pods but not to pod templates, node defaults, and deletecollection's
// answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};

test('zero values, pod template defaults and node defaults appear as upstream prints them', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  assert.equal((await request(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ge' } } })).status, 201);
  const post = (path: string, body: unknown) => request(base, 'POST', path, { body });

  // core/v1 Event: reportingComponent/reportingInstance have no omitempty; the zero times print null.
  const ev = await post('/api/v1/namespaces/ge/events', {
    metadata: { name: 'e1' },
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'ge' },
    reason: 'Started',
  });
  assert.equal(ev.status, 201, ev.text);
  assert.equal(ev.json.reportingComponent, '');
  assert.equal(ev.json.reportingInstance, '');
  assert.equal(ev.json.eventTime, null);
  assert.equal(ev.json.firstTimestamp, null);
  assert.deepEqual(ev.json.source, {});
  // The same event through events.k8s.io/v1: its deprecated fields as upstream's conversion prints them.
  const v1 = await request(base, 'GET', '/apis/events.k8s.io/v1/namespaces/ge/events/e1');
  assert.equal(v1.status, 200, v1.text);
  assert.deepEqual(v1.json.deprecatedSource, {});
  assert.equal(v1.json.deprecatedFirstTimestamp, null);
  assert.equal(v1.json.deprecatedLastTimestamp, null);
  // Empty strings the core form carries are omitempty in events.k8s.io/v1: left out.
  assert.equal('reportingController' in v1.json, false);
  assert.equal('reportingInstance' in v1.json, false);

  // ReplicationController: status.replicas 0 (no omitempty); the template's zero creationTimestamp is null,
  // and enableServiceLinks is a pod default, not a template one.
  const rc = await post('/api/v1/namespaces/ge/replicationcontrollers', {
    metadata: { name: 'rc' },
    spec: { replicas: 1, selector: { app: 'web' }, template },
  });
  assert.equal(rc.status, 201, rc.text);
  assert.deepEqual(rc.json.status, { replicas: 0 });
  assert.equal(rc.json.spec.template.metadata.creationTimestamp, null);
  assert.equal('enableServiceLinks' in rc.json.spec.template.spec, false);
  assert.deepEqual(rc.json.spec.template.spec.containers[0].resources, {});
  // An update that sends the template without the zero values is no spec change (generation stays 1).
  const put = await request(base, 'PUT', '/api/v1/namespaces/ge/replicationcontrollers/rc', {
    body: { metadata: { name: 'rc', labels: { x: 'y' } }, spec: { replicas: 1, selector: { app: 'web' }, template } },
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.json.metadata.generation, 1);

  const dep = await post('/apis/apps/v1/namespaces/ge/deployments', {
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { app: 'web' } }, template },
  });
  assert.equal(dep.status, 201, dep.text);
  assert.equal(dep.json.spec.template.metadata.creationTimestamp, null);
  assert.equal('enableServiceLinks' in dep.json.spec.template.spec, false);

  const pod = await post('/api/v1/namespaces/ge/pods', { metadata: { name: 'p' }, spec: template.spec });
  assert.equal(pod.status, 201, pod.text);
  assert.equal(pod.json.spec.enableServiceLinks, true);

  // Node: podCIDRs from podCIDR; the zero daemonEndpoints and nodeInfo structs in its status.
  const node = await post('/api/v1/nodes', { metadata: { name: 'n1' }, spec: { podCIDR: '10.2.0.0/24' } });
  assert.equal(node.status, 201, node.text);
  assert.deepEqual(node.json.spec.podCIDRs, ['10.2.0.0/24']);
  assert.deepEqual(node.json.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.equal(node.json.status.nodeInfo.machineID, '');
  assert.equal(node.json.status.nodeInfo.kubeletVersion, '');
  // podCIDR follows the first of podCIDRs.
  const dual = await post('/api/v1/nodes', { metadata: { name: 'n2' }, spec: { podCIDRs: ['10.3.0.0/24', 'fd00::/64'] } });
  assert.equal(dual.status, 201, dual.text);
  assert.equal(dual.json.spec.podCIDR, '10.3.0.0/24');
  // A status write defaults allocatable from capacity, as every write is defaulted upstream.
  const status = await request(base, 'PATCH', '/api/v1/nodes/n1/status', {
    raw: JSON.stringify({ status: { capacity: { cpu: '2' } } }),
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.status.allocatable, { cpu: '2' });
});

test('deletecollection answers with the list as read: items without kind or apiVersion', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  assert.equal((await request(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ge' } } })).status, 201);
  for (const name of ['a', 'b']) {
    const r = await request(base, 'POST', '/api/v1/namespaces/ge/configmaps', { body: { metadata: { name, labels: { dc: 'x' } } } });
    assert.equal(r.status, 201, r.text);
  }
  const res = await request(base, 'DELETE', '/api/v1/namespaces/ge/configmaps?labelSelector=dc%3Dx');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'ConfigMapList');
  assert.deepEqual(
    res.json.items.map((i: Record<string, unknown>) => Object.keys(i)),
    [['metadata'], ['metadata']],
  );
  const left = await request(base, 'GET', '/api/v1/namespaces/ge/configmaps?labelSelector=dc%3Dx');
  assert.deepEqual(left.json.items, []);
});

test('a ResourceQuota DELETE answers with the deleted quota, as upstream', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  assert.equal((await request(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ge' } } })).status, 201);
  const created = await request(base, 'POST', '/api/v1/namespaces/ge/resourcequotas', {
    body: { metadata: { name: 'q' }, spec: { hard: { pods: '2' } } },
  });
  assert.equal(created.status, 201, created.text);
  const res = await request(base, 'DELETE', '/api/v1/namespaces/ge/resourcequotas/q');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'ResourceQuota');
  assert.equal(res.json.metadata.name, 'q');
  assert.deepEqual(res.json.spec, { hard: { pods: '2' } });
});
