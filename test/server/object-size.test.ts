// The stored object size limit (--max-object-size-bytes, default 1.5 MiB as
// etcd's request limit): every write path that would store a larger object —
// create, update, merge patch, status update, a finalizer added — is refused
// with 413 RequestEntityTooLarge and stores nothing; smaller objects pass.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertStatus, get, request } from '../helpers/http.js';

const TOO_LARGE = 'etcdserver: request is too large';

function podTemplate(name: string, argBytes: number): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name }, template: { spec: { containers: [{ name: 'c', image: 'i', args: ['x'.repeat(argBytes)] }] } } };
}

describe('the default limit: 1.5 MiB', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ storage: 'memory' });
    await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } } });
  });
  after(() => server.stop());

  test('a 1.9 MB object is refused, a 1.4 MB one stored', async () => {
    const refused = await request(server.url, 'POST', '/api/v1/namespaces/big/podtemplates', { body: podTemplate('huge', 1_900_000) });
    assertStatus(refused, 413, 'RequestEntityTooLarge', TOO_LARGE);
    assert.equal((await get(server.url, '/api/v1/namespaces/big/podtemplates/huge')).status, 404);
    const stored = await request(server.url, 'POST', '/api/v1/namespaces/big/podtemplates', { body: podTemplate('large', 1_400_000) });
    assert.equal(stored.status, 201, stored.text.slice(0, 300));
  });

  test('a patch that grows an object past the limit is refused and changes nothing', async () => {
    const before = await get(server.url, '/api/v1/namespaces/big/podtemplates/large');
    const patched = await request(server.url, 'PATCH', '/api/v1/namespaces/big/podtemplates/large', {
      raw: JSON.stringify({ metadata: { labels: { grown: 'yes' } }, template: { spec: { containers: [{ name: 'c', args: ['y'.repeat(1_700_000)] }] } } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assertStatus(patched, 413, 'RequestEntityTooLarge', TOO_LARGE);
    const after = await get(server.url, '/api/v1/namespaces/big/podtemplates/large');
    assert.equal(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
  });
});

describe('a configured limit (--max-object-size-bytes 65536)', () => {
  let server: TestServer;
  const CM = '/api/v1/namespaces/small/configmaps';
  before(async () => {
    server = await startTestServer({ storage: 'memory', maxObjectSizeBytes: 65536 });
    await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'small' } } });
    const created = await request(server.url, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'x'.repeat(60_000) } } });
    assert.equal(created.status, 201);
  });
  after(() => server.stop());

  test('create, update and merge patch past it are refused', async () => {
    const big = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over' }, data: { a: 'x'.repeat(70_000) } };
    assertStatus(await request(server.url, 'POST', CM, { body: big }), 413, 'RequestEntityTooLarge', TOO_LARGE);
    const current = (await get(server.url, `${CM}/cm`)).json;
    const update = { ...current, data: { a: 'x'.repeat(60_000), b: 'y'.repeat(10_000) } };
    assertStatus(await request(server.url, 'PUT', `${CM}/cm`, { body: update }), 413, 'RequestEntityTooLarge', TOO_LARGE);
    const patch = await request(server.url, 'PATCH', `${CM}/cm`, { raw: JSON.stringify({ data: { b: 'y'.repeat(10_000) } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assertStatus(patch, 413, 'RequestEntityTooLarge', TOO_LARGE);
    assert.equal((await get(server.url, `${CM}/cm`)).json.data.b, undefined);
  });

  test('an object too large only with its managedFields is stored without them, as upstream', async () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 4000; i++) data[`key-${i}`] = 'v';
    const created = await request(server.url, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many-keys' }, data } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    assert.equal(created.json.metadata.managedFields, undefined);
    const read = await get(server.url, `${CM}/many-keys`);
    assert.equal(Object.keys(read.json.data).length, 4000);
    assert.equal(read.json.metadata.managedFields, undefined);
  });

  test('a status update and a finalizer update past it are refused', async () => {
    const ns = (await get(server.url, '/api/v1/namespaces/small')).json;
    const status = { ...ns, status: { ...ns.status, conditions: [{ type: 'NamespaceContentRemaining', status: 'True', reason: 'R', message: 'm'.repeat(70_000) }] } };
    assertStatus(await request(server.url, 'PUT', '/api/v1/namespaces/small/status', { body: status }), 413, 'RequestEntityTooLarge', TOO_LARGE);
    const finalizers = Array.from({ length: 400 }, (_, i) => `example.com/finalizer-with-a-long-name-${i}`);
    const patch = await request(server.url, 'PATCH', `${CM}/cm`, { raw: JSON.stringify({ metadata: { finalizers } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assertStatus(patch, 413, 'RequestEntityTooLarge', TOO_LARGE);
  });
});
