// The corrupt-value cases as a differential comparison, live: the same values
// written with etcdctl under a real kube-apiserver 1.32.4's etcd prefix and
// under apiary's, and the answers compared (status, reason, message; LIST at
// resourceVersion=0 by the names it serves). Skipped where the reference
// binaries are not built (scripts/run-tests.mjs builds them); the recorded
// answers in corrupt-values.test.ts hold apiary to the same wherever they are not.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer } from '../helpers/server.js';
import { REFERENCE_BINARIES } from '../compat/differential/reference.js';
import { send, type Target } from '../compat/differential/client.js';
import { startKubeApiserver } from './fixtures/kube-apiserver.js';
import { WRONG_TYPE_CONFIGMAPS, gadgetsCrd, storedText, wrongTypeGadgets } from './fixtures/stored-types.js';

const CORRUPT: Record<string, string> = {
  garbage: 'xxxxnotjson',
  trunc: '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"t"',
  scalar: '42',
  enc: 'k8s:enc:aescbc:v1:key1:xxxx',
  b64: 'aGVsbG8=',
  badjson: '{"kind":"ConfigMap" x}',
};

const missing = [REFERENCE_BINARIES.kubeApiserver, REFERENCE_BINARIES.etcd].filter((p) => !existsSync(p));

interface Answer {
  status: number;
  reason?: string;
  message?: string;
  names?: string[];
}

async function ask(target: Target, path: string): Promise<Answer> {
  const reply = await send(target, 'GET', path, { accept: 'application/json' });
  const body = JSON.parse(reply.body.toString('utf8')) as { reason?: string; message?: string; items?: Array<{ metadata: { name: string } }> };
  const answer: Answer = { status: reply.status };
  if (body.reason !== undefined) answer.reason = body.reason;
  if (body.message !== undefined) answer.message = body.message.replace(/revision=[1-9]\d*/g, 'revision=<rev>');
  if (body.items !== undefined) answer.names = body.items.map((i) => i.metadata.name);
  return answer;
}

async function post(target: Target, path: string, body: unknown): Promise<number> {
  return (await send(target, 'POST', path, { 'content-type': 'application/json' }, JSON.stringify(body))).status;
}

test('corrupt values: apiary answers as kube-apiserver 1.32.4 (live)', { timeout: 180_000, skip: missing.length > 0 ? `reference binaries missing: ${missing.join(', ')}` : false }, async (t) => {
  const clusters: EtcdCluster[] = [];
  t.after(async () => {
    for (const c of clusters) await c.stop();
  });
  const refEtcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
  clusters.push(refEtcd);
  const ourEtcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
  clusters.push(ourEtcd);

  const kubeApiserver = await startKubeApiserver(refEtcd.endpoints[0]!);
  t.after(() => kubeApiserver.stop());
  const reference = kubeApiserver.target;
  const server = await startTestServer({ storage: 'etcd', etcdServers: ourEtcd.endpoints });
  t.after(() => server.stop());
  const apiary: Target = { name: 'apiary', base: server.url };

  for (const [target, etcd] of [
    [reference, refEtcd],
    [apiary, ourEtcd],
  ] as const) {
    assert.equal(await post(target, '/api/v1/namespaces', { metadata: { name: 'bench' } }), 201);
    assert.equal(await post(target, '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'good' } }), 201);
    for (const [name, value] of Object.entries(CORRUPT)) {
      execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0]!, 'put', `/registry/configmaps/bench/${name}`, value], {
        env: { ...process.env, ETCDCTL_API: '3' },
        stdio: 'ignore',
      });
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  const paths = [
    ...Object.keys(CORRUPT).map((name) => `/api/v1/namespaces/bench/configmaps/${name}`),
    '/api/v1/namespaces/bench/configmaps',
    '/api/v1/configmaps?limit=500',
    '/api/v1/namespaces/bench/configmaps?resourceVersion=0',
    '/api/v1/namespaces/bench/configmaps/good',
  ];
  for (const path of paths) {
    const [want, got] = await Promise.all([ask(reference, path), ask(apiary, path)]);
    if (want.names !== undefined) {
      assert.deepEqual(got.names, want.names, path);
      assert.equal(got.status, want.status, path);
    } else if (want.status === 200) assert.equal(got.status, 200, path);
    else assert.deepEqual(got, want, path);
  }

  // Values of the wrong type, after the comparisons above: once one reaches upstream's watch cache of
  // configmaps, that cache relists and fails, and every cached list of the resource answers 429
  // "storage is (re)initializing" in every namespace (apiary's cache skips the value and serves
  // the rest: a deliberate difference, not compared). Then a
  // custom resource's storage holding values of other groups and versions.
  const group = 'f2.example.com';
  const put = (etcd: EtcdCluster, key: string, value: string): void => {
    execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0]!, 'put', key, value], { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'ignore' });
  };
  for (const [target, etcd] of [
    [reference, refEtcd],
    [apiary, ourEtcd],
  ] as const) {
    assert.equal(await post(target, '/api/v1/namespaces', { metadata: { name: 'types' } }), 201);
    assert.equal(await post(target, '/api/v1/namespaces/types/configmaps', { metadata: { name: 'good' } }), 201);
    for (const [name, [value]] of Object.entries(WRONG_TYPE_CONFIGMAPS)) put(etcd, `/registry/configmaps/types/${name}`, storedText(name, value, 'types'));
    assert.equal(await post(target, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgetsCrd(group)), 201);
  }
  for (const target of [reference, apiary]) {
    const deadline = Date.now() + 30_000;
    while ((await send(target, 'GET', `/apis/${group}/v1/namespaces/types/gadgets/none`, {})).status !== 404) {
      if (Date.now() > deadline) throw new Error(`${target.name}: the CRD is not served`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  for (const etcd of [refEtcd, ourEtcd]) {
    for (const [name, [value]] of Object.entries(wrongTypeGadgets(group))) put(etcd, `/registry/${group}/gadgets/types/${name}`, storedText(name, value, 'types'));
  }
  await new Promise((r) => setTimeout(r, 500));
  const typePaths = [
    ...Object.keys(WRONG_TYPE_CONFIGMAPS).map((name) => `/api/v1/namespaces/types/configmaps/${name}`),
    '/api/v1/namespaces/types/configmaps',
    // A custom resource's list answers 429 upstream too while its watch cache cannot list: not compared.
    ...Object.keys(wrongTypeGadgets(group)).map((name) => `/apis/${group}/v1/namespaces/types/gadgets/${name}`),
  ];
  for (const path of typePaths) {
    const [want, got] = await Promise.all([ask(reference, path), ask(apiary, path)]);
    if (want.status === 200) assert.equal(got.status, 200, path);
    else assert.deepEqual(got, want, path);
  }
});
