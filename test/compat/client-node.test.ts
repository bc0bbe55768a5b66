// The official JavaScript client (@kubernetes/client-node 1.x) as a witness:
// its typed API writes, its Watch streams events, and its informer
// (makeInformer, a ListWatch) lists, watches, delivers add/update/delete and
// recovers from a server restart on the same data dir and port. Everything it
// needs comes from the kubeconfig the test server writes. Every wait is bounded.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, PatchStrategy, Watch, makeInformer, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../helpers/server.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { retry, until } from '../helpers/wait.js';

function clientFor(server: TestServer): { kc: KubeConfig; core: CoreV1Api } {
  const loaded = new KubeConfig();
  loaded.loadFromFile(server.kubeconfigPath);
  // client-node 1.x refuses a plain http:// server unless the cluster says
  // skipTLSVerify (kubectl and client-go do not ask for that).
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: loaded.clusters.map((c) => ({ ...c, skipTLSVerify: true })),
    users: loaded.users,
    contexts: loaded.contexts,
    currentContext: loaded.currentContext,
  });
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

function configMap(name: string, v: string): V1ConfigMap {
  return { metadata: { name }, data: { v } };
}

describe('@kubernetes/client-node witness', { timeout: 60_000 }, () => {
  it('Watch streams the initial state, then ADDED, MODIFIED and DELETED, and ends when aborted', { timeout: 20_000 }, async (t) => {
    const server = await startTestServer();
    t.after(() => server.stop());
    const { kc, core } = clientFor(server);
    const namespace = 'watched';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedConfigMap({ namespace, body: configMap('existing', '1') });

    const events: string[] = [];
    let ended: unknown = 'not yet';
    const watch = new Watch(kc);
    const controller = await watch.watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      {},
      (phase, obj: V1ConfigMap) => void events.push(`${phase} ${obj.metadata?.name} ${obj.data?.['v'] ?? '-'}`),
      (err) => (ended = err),
    );
    t.after(() => controller.abort());
    await until('initial state', () => events.length === 1);

    const created = await core.createNamespacedConfigMap({ namespace, body: configMap('new', '1') });
    await core.replaceNamespacedConfigMap({ name: 'new', namespace, body: { ...created, data: { v: '2' } } });
    await core.deleteNamespacedConfigMap({ name: 'new', namespace });
    await until('three more events', () => events.length === 4);
    assert.deepEqual(events, ['ADDED existing 1', 'ADDED new 1', 'MODIFIED new 2', 'DELETED new 2']);

    // From a list's resourceVersion: only what happened after it.
    const list = await core.listNamespacedConfigMap({ namespace });
    const later: string[] = [];
    const fromRv = await watch.watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: list.metadata!.resourceVersion!, allowWatchBookmarks: true },
      (phase, obj: V1ConfigMap) => void (phase !== 'BOOKMARK' && later.push(`${phase} ${obj.metadata?.name}`)),
      () => {},
    );
    t.after(() => fromRv.abort());
    await core.createNamespacedConfigMap({ namespace, body: configMap('after-list', '1') });
    await until('the event after the list', () => later.length === 1);
    assert.deepEqual(later, ['ADDED after-list']);

    controller.abort();
    await until('done called', () => ended !== 'not yet', 2000);
  });

  it('makeInformer lists, watches, delivers add/update/delete and recovers from a server restart', { timeout: 40_000 }, async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-client-node-'));
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    let server = await startTestServer({ dataDir });
    t.after(() => server.stop());
    const { kc, core } = clientFor(server);
    const namespace = 'informed';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedConfigMap({ namespace, body: configMap('pre', '1') });

    const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
    const events: string[] = [];
    informer.on('add', (o) => void events.push(`add ${o.metadata?.name} ${o.data?.['v']}`));
    informer.on('update', (o) => void events.push(`update ${o.metadata?.name} ${o.data?.['v']}`));
    informer.on('delete', (o) => void events.push(`delete ${o.metadata?.name}`));
    // client-node's informer stops on an error; restarting it is the caller's job (its documented pattern).
    let stopped = false;
    let errors = 0;
    let restartTimer: NodeJS.Timeout | undefined;
    informer.on('error', () => {
      errors++;
      if (!stopped) restartTimer = setTimeout(() => void informer.start().catch(() => {}), 100);
    });
    t.after(async () => {
      stopped = true;
      clearTimeout(restartTimer);
      await informer.stop();
    });
    await informer.start();
    assert.deepEqual(events, ['add pre 1'], 'start() resolves after the initial list');

    const a = await core.createNamespacedConfigMap({ namespace, body: configMap('a', '1') });
    await core.replaceNamespacedConfigMap({ name: 'a', namespace, body: { ...a, data: { v: '2' } } });
    await core.createNamespacedConfigMap({ namespace, body: configMap('b', '1') });
    await core.deleteNamespacedConfigMap({ name: 'b', namespace });
    await until('four events', () => events.length === 5);
    assert.deepEqual(events, ['add pre 1', 'add a 1', 'update a 2', 'add b 1', 'delete b']);
    assert.deepEqual(names(informer.list(namespace)), ['a', 'pre']);
    assert.equal(informer.get('a', namespace)?.data?.['v'], '2');

    const port = server.port;
    await server.stop();
    await until('the informer noticed the server was gone', () => errors > 0);
    server = await startTestServer({ dataDir, port });
    await retry(() => core.deleteNamespacedConfigMap({ name: 'pre', namespace }));
    await retry(() => core.createNamespacedConfigMap({ namespace, body: configMap('c', '1') }));
    const current = await retry(() => core.readNamespacedConfigMap({ name: 'a', namespace }));
    await retry(() => core.replaceNamespacedConfigMap({ name: 'a', namespace, body: { ...current, data: { v: '3' } } }));

    await until('the cache equals the server again', async () => {
      const live = await core.listNamespacedConfigMap({ namespace });
      return JSON.stringify(versions(informer.list(namespace))) === JSON.stringify(versions(live.items));
    });
    await until('handlers saw the changes made after the restart', () => events.includes('add c 1') && events.includes('update a 3') && events.includes('delete pre'));
    assert.deepEqual(names(informer.list(namespace)), ['a', 'c']);
    assert.equal(events.filter((e) => e === 'delete pre').length, 1, events.join(', '));
    assert.equal(events.filter((e) => e.startsWith('add a')).length, 1, `no duplicate add for an object the cache had: ${events.join(', ')}`);
  });

  it('server-side apply: patch with the apply content type creates, re-applies and reports conflicts', { timeout: 20_000 }, async (t) => {
    const server = await startTestServer();
    t.after(() => server.stop());
    const { core } = clientFor(server);
    const namespace = 'applied';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const body = (data: Record<string, string>): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace }, data });
    const created = await core.patchNamespacedConfigMap({ name: 'cfg', namespace, body: body({ a: '1', b: '2' }), fieldManager: 'node-app' }, ssa);
    assert.deepEqual(created.data, { a: '1', b: '2' });
    assert.deepEqual(
      created.metadata?.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]),
      [['node-app', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } }]],
    );
    const reapplied = await core.patchNamespacedConfigMap({ name: 'cfg', namespace, body: body({ a: '1' }), fieldManager: 'node-app' }, ssa);
    assert.deepEqual(reapplied.data, { a: '1' });
    await assert.rejects(
      core.patchNamespacedConfigMap({ name: 'cfg', namespace, body: body({ a: 'other' }), fieldManager: 'someone-else' }, ssa),
      (err: { code?: number; body?: string }) => err.code === 409 && String(err.body).includes('Apply failed with 1 conflict: conflict with \\"node-app\\": .data.a'),
    );
    const forced = await core.patchNamespacedConfigMap({ name: 'cfg', namespace, body: body({ a: 'other' }), fieldManager: 'someone-else', force: true }, ssa);
    assert.equal(forced.data?.['a'], 'other');
  });
});

function names(items: readonly V1ConfigMap[]): string[] {
  return items.map((o) => o.metadata!.name!).sort();
}

function versions(items: readonly V1ConfigMap[]): string[] {
  return items.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
}
