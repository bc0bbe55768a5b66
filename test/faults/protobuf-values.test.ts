// Values kube-apiserver stored (issue 35, part 1): kube-apiserver 1.32.4 keeps
// built-in objects in etcd as protobuf (`k8s\0` + runtime.Unknown, its
// default storage media type). apiary started on that etcd afterwards reads
// them as objects (GET, LIST, the watch cache), updates them (writing JSON),
// and a protobuf value that is no object is a decode error, not a crash.
// Skipped where the reference binaries are not built.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startEtcd } from '../helpers/etcd.js';
import { startTestServer } from '../helpers/server.js';
import { REFERENCE_BINARIES } from '../compat/differential/reference.js';
import { send, type Target } from '../compat/differential/client.js';
import { startKubeApiserver } from './fixtures/kube-apiserver.js';

const missing = [REFERENCE_BINARIES.kubeApiserver, REFERENCE_BINARIES.etcd].filter((p) => !existsSync(p));

async function json(target: Target, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const reply = await send(target, method, path, { accept: 'application/json', 'content-type': 'application/json' }, body === undefined ? undefined : JSON.stringify(body));
  return { status: reply.status, body: JSON.parse(reply.body.toString('utf8')) };
}

test('protobuf values kube-apiserver 1.32.4 stored are read and updated by apiary', { timeout: 180_000, skip: missing.length > 0 ? `reference binaries missing: ${missing.join(', ')}` : false }, async (t) => {
  const etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
  t.after(() => etcd.stop());
  const etcdctl = (args: string[], input?: Buffer): string =>
    execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0]!, ...args], { env: { ...process.env, ETCDCTL_API: '3' }, ...(input ? { input } : {}) }).toString('latin1');

  // kube-apiserver writes the objects, then goes away.
  const kube = await startKubeApiserver(etcd.endpoints[0]!);
  const ref = kube.target;
  const written: Record<string, any> = {};
  try {
    assert.equal((await json(ref, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench', labels: { team: 'a' } } })).status, 201);
    const cm = await json(ref, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'cm', labels: { app: 'x' }, annotations: { note: 'ünïcødé ✓' } }, data: { key: 'value', empty: '' }, binaryData: { bin: 'AAECAwT/' } });
    assert.equal(cm.status, 201);
    written['configmaps/cm'] = cm.body;
    const secret = await json(ref, 'POST', '/api/v1/namespaces/bench/secrets', { metadata: { name: 'sec' }, type: 'Opaque', data: { password: 'c2VjcmV0' } });
    assert.equal(secret.status, 201);
    written['secrets/sec'] = secret.body;
    const deploy = await json(ref, 'POST', '/apis/apps/v1/namespaces/bench/deployments', {
      metadata: { name: 'web' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } },
    });
    assert.equal(deploy.status, 201);
    written['deployments/web'] = deploy.body;
  } finally {
    await kube.stop();
  }
  // It stored them in protobuf.
  const raw = etcdctl(['get', '/registry/configmaps/bench/cm', '--print-value-only']);
  assert.ok(raw.startsWith('k8s\u0000'), 'kube-apiserver stores protobuf');
  // Protobuf values that are no configmap (etcdctl reads a value with a NUL from stdin): cut short,
  // nothing after the magic, and the Secret kube-apiserver stored, copied under a configmap's key.
  etcdctl(['put', '/registry/configmaps/bench/broken'], Buffer.from('k8s\u0000\u0012\u00ff\u00ff\u00ff', 'latin1'));
  etcdctl(['put', '/registry/configmaps/bench/empty'], Buffer.from('k8s\u0000', 'latin1'));
  const secretBytes = Buffer.from(etcdctl(['get', '/registry/secrets/bench/sec', '--print-value-only']), 'latin1');
  etcdctl(['put', '/registry/configmaps/bench/secret'], secretBytes.subarray(0, secretBytes.length - 1));

  const server = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
  t.after(() => server.stop());
  const apiary: Target = { name: 'apiary', base: server.url };
  const strip = (o: any): any => {
    const { managedFields: _m, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  for (const [path, want] of [
    ['/api/v1/namespaces/bench/configmaps/cm', written['configmaps/cm']],
    ['/api/v1/namespaces/bench/secrets/sec', written['secrets/sec']],
    ['/apis/apps/v1/namespaces/bench/deployments/web', written['deployments/web']],
  ] as const) {
    const got = await json(apiary, 'GET', path);
    assert.equal(got.status, 200, path);
    // What apiary serves is what kube-apiserver answered when it wrote it (managedFields too, by content).
    assert.deepEqual(strip(got.body), strip(want), path);
    assert.deepEqual(got.body.metadata.managedFields.map((e: any) => e.fieldsV1), want.metadata.managedFields.map((e: any) => e.fieldsV1), path);
  }
  const ns = await json(apiary, 'GET', '/api/v1/namespaces/bench');
  assert.equal(ns.status, 200);
  assert.equal(ns.body.metadata.labels.team, 'a');

  // kube-apiserver 1.32.4's answers to the same values (measured): plain 500s.
  for (const [name, message] of [
    ['broken', 'unexpected EOF'],
    ['empty', 'empty body'],
    ['secret', 'converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
  ]) {
    const got = await json(apiary, 'GET', `/api/v1/namespaces/bench/configmaps/${name}`);
    assert.equal(got.status, 500, name);
    assert.equal(got.body.message, message, name);
    assert.equal(got.body.reason, undefined, name);
  }
  // The watch cache holds the readable ones.
  const cached = await json(apiary, 'GET', '/api/v1/namespaces/bench/configmaps?resourceVersion=0');
  assert.equal(cached.status, 200);
  assert.deepEqual(cached.body.items.map((i: any) => i.metadata.name), ['cm']);
  // An update reads the protobuf value and writes JSON back.
  const cm = written['configmaps/cm'];
  const updated = await send(apiary, 'PATCH', '/api/v1/namespaces/bench/configmaps/cm', { 'content-type': 'application/merge-patch+json', accept: 'application/json' }, JSON.stringify({ data: { more: 'x' } }));
  assert.equal(updated.status, 200);
  const after = JSON.parse(updated.body.toString('utf8'));
  assert.deepEqual(after.data, { ...cm.data, more: 'x' });
  assert.deepEqual(after.binaryData, cm.binaryData);
  assert.equal(after.metadata.annotations.note, 'ünïcødé ✓');
  assert.ok(!etcdctl(['get', '/registry/configmaps/bench/cm', '--print-value-only']).startsWith('k8s\u0000'), 'written back in apiary\'s encoding');
  // Deployments scale from what kube-apiserver stored.
  const scale = await json(apiary, 'GET', '/apis/apps/v1/namespaces/bench/deployments/web/scale');
  assert.equal(scale.status, 200);
  assert.equal(scale.body.spec.replicas, 3);
});
