// Stored values of the wrong type (issue 35, part 1): an object under a
// resource's keys whose kind or apiVersion is not the resource's, written
// straight into etcd with etcdctl. kube-apiserver 1.32.4's storage codec
// refuses it while decoding (a 500 with the codec's words, on GET and on a
// LIST that includes it); it takes a value without kind or apiVersion as the
// resource's, and converts another version of the same kind. UPSTREAM_* hold
// its answers, recorded by writing the same values under its etcd prefix
// (test/faults/corrupt-values-reference.test.ts compares them live).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WRONG_TYPE_CONFIGMAPS, gadgetsCrd, storedText, wrongTypeGadgets } from './fixtures/stored-types.js';

function etcdPut(etcd: EtcdCluster, key: string, value: string): void {
  execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0]!, 'put', key, value], { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'ignore' });
}

async function call(server: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('stored values of the wrong type', { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  const group = 'f2.example.com';

  before(async () => {
    etcd = await startEtcd();
    server = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  it('built-in: a wrong kind or apiVersion is a decode error worded as upstream; a missing kind is the resource\'s', async () => {
    assert.equal((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } })).status, 201);
    assert.equal((await call(server, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'good' } })).status, 201);
    for (const [name, [value]] of Object.entries(WRONG_TYPE_CONFIGMAPS)) etcdPut(etcd, `/registry/configmaps/bench/${name}`, storedText(name, value));
    for (const [name, [, message]] of Object.entries(WRONG_TYPE_CONFIGMAPS)) {
      const res = await call(server, 'GET', `/api/v1/namespaces/bench/configmaps/${name}`);
      if (message === undefined) {
        assert.equal(res.status, 200, name);
        assert.equal(res.body.kind, 'ConfigMap');
        assert.equal(res.body.apiVersion, 'v1');
        continue;
      }
      assert.equal(res.status, 500, name);
      assert.equal(res.body.message, message, name);
      assert.equal(res.body.reason, undefined, name);
    }
    // A list that includes them aborts on the first in key order (listkind).
    const list = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps');
    assert.equal(list.status, 500);
    assert.equal(list.body.message, WRONG_TYPE_CONFIGMAPS['listkind']![1]);
    // The watch cache serves the rest.
    await until(async () => {
      const cached = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps?resourceVersion=0');
      return cached.status === 200 && cached.body.items.map((i: any) => i.metadata.name).join() === 'good,nokind';
    }, 'the cached list without the wrong types');
    // Objects apiary writes itself still read back, in every group.
    assert.equal((await call(server, 'POST', '/apis/apps/v1/namespaces/bench/deployments', deployment('d'))).status, 201);
    assert.equal((await call(server, 'GET', '/apis/apps/v1/namespaces/bench/deployments/d')).status, 200);
    assert.equal((await call(server, 'POST', '/apis/events.k8s.io/v1/namespaces/bench/events', newEvent('e'))).status, 201);
    assert.equal((await call(server, 'GET', '/api/v1/namespaces/bench/events/e')).status, 200);
    assert.equal((await call(server, 'GET', '/apis/events.k8s.io/v1/namespaces/bench/events/e')).status, 200);
    assert.equal((await call(server, 'GET', '/apis/autoscaling/v1/namespaces/bench/horizontalpodautoscalers')).status, 200);
  });

  it('with AllowUnsafeMalformedObjectDeletion: the same errors inside upstream\'s corrupt-object StorageError', async (t) => {
    const gated = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints, featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    t.after(() => gated.stop());
    const mask = (text: string): string => text.replace(/revision=[1-9]\d*/g, 'revision=<rev>');
    const corrupt = Object.entries(WRONG_TYPE_CONFIGMAPS).filter(([, [, message]]) => message !== undefined);
    const res = await call(gated, 'GET', '/api/v1/namespaces/bench/configmaps/wrongkind');
    assert.equal(res.status, 500);
    assert.equal(res.body.reason, 'InternalError');
    assert.equal(
      mask(res.body.message),
      `Internal error occurred: StorageError: corrupt object, Code: 7, Key: /configmaps/bench/wrongkind, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=<rev>: ${WRONG_TYPE_CONFIGMAPS['wrongkind']![1]}`,
    );
    // A list names every one, as kube-apiserver 1.32.4 with the gate does (recorded).
    const list = await call(gated, 'GET', '/api/v1/namespaces/bench/configmaps');
    assert.equal(list.status, 500);
    assert.equal(list.body.reason, 'StorageReadError');
    assert.deepEqual(
      list.body.details.causes.map((c: any) => mask(c.message)),
      corrupt
        .map(([name]) => name)
        .sort()
        .map((name) => `StorageError: corrupt object, Code: 7, Key: /registry/configmaps/bench/${name}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=<rev>: ${WRONG_TYPE_CONFIGMAPS[name]![1]}`),
    );
  });

  it('custom resource: another group, no apiVersion, an unlisted version or no kind is a decode error; listed versions convert', async () => {
    assert.equal((await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgetsCrd(group))).status, 201);
    await until(async () => (await call(server, 'GET', `/apis/${group}/v1/namespaces/bench/gadgets`)).status === 200, 'the CRD served');
    const cases = wrongTypeGadgets(group);
    for (const [name, [value]] of Object.entries(cases)) etcdPut(etcd, `/registry/${group}/gadgets/bench/${name}`, storedText(name, value));
    for (const [name, [value, message]] of Object.entries(cases)) {
      const res = await call(server, 'GET', `/apis/${group}/v1/namespaces/bench/gadgets/${name}`);
      if (message === undefined) {
        assert.equal(res.status, 200, name);
        assert.equal(res.body.apiVersion, `${group}/v1`, name);
        // upstream serves a wrong kind in the group as stored (`Widget`); apiary's store names its own kind.
        if (name !== 'wrongkind') assert.equal(res.body.kind, value['kind'], name);
        continue;
      }
      assert.equal(res.status, 500, name);
      const want = message === 'KIND_MISSING' ? `Object 'Kind' is missing in '${storedText(name, value)}'` : message;
      assert.equal(res.body.message, want, name);
    }
    // The server keeps serving the resource's good objects and writes.
    const made = await call(server, 'POST', `/apis/${group}/v1/namespaces/bench/gadgets`, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'made' } });
    assert.equal(made.status, 201);
    assert.equal((await call(server, 'GET', `/apis/${group}/v2/namespaces/bench/gadgets/made`)).status, 200);
  });
});

function deployment(name: string): unknown {
  return {
    metadata: { name },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };
}

function newEvent(name: string): unknown {
  return { metadata: { name }, eventTime: '2026-11-27T00:00:00.000000Z', reportingController: 'x/y', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'bench' } };
}
