// Quotas and LimitRanges through the real kubectl 1.32, against apiary with
// the resource quota controller running: what a user sees is what a real
// cluster shows (messages and `kubectl describe` checked against a
// kube-apiserver v1.32.4).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/kubectl.js';
import { getQuota, startQuotaCluster, waitUsed, type QuotaCluster } from './helpers.js';
import { until } from '../helpers/wait.js';

let c: QuotaCluster;
const kubectl = (...args: string[]) => runKubectl(c.server.kubeconfigPath, args);

before(async () => {
  c = await startQuotaCluster();
});
after(async () => {
  await c?.stop();
});

describe('kubectl and quotas', () => {
  test('create quota, creates beyond it are refused with upstream\'s message, describe tells the truth', async () => {
    assert.equal((await kubectl('create', 'ns', 'k1')).code, 0);
    const created = await kubectl('-n', 'k1', 'create', 'quota', 'q', '--hard=count/configmaps=2,pods=1,requests.cpu=1');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'resourcequota/q created\n');
    await waitUsed(c.server.url, 'k1', 'q', { 'count/configmaps': '0', pods: '0', 'requests.cpu': '0' });

    assert.equal((await kubectl('-n', 'k1', 'create', 'cm', 'c1')).code, 0);
    assert.equal((await kubectl('-n', 'k1', 'create', 'cm', 'c2')).code, 0);
    const refused = await kubectl('-n', 'k1', 'create', 'cm', 'c3');
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'error: failed to create configmap: configmaps "c3" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2\n',
    );

    const noRequests = await kubectl('-n', 'k1', 'run', 'p1', '--image=nginx');
    assert.equal(noRequests.code, 1);
    assert.equal(noRequests.stderr, 'Error from server (Forbidden): pods "p1" is forbidden: failed quota: q: must specify requests.cpu for: p1\n');

    const podYaml = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: p2}',
      'spec:',
      '  containers:',
      '  - {name: c, image: nginx, resources: {requests: {cpu: 600m}}}',
    ].join('\n');
    assert.equal((await runKubectl(c.server.kubeconfigPath, ['-n', 'k1', 'create', '-f', '-'], { stdin: podYaml })).code, 0);
    const tooMuch = await runKubectl(c.server.kubeconfigPath, ['-n', 'k1', 'create', '-f', '-'], { stdin: podYaml.replace('p2', 'p3') });
    assert.equal(
      tooMuch.stderr,
      'Error from server (Forbidden): error when creating "STDIN": pods "p3" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=600m, used: pods=1,requests.cpu=600m, limited: pods=1,requests.cpu=1\n',
    );

    const described = await kubectl('-n', 'k1', 'describe', 'quota', 'q');
    assert.equal(described.code, 0, described.stderr);
    assert.equal(
      described.stdout,
      [
        'Name:             q',
        'Namespace:        k1',
        'Resource          Used  Hard',
        '--------          ----  ----',
        'count/configmaps  2     2',
        'pods              1     1',
        'requests.cpu      600m  1',
        '',
      ].join('\n'),
    );
    const table = await kubectl('-n', 'k1', 'get', 'quota', 'q', '--no-headers');
    assert.match(table.stdout, /^q\s+\S+\s+count\/configmaps: 2\/2, pods: 1\/1, requests.cpu: 600m\/1\s*\n$/);
  });

  test('deleting objects frees quota within a second', async () => {
    assert.equal((await kubectl('create', 'ns', 'k2')).code, 0);
    assert.equal((await kubectl('-n', 'k2', 'create', 'quota', 'q', '--hard=count/configmaps=1')).code, 0);
    await waitUsed(c.server.url, 'k2', 'q', { 'count/configmaps': '0' });
    assert.equal((await kubectl('-n', 'k2', 'create', 'cm', 'a')).code, 0);
    assert.equal((await kubectl('-n', 'k2', 'create', 'cm', 'b')).code, 1);
    assert.equal((await kubectl('-n', 'k2', 'delete', 'cm', 'a')).code, 0);
    const deletedAt = Date.now();
    await waitUsed(c.server.url, 'k2', 'q', { 'count/configmaps': '0' }, 1000);
    assert.ok(Date.now() - deletedAt < 1000);
    const again = await kubectl('-n', 'k2', 'create', 'cm', 'b');
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await getQuota(c.server.url, 'k2', 'q')).status?.used?.['count/configmaps'], '1');
  });

  test("a LimitRange's defaults appear on a pod created without resources", async () => {
    assert.equal((await kubectl('create', 'ns', 'k3')).code, 0);
    const lr = [
      'apiVersion: v1',
      'kind: LimitRange',
      'metadata: {name: lr}',
      'spec:',
      '  limits:',
      '  - type: Container',
      '    default: {cpu: 500m, memory: 256Mi}',
      '    defaultRequest: {cpu: 100m}',
    ].join('\n');
    assert.equal((await runKubectl(c.server.kubeconfigPath, ['-n', 'k3', 'create', '-f', '-'], { stdin: lr })).code, 0);
    const run = await kubectl('-n', 'k3', 'run', 'd1', '--image=nginx');
    assert.equal(run.code, 0, run.stderr);
    const got = await kubectl('-n', 'k3', 'get', 'pod', 'd1', '-o', 'jsonpath={.spec.containers[0].resources}{"\\n"}{.metadata.annotations}{"\\n"}{.status.qosClass}');
    const [resources, annotations, qos] = got.stdout.split('\n');
    assert.deepEqual(JSON.parse(resources!), { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.deepEqual(JSON.parse(annotations!), {
      'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container d1; cpu, memory limit for container d1',
    });
    assert.equal(qos, 'Burstable');
  });

  test('kubectl describe of a quota before and after its status is filled', async () => {
    assert.equal((await kubectl('create', 'ns', 'k4')).code, 0);
    assert.equal((await kubectl('-n', 'k4', 'create', 'quota', 'objects', '--hard=count/secrets=3,services=2')).code, 0);
    await until('status', async () => (await getQuota(c.server.url, 'k4', 'objects')).status?.hard !== undefined);
    assert.equal((await kubectl('-n', 'k4', 'create', 'secret', 'generic', 's1', '--from-literal=a=b')).code, 0);
    const described = await kubectl('-n', 'k4', 'describe', 'quota');
    assert.equal(
      described.stdout,
      ['Name:          objects', 'Namespace:     k4', 'Resource       Used  Hard', '--------       ----  ----', 'count/secrets  1     3', 'services       0     2', ''].join('\n'),
    );
  });
});
