// ResourceQuota admission over HTTP, case by case: scopes, several quotas at
// once, pod compute resources (init containers, sidecars, overhead), PVC
// storage and per-StorageClass names, service node ports and load balancers,
// dryRun, updates, and the limited-resources configuration. The messages are
// those kube-apiserver v1.32.4 answers for the same requests.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from '../helpers/http.js';
import { container, createNamespace, createQuota, getQuota, pod, startQuotaCluster, waitUsed, type QuotaCluster } from './helpers.js';

let c: QuotaCluster;
before(async () => {
  c = await startQuotaCluster();
});
after(async () => {
  await c?.stop();
});

const post = (ns: string, resource: string, body: unknown, query = '') =>
  request(c.server.url, 'POST', `/api/v1/namespaces/${ns}/${resource}${query}`, { body });

/** Pods may name only classes that exist (Priority admission, as upstream). */
async function createPriorityClasses(base: string, ...names: string[]): Promise<void> {
  for (const name of names) {
    const reply = await request(base, 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
      body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: 1000 },
    });
    assert.equal(reply.status, 201, reply.text);
  }
}

function forbidden(reply: { status: number; json: { message?: string; reason?: string } }, message: string): void {
  assert.equal(reply.status, 403, JSON.stringify(reply.json));
  assert.equal(reply.json.reason, 'Forbidden');
  assert.equal(reply.json.message, message);
}

describe('scopes', () => {
  test('BestEffort, Terminating and PriorityClass quotas charge only the pods in their scope', async () => {
    await createNamespace(c.server.url, 's1');
    await createPriorityClasses(c.server.url, 'high', 'low');
    await createQuota(c.server.url, 's1', 'besteffort', { hard: { pods: '1' }, scopes: ['BestEffort'] });
    await createQuota(c.server.url, 's1', 'terminating', { hard: { pods: '1', 'limits.memory': '1Gi' }, scopes: ['Terminating'] });
    await createQuota(c.server.url, 's1', 'high', {
      hard: { pods: '1' },
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
    });

    assert.equal((await post('s1', 'pods', pod('be1', [container('c')]))).status, 201);
    forbidden(await post('s1', 'pods', pod('be2', [container('c')])), 'pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');

    assert.equal((await post('s1', 'pods', pod('t1', [container('c', undefined, { memory: '512Mi' })], { activeDeadlineSeconds: 10 }))).status, 201);
    forbidden(
      await post('s1', 'pods', pod('t2', [container('c', undefined, { memory: '768Mi' })], { activeDeadlineSeconds: 10 })),
      'pods "t2" is forbidden: exceeded quota: terminating, requested: limits.memory=768Mi,pods=1, used: limits.memory=512Mi,pods=1, limited: limits.memory=1Gi,pods=1',
    );
    forbidden(
      await post('s1', 'pods', pod('t3', [container('c')], { activeDeadlineSeconds: 10 })),
      'pods "t3" is forbidden: failed quota: terminating: must specify limits.memory for: c',
    );
    // Not BestEffort, not terminating, no priority class: no quota applies.
    assert.equal((await post('s1', 'pods', pod('free', [container('c', { cpu: '1' })]))).status, 201);

    assert.equal((await post('s1', 'pods', pod('h1', [container('c', { cpu: '1' })], { priorityClassName: 'high' }))).status, 201);
    forbidden(
      await post('s1', 'pods', pod('h2', [container('c', { cpu: '1' })], { priorityClassName: 'high' })),
      'pods "h2" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1',
    );
    assert.equal((await post('s1', 'pods', pod('low', [container('c', { cpu: '1' })], { priorityClassName: 'low' }))).status, 201);

    assert.deepEqual((await getQuota(c.server.url, 's1', 'besteffort')).status?.used, { pods: '1' });
    assert.deepEqual((await getQuota(c.server.url, 's1', 'terminating')).status?.used, { 'limits.memory': '512Mi', pods: '1' });
    assert.deepEqual((await getQuota(c.server.url, 's1', 'high')).status?.used, { pods: '1' });
  });

  test('NotBestEffort and CrossNamespacePodAffinity', async () => {
    await createNamespace(c.server.url, 's2');
    await createQuota(c.server.url, 's2', 'burstable', { hard: { 'requests.cpu': '1' }, scopes: ['NotBestEffort'] });
    await createQuota(c.server.url, 's2', 'cross', { hard: { pods: '0' }, scopes: ['CrossNamespacePodAffinity'] });
    assert.equal((await post('s2', 'pods', pod('be', [container('c')]))).status, 201);
    forbidden(
      await post('s2', 'pods', pod('big', [container('c', { cpu: '1500m' })])),
      'pods "big" is forbidden: exceeded quota: burstable, requested: requests.cpu=1500m, used: requests.cpu=0, limited: requests.cpu=1',
    );
    const affinity = {
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', namespaces: ['other'], labelSelector: { matchLabels: { a: 'b' } } }],
      },
    };
    forbidden(
      await post('s2', 'pods', pod('aff', [container('c', { cpu: '100m' })], { affinity })),
      'pods "aff" is forbidden: exceeded quota: cross, requested: pods=1, used: pods=0, limited: pods=0',
    );
  });
});

describe('pods: effective requests and limits', () => {
  test('init containers count at their peak, sidecars beside the containers, overhead on top', async () => {
    await createNamespace(c.server.url, 'p1');
    await createQuota(c.server.url, 'p1', 'compute', { hard: { 'requests.cpu': '10', 'limits.memory': '10Gi', 'requests.nvidia.com/gpu': '4' } });
    // The overhead comes from the pod's RuntimeClass (RuntimeClass admission refuses one set without it).
    const rc = await request(c.server.url, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'with-overhead' }, handler: 'h', overhead: { podFixed: { cpu: '100m', memory: '64Mi' } } },
    });
    assert.equal(rc.status, 201, rc.text);
    const body = pod(
      'mixed',
      [container('main', { cpu: '500m', 'nvidia.com/gpu': '1' }, { memory: '1Gi', 'nvidia.com/gpu': '1' })],
      {
        initContainers: [
          container('side', { cpu: '250m' }, { memory: '512Mi' }, { restartPolicy: 'Always' }),
          container('setup', { cpu: '2' }, { memory: '256Mi' }),
        ],
        runtimeClassName: 'with-overhead',
      },
    );
    assert.equal((await post('p1', 'pods', body)).status, 201);
    // requests.cpu: max(500m + 250m, 2 + 250m) + 100m; limits.memory: max(1Gi + 512Mi, 256Mi + 512Mi) + 64Mi.
    assert.deepEqual((await getQuota(c.server.url, 'p1', 'compute')).status?.used, {
      'limits.memory': '1600Mi',
      'requests.cpu': '2350m',
      'requests.nvidia.com/gpu': '1',
    });
  });

  test('terminal pods cost no compute; count/pods counts them', async () => {
    await createNamespace(c.server.url, 'p2');
    await createQuota(c.server.url, 'p2', 'q', { hard: { pods: '5', 'count/pods': '5' } });
    assert.equal((await post('p2', 'pods', pod('a', [container('c')]))).status, 201);
    const status = await request(c.server.url, 'GET', '/api/v1/namespaces/p2/pods/a');
    const done = { ...status.json, status: { ...status.json.status, phase: 'Succeeded' } };
    assert.equal((await request(c.server.url, 'PUT', '/api/v1/namespaces/p2/pods/a/status', { body: done })).status, 200);
    await waitUsed(c.server.url, 'p2', 'q', { pods: '0', 'count/pods': '1' });
  });
});

describe('several quotas', () => {
  test('every matching quota must admit, and each is charged', async () => {
    await createNamespace(c.server.url, 'm1');
    await createQuota(c.server.url, 'm1', 'wide', { hard: { 'count/configmaps': '5', configmaps: '5' } });
    await createQuota(c.server.url, 'm1', 'narrow', { hard: { configmaps: '1' } });
    assert.equal((await post('m1', 'configmaps', { metadata: { name: 'a' } })).status, 201);
    forbidden(
      await post('m1', 'configmaps', { metadata: { name: 'b' } }),
      'configmaps "b" is forbidden: exceeded quota: narrow, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
    );
    assert.deepEqual((await getQuota(c.server.url, 'm1', 'wide')).status?.used, { configmaps: '1', 'count/configmaps': '1' });
    assert.deepEqual((await getQuota(c.server.url, 'm1', 'narrow')).status?.used, { configmaps: '1' });
  });

  test('dryRun is checked but not charged; generateName and other resources', async () => {
    await createNamespace(c.server.url, 'm2');
    await createQuota(c.server.url, 'm2', 'q', { hard: { 'count/secrets': '1', 'count/deployments.apps': '1', resourcequotas: '2' } });
    assert.equal((await post('m2', 'secrets', { metadata: { name: 'dry' } }, '?dryRun=All')).status, 201);
    assert.equal((await getQuota(c.server.url, 'm2', 'q')).status?.used?.['count/secrets'], '0');
    assert.equal((await post('m2', 'secrets', { metadata: { name: 's1' } })).status, 201);
    const again = await post('m2', 'secrets', { metadata: { generateName: 'x-' } });
    assert.equal(again.status, 403);
    assert.match(again.json.message, /^secrets "x-\w+" is forbidden: exceeded quota: q, requested: count\/secrets=1, used: count\/secrets=1, limited: count\/secrets=1$/);
    const deploy = {
      metadata: { name: 'd1' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const d = (name: string) => request(c.server.url, 'POST', '/apis/apps/v1/namespaces/m2/deployments', { body: { ...deploy, metadata: { name } } });
    assert.equal((await d('d1')).status, 201);
    forbidden(
      await d('d2'),
      'deployments.apps "d2" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1',
    );
    // The quota itself counts against resourcequotas=2 (q is one).
    assert.equal((await post('m2', 'resourcequotas', { metadata: { name: 'second' }, spec: { hard: { pods: '1' } } })).status, 201);
    forbidden(
      await post('m2', 'resourcequotas', { metadata: { name: 'third' }, spec: { hard: { pods: '1' } } }),
      'resourcequotas "third" is forbidden: exceeded quota: q, requested: resourcequotas=1, used: resourcequotas=2, limited: resourcequotas=2',
    );
  });

  test('a quota whose status the controller has not filled restricts nothing', async () => {
    const bare = await startQuotaCluster({ controller: false });
    try {
      await createNamespace(bare.server.url, 'n');
      const q = await bare.post('/api/v1/namespaces/n/resourcequotas', { metadata: { name: 'q' }, spec: { hard: { 'count/configmaps': '0' } } });
      assert.equal(q.status, 201);
      assert.deepEqual(q.json.status, {});
      assert.equal((await bare.post('/api/v1/namespaces/n/configmaps', { metadata: { name: 'a' } })).status, 201);
      // With status.hard but no usage for it: upstream's "status unknown".
      const current = (await request(bare.server.url, 'GET', '/api/v1/namespaces/n/resourcequotas/q')).json;
      current.status = { hard: { 'count/configmaps': '0' } };
      assert.equal((await request(bare.server.url, 'PUT', '/api/v1/namespaces/n/resourcequotas/q/status', { body: current })).status, 200);
      forbidden(
        await bare.post('/api/v1/namespaces/n/configmaps', { metadata: { name: 'b' } }),
        'configmaps "b" is forbidden: status unknown for quota: q, resources: count/configmaps',
      );
    } finally {
      await bare.stop();
    }
  });
});

describe('storage and services', () => {
  test('requests.storage, per-StorageClass names, node ports and load balancers', async () => {
    await createNamespace(c.server.url, 'v1');
    await createQuota(c.server.url, 'v1', 'storage', {
      hard: {
        'requests.storage': '3Gi',
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
        'services.nodeports': '2',
        'services.loadbalancers': '0',
      },
    });
    // The class lets its claims grow (PersistentVolumeClaimResize refuses otherwise, before quota).
    const gold = await request(c.server.url, 'POST', '/apis/storage.k8s.io/v1/storageclasses', {
      body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gold' }, provisioner: 'example.com/p', allowVolumeExpansion: true },
    });
    assert.equal(gold.status, 201, gold.text);
    const pvc = (name: string, storage: string, cls?: string) => ({
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...(cls !== undefined ? { storageClassName: cls } : {}) },
    });
    assert.equal((await post('v1', 'persistentvolumeclaims', pvc('g1', '2Gi', 'gold'))).status, 201);
    forbidden(
      await post('v1', 'persistentvolumeclaims', pvc('g2', '500Mi', 'gold')),
      'persistentvolumeclaims "g2" is forbidden: exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1, used: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1, limited: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1',
    );
    forbidden(
      await post('v1', 'persistentvolumeclaims', pvc('s3', '2Gi')),
      'persistentvolumeclaims "s3" is forbidden: exceeded quota: storage, requested: requests.storage=2Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi',
    );
    const svc = (name: string, type: string, ports: number) => ({
      metadata: { name },
      spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) },
    });
    forbidden(
      await post('v1', 'services', svc('np', 'NodePort', 3)),
      'services "np" is forbidden: exceeded quota: storage, requested: services.nodeports=3, used: services.nodeports=0, limited: services.nodeports=2',
    );
    forbidden(
      await post('v1', 'services', svc('lb', 'LoadBalancer', 1)),
      'services "lb" is forbidden: exceeded quota: storage, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0',
    );
    assert.equal((await post('v1', 'services', svc('np2', 'NodePort', 2))).status, 201);
    // Growing a bound claim is an update that is charged the difference.
    const bound = (await request(c.server.url, 'GET', '/api/v1/namespaces/v1/persistentvolumeclaims/g1')).json;
    bound.status = { phase: 'Bound' };
    assert.equal((await request(c.server.url, 'PUT', '/api/v1/namespaces/v1/persistentvolumeclaims/g1/status', { body: bound })).status, 200);
    const g1 = (await request(c.server.url, 'GET', '/api/v1/namespaces/v1/persistentvolumeclaims/g1')).json;
    g1.spec.resources.requests.storage = '4Gi';
    forbidden(
      await request(c.server.url, 'PUT', '/api/v1/namespaces/v1/persistentvolumeclaims/g1', { body: g1 }),
      'persistentvolumeclaims "g1" is forbidden: exceeded quota: storage, requested: requests.storage=2Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi',
    );
    assert.deepEqual((await getQuota(c.server.url, 'v1', 'storage')).status?.used, {
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'requests.storage': '2Gi',
      'services.loadbalancers': '0',
      'services.nodeports': '2',
    });
  });
});

describe('--admission-control-config-file', () => {
  test('limited resources must be covered by a quota', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-admission-'));
    const file = path.join(dir, 'admission.yaml');
    fs.writeFileSync(
      file,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: ResourceQuota',
        '  configuration:',
        '    apiVersion: apiserver.config.k8s.io/v1',
        '    kind: ResourceQuotaConfiguration',
        '    limitedResources:',
        '    - resource: pods',
        '      matchContains: [requests.cpu]',
        '    - resource: pods',
        '      matchScopes:',
        '      - {scopeName: PriorityClass, operator: In, values: [high]}',
        '',
      ].join('\n'),
    );
    const limited = await startQuotaCluster({ server: { admissionControlConfigFile: file } });
    try {
      await createNamespace(limited.server.url, 'l');
      await createPriorityClasses(limited.server.url, 'high');
      const p = (name: string) => request(limited.server.url, 'POST', '/api/v1/namespaces/l/pods', { body: pod(name, [container('c', { cpu: '100m' })]) });
      forbidden(await p('a'), 'pods "a" is forbidden: insufficient quota to consume: requests.cpu');
      // A pod that does not consume cpu is not limited.
      assert.equal((await request(limited.server.url, 'POST', '/api/v1/namespaces/l/pods', { body: pod('be', [container('c')]) })).status, 201);
      await createQuota(limited.server.url, 'l', 'cpu', { hard: { 'requests.cpu': '1' } });
      assert.equal((await p('b')).status, 201);
      // A pod in a limited scope needs a quota with that scope (upstream answers a bare 500 here).
      const high = await request(limited.server.url, 'POST', '/api/v1/namespaces/l/pods', { body: pod('h', [container('c', { cpu: '100m' })], { priorityClassName: 'high' }) });
      assert.equal(high.status, 500);
      assert.equal(high.json.message, 'insufficient quota to match these scopes: [{PriorityClass In [high]}]');
      await createQuota(limited.server.url, 'l', 'high', {
        hard: { pods: '5' },
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
      });
      const covered = await request(limited.server.url, 'POST', '/api/v1/namespaces/l/pods', { body: pod('h', [container('c', { cpu: '100m' })], { priorityClassName: 'high' }) });
      assert.equal(covered.status, 201, covered.text);
    } finally {
      await limited.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
