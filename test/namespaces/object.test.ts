// The Namespace object and its deletion, as a client sees them over HTTP, on a
// bare server (no controllers): names, defaults on create, what updates,
// /status and /finalize may change, and the Terminating state.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Cluster, ns, startCluster } from './helpers.js';
import { request } from '../helpers/http.js';

let cluster: Cluster;
let base: string;

before(async () => {
  cluster = await startCluster({ controllers: false });
  base = cluster.server.url;
});
after(() => cluster.stop());

test('a namespace name must be a DNS-1123 label (422 with upstream message)', async () => {
  const res = await request(base, 'POST', '/api/v1/namespaces', { body: ns('Not_A_Label') });
  assert.equal(res.status, 422);
  assert.equal(res.json.reason, 'Invalid');
  assert.equal(
    res.json.message,
    `Namespace "Not_A_Label" is invalid: metadata.name: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
  );
  assert.equal((await request(base, 'POST', '/api/v1/namespaces', { body: ns('a.b') })).status, 422, 'dots are not allowed in a label');
});

test('on create: phase Active, "kubernetes" appended to spec.finalizers, others kept', async () => {
  const plain = await request(base, 'POST', '/api/v1/namespaces', { body: ns('plain') });
  assert.equal(plain.status, 201);
  assert.deepEqual(plain.json.status, { phase: 'Active' });
  assert.deepEqual(plain.json.spec, { finalizers: ['kubernetes'] });

  const other = await request(base, 'POST', '/api/v1/namespaces', { body: { ...ns('other', ['example.com/origin']), status: { phase: 'Terminating' } } });
  assert.equal(other.status, 201);
  assert.deepEqual(other.json.spec.finalizers, ['example.com/origin', 'kubernetes']);
  assert.equal(other.json.status.phase, 'Active', 'a client cannot create a Terminating namespace');

  const both = await request(base, 'POST', '/api/v1/namespaces', { body: ns('both', ['kubernetes', 'example.com/origin']) });
  assert.deepEqual(both.json.spec.finalizers, ['kubernetes', 'example.com/origin'], 'already there: order kept, not doubled');
});

test('a normal update keeps spec.finalizers and status; /finalize changes spec.finalizers; /status changes status only', async () => {
  const created = (await request(base, 'POST', '/api/v1/namespaces', { body: ns('upd') })).json;
  const put = await request(base, 'PUT', '/api/v1/namespaces/upd', { body: {
    ...created,
    metadata: { ...created.metadata, labels: { team: 'a' } },
    spec: { finalizers: ['example.com/x'] },
    status: { phase: 'Terminating' },
  } });
  assert.equal(put.status, 200);
  assert.deepEqual(put.json.metadata.labels, { team: 'a', 'kubernetes.io/metadata.name': 'upd' });
  assert.deepEqual(put.json.spec.finalizers, ['kubernetes']);
  assert.equal(put.json.status.phase, 'Active');

  const fin = await request(base, 'PUT', '/api/v1/namespaces/upd/finalize', { body: { ...put.json, spec: { finalizers: ['kubernetes', 'example.com/x'] } } });
  assert.equal(fin.status, 200);
  assert.deepEqual(fin.json.spec.finalizers, ['kubernetes', 'example.com/x']);

  const status = await request(base, 'PUT', '/api/v1/namespaces/upd/status', { body: {
    ...fin.json,
    spec: { finalizers: [] },
    status: { phase: 'Active', conditions: [{ type: 'Example', status: 'True' }] },
  } });
  assert.equal(status.status, 200);
  assert.deepEqual(status.json.spec.finalizers, ['kubernetes', 'example.com/x'], '/status does not touch spec');
  assert.equal(status.json.status.conditions[0].type, 'Example');

  const badName = await request(base, 'PUT', '/api/v1/namespaces/upd/finalize', { body: { ...status.json, spec: { finalizers: ['not valid'] } } });
  assert.equal(badName.status, 422);
  // As upstream: the name-part cause, then the standard-or-qualified one.
  assert.match(badName.json.message, /^Namespace "upd" is invalid: \[spec\.finalizers\[0\]: Invalid value: "not valid": name part must /);
  assert.deepEqual(
    badName.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message.startsWith('Invalid value: "not valid": name is neither')]),
    [
      ['spec.finalizers[0]', false],
      ['spec.finalizers[0]', true],
    ],
  );

  // /finalize takes the body's metadata (labels and annotations as sent), keeps the stored status.
  const relabel = await request(base, 'PUT', '/api/v1/namespaces/upd/finalize', {
    body: { ...status.json, metadata: { ...status.json.metadata, labels: { only: 'this' }, annotations: undefined }, status: { phase: 'Terminating' } },
  });
  assert.equal(relabel.status, 200, relabel.text);
  assert.deepEqual(relabel.json.metadata.labels, { only: 'this', 'kubernetes.io/metadata.name': 'upd' });
  assert.equal(relabel.json.status.phase, 'Active');
});

test('"finalize" is a namespace subresource, never a namespaced resource', async () => {
  await request(base, 'POST', '/api/v1/namespaces', { body: ns('reserved') });
  const get = await request(base, 'GET', '/api/v1/namespaces/reserved/finalize');
  assert.equal(get.status, 405, 'GET on /finalize is not a list of "finalize" objects');
  const post = await request(base, 'POST', '/api/v1/namespaces/reserved/finalize', { body: { metadata: { name: 'x' } } });
  assert.notEqual(post.status, 201);
  const discovery = await request(base, 'GET', '/api/v1');
  const names: string[] = discovery.json.resources.map((r: { name: string }) => r.name);
  assert.ok(names.includes('namespaces/finalize'));
  assert.ok(!names.includes('finalize'));
});

test('first DELETE: 200 with the namespace, deletionTimestamp set, phase Terminating; it stays until finalizers are empty', async () => {
  await request(base, 'POST', '/api/v1/namespaces', { body: ns('doomed', ['example.com/origin']) });
  const before = Date.now();
  const del = await request(base, 'DELETE', '/api/v1/namespaces/doomed');
  assert.equal(del.status, 200);
  assert.equal(del.json.kind, 'Namespace');
  assert.equal(del.json.status.phase, 'Terminating');
  const ts = Date.parse(del.json.metadata.deletionTimestamp);
  assert.ok(Math.abs(ts - before) < 5_000, `deletionTimestamp is the server's time: ${del.json.metadata.deletionTimestamp}`);

  // kube-apiserver 1.32: a DELETE of a Terminating namespace answers 200 with it, unchanged.
  const again = await request(base, 'DELETE', '/api/v1/namespaces/doomed');
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.kind, 'Namespace');
  assert.equal(again.json.status.phase, 'Terminating');
  assert.equal(again.json.metadata.resourceVersion, del.json.metadata.resourceVersion, 'nothing was written');
  assert.equal(again.json.metadata.deletionTimestamp, del.json.metadata.deletionTimestamp);

  // Phase is derived: a terminating namespace cannot be set back to Active.
  const cur = (await request(base, 'GET', '/api/v1/namespaces/doomed')).json;
  const revive = await request(base, 'PUT', '/api/v1/namespaces/doomed/status', { body: { ...cur, status: { phase: 'Active' } } });
  assert.equal(revive.status, 422);
  assert.equal(
    revive.json.message,
    'Namespace "doomed" is invalid: status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty',
  );

  // One finalizer removed: still there, still Terminating.
  const one = await request(base, 'PUT', '/api/v1/namespaces/doomed/finalize', { body: { ...cur, spec: { finalizers: ['example.com/origin'] } } });
  assert.equal(one.status, 200);
  assert.equal((await request(base, 'GET', '/api/v1/namespaces/doomed')).json.status.phase, 'Terminating');

  const latest = (await request(base, 'GET', '/api/v1/namespaces/doomed')).json;
  const empty = await request(base, 'PUT', '/api/v1/namespaces/doomed/finalize', { body: { ...latest, spec: { finalizers: [] } } });
  assert.equal(empty.status, 200);
  // As upstream's ShouldDeleteNamespaceDuringUpdate: the update that empties the
  // last finalizers of a terminating namespace removes it.
  assert.equal((await request(base, 'GET', '/api/v1/namespaces/doomed')).status, 404);
});

test('metadata.finalizers hold a namespace whose spec.finalizers are empty', async () => {
  const created = await request(base, 'POST', '/api/v1/namespaces', { body: { ...ns('held'), metadata: { name: 'held', finalizers: ['example.com/meta'] } } });
  assert.equal(created.status, 201);
  const del = await request(base, 'DELETE', '/api/v1/namespaces/held');
  assert.equal(del.status, 200);
  const fin = await request(base, 'PUT', '/api/v1/namespaces/held/finalize', { body: { ...del.json, spec: { finalizers: [] } } });
  assert.equal(fin.status, 200);
  const still = await request(base, 'GET', '/api/v1/namespaces/held');
  assert.equal(still.status, 200, 'metadata.finalizers still hold it');
  assert.equal(still.json.status.phase, 'Terminating');
  const released = await request(base, 'PUT', '/api/v1/namespaces/held', { body: { ...still.json, metadata: { ...still.json.metadata, finalizers: [] } } });
  assert.equal(released.status, 200);
  assert.equal((await request(base, 'GET', '/api/v1/namespaces/held')).status, 404);
});

test('the first DELETE only marks a namespace Terminating even when no finalizer is left; the next one removes it', async () => {
  const created = await request(base, 'POST', '/api/v1/namespaces', { body: ns('bare') });
  assert.equal(created.status, 201);
  const fin = await request(base, 'PUT', '/api/v1/namespaces/bare/finalize', { body: { ...created.json, spec: { finalizers: [] } } });
  assert.equal(fin.status, 200);
  assert.deepEqual(fin.json.spec, {});
  const first = await request(base, 'DELETE', '/api/v1/namespaces/bare');
  assert.equal(first.status, 200);
  assert.equal(first.json.status.phase, 'Terminating');
  assert.equal((await request(base, 'GET', '/api/v1/namespaces/bare')).json.status.phase, 'Terminating');
  const second = await request(base, 'DELETE', '/api/v1/namespaces/bare');
  assert.equal(second.status, 200);
  assert.equal((await request(base, 'GET', '/api/v1/namespaces/bare')).status, 404);
});
