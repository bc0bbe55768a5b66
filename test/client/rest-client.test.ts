// The REST client against a real apiary server: CRUD through typed and
// dynamic clients, server errors as StatusError with the server's Status,
// transport failures as NetworkError, watch streams, discovery.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { KubeObject } from '../../src/machinery/meta.js';
import { StatusError } from '../../src/machinery/errors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { NetworkError, RestClient, type WatchEvent, serverPreferredNamespacedResources, serverPreferredResources, type APIResourceList } from '../../src/client/index.js';

describe('RestClient', { timeout: 30_000 }, () => {
  let server: TestServer;
  let client: RestClient;
  before(async () => {
    server = await startTestServer();
    client = RestClient.fromKubeconfig(server.kubeconfigPath);
    await client.namespaces().create({ metadata: { name: 'rc' } });
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  it('creates, gets, lists with pages, patches, updates and deletes through the dynamic client', async () => {
    const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('rc');
    for (const name of ['p1', 'p2', 'p3']) await cms.create({ metadata: { name, labels: { set: 'pages' } }, data: { n: name } });
    const first = await cms.list({ limit: 2, labelSelector: 'set=pages' });
    assert.equal(first.items.length, 2);
    assert.ok(first.metadata.continue, 'a continue token for the rest');
    assert.equal(first.items[0]!.kind, 'ConfigMap', 'list items carry their kind');
    const rest = await cms.list({ limit: 2, continue: first.metadata.continue, labelSelector: 'set=pages' });
    assert.deepEqual([...first.items, ...rest.items].map((o) => o.metadata.name), ['p1', 'p2', 'p3']);

    const patched = await cms.patch('p1', 'merge', { data: { extra: 'yes' } });
    assert.deepEqual(patched.data, { n: 'p1', extra: 'yes' });
    const updated = await cms.update({ ...patched, data: { n: 'changed' } });
    assert.deepEqual((await cms.get('p1')).data, { n: 'changed' });
    assert.notEqual(updated.metadata.resourceVersion, patched.metadata.resourceVersion);
    await cms.delete('p1');
    await cms.deleteCollection({}, { labelSelector: 'set=pages' });
    assert.deepEqual((await cms.list({ labelSelector: 'set=pages' })).items, []);
  });

  it('rejects with StatusError carrying the server Status: NotFound, AlreadyExists, Conflict, Invalid causes', async () => {
    const cms = client.configMaps('rc');
    await assert.rejects(cms.get('missing'), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 404);
      assert.equal(err.reason, 'NotFound');
      assert.equal(err.message, 'configmaps "missing" not found');
      return true;
    });
    const created = await cms.create({ metadata: { name: 'dup' } });
    await assert.rejects(cms.create({ metadata: { name: 'dup' } }), (err: unknown) => err instanceof StatusError && err.reason === 'AlreadyExists' && err.code === 409);
    await cms.update({ ...created, data: { a: 'b' } });
    await assert.rejects(cms.update({ ...created, data: { a: 'c' } }), (err: unknown) => err instanceof StatusError && err.reason === 'Conflict');
    await assert.rejects(cms.create({ metadata: { name: 'Not_Valid' } }), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 422);
      assert.equal(err.reason, 'Invalid');
      assert.ok((err.status.details?.causes ?? []).some((c) => c.field === 'metadata.name'), JSON.stringify(err.status));
      return true;
    });
  });

  it('reports an unreachable server as NetworkError, not StatusError', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const dead = new RestClient({ server: `http://127.0.0.1:${port}` });
    try {
      await assert.rejects(dead.namespaces().list(), (err: unknown) => err instanceof NetworkError && err.code === 'ECONNREFUSED');
    } finally {
      await dead.close();
    }
  });

  it('streams watch events until stopped', async () => {
    const cms = client.configMaps('rc');
    const start = await cms.list();
    const watch = await cms.watch({ resourceVersion: start.metadata.resourceVersion });
    const seen: WatchEvent<KubeObject>[] = [];
    const consumed = (async () => {
      for await (const event of watch) {
        seen.push(event);
        if (seen.length === 2) watch.stop();
      }
    })();
    await cms.create({ metadata: { name: 'w1' } });
    await cms.delete('w1');
    await Promise.race([consumed, new Promise((_, reject) => setTimeout(() => reject(new Error('watch events did not arrive')), 5000))]);
    assert.deepEqual(seen.map((e) => `${e.type} ${e.type === 'ERROR' ? '' : e.object.metadata.name}`), ['ADDED w1', 'DELETED w1']);
    assert.equal(watch.isStopped(), true);
  });

  it('discovers namespaced resources', async () => {
    const lists = await client.serverPreferredNamespacedResources();
    assert.deepEqual(await serverPreferredNamespacedResources(client), lists);
    const core = lists.find((l) => l.groupVersion === 'v1');
    assert.ok(core?.resources.some((r) => r.name === 'configmaps' && r.namespaced && r.verbs.includes('deletecollection')));
    assert.ok(!core?.resources.some((r) => r.name === 'namespaces'), 'cluster-scoped resources are left out');
  });

  it('aggregated discovery (two requests) finds what reading every group version finds', async () => {
    // What the namespace controller and the garbage collector rely on: each resource and subresource, its scope, kind and verbs, from the preferred version.
    const shape = (lists: APIResourceList[]) =>
      lists
        .map((l) => ({
          groupVersion: l.groupVersion,
          resources: l.resources.map((r) => `${r.name} ${r.namespaced} ${r.kind} ${[...r.verbs].sort().join(',')}`).sort(),
        }))
        .sort((a, b) => (a.groupVersion < b.groupVersion ? -1 : 1));
    const legacy = await serverPreferredResources(client, { aggregated: false });
    const aggregated = await serverPreferredResources(client);
    assert.ok(legacy.some((l) => l.groupVersion === 'apps/v1' && l.resources.some((r) => r.name === 'deployments/scale')), 'subresources are listed');
    assert.deepEqual(shape(aggregated), shape(legacy));
    assert.deepEqual(shape(await serverPreferredNamespacedResources(client)), shape(await serverPreferredNamespacedResources(client, { aggregated: false })));
  });
});
