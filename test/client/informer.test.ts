// Informers against a real apiary server (sqlite in a temp dir, HTTP on
// 127.0.0.1): list, watch, handlers, a dropped watch, a server restart, and a
// compaction while the informer was disconnected. Every wait is bounded.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeObject } from '../../src/machinery/meta.js';
import { openBackend } from '../../src/storage/open.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  DeletedFinalStateUnknown,
  type ListerWatcher,
  RestClient,
  SharedIndexInformer,
  SharedInformerFactory,
  type SharedInformerOptions,
  listWatchFromClient,
  silentLogger,
  stripManagedFields,
} from '../../src/client/index.js';
import { retry, until } from '../helpers/wait.js';

const FAST_BACKOFF = { backoff: { initialMs: 50, maxMs: 400 } };

/** Records what a handler saw, as short strings. */
function recorder(): { events: string[]; tombstones: DeletedFinalStateUnknown<KubeObject>[]; handler: Parameters<SharedIndexInformer['addEventHandler']>[0] } {
  const events: string[] = [];
  const tombstones: DeletedFinalStateUnknown<KubeObject>[] = [];
  return {
    events,
    tombstones,
    handler: {
      onAdd: (o) => void events.push(`add ${o.metadata.name}`),
      onUpdate: (o, n) => {
        if (o.metadata.resourceVersion !== n.metadata.resourceVersion) events.push(`update ${n.metadata.name} ${JSON.stringify(n.data ?? {})}`);
      },
      onDelete: (o) => {
        if (o instanceof DeletedFinalStateUnknown) {
          tombstones.push(o);
          events.push(`delete ${o.key} (tombstone)`);
        } else events.push(`delete ${o.metadata.name}`);
      },
    },
  };
}

/** Starts an informer with a recording handler; the test's end stops it and waits for it. */
function runInformer(
  t: { after(fn: () => Promise<void>): void },
  lw: ListerWatcher,
  reflector: NonNullable<SharedInformerOptions<KubeObject>['reflector']>,
): { informer: SharedIndexInformer; rec: ReturnType<typeof recorder> } {
  const informer = new SharedIndexInformer(lw, { logger: silentLogger, reflector });
  const rec = recorder();
  informer.addEventHandler(rec.handler);
  const controller = new AbortController();
  const done = informer.run(controller.signal);
  t.after(async () => {
    controller.abort();
    await done;
  });
  return { informer, rec };
}

function cacheNames(informer: SharedIndexInformer): string[] {
  return informer.getIndexer().list().map((o) => o.metadata.name!).sort();
}

async function serverNames(client: RestClient, ns: string): Promise<string[]> {
  return (await client.configMaps(ns).list()).items.map((o) => o.metadata.name!).sort();
}

/** A ListerWatcher that counts its calls (to tell a resumed watch from a relist). */
function counting(lw: ListerWatcher): ListerWatcher & { lists: number; watches: string[] } {
  const counted = {
    lists: 0,
    watches: [] as string[],
    list: (o: Parameters<ListerWatcher['list']>[0]) => {
      counted.lists++;
      return lw.list(o);
    },
    watch: (o: Parameters<ListerWatcher['watch']>[0]) => {
      counted.watches.push(o.resourceVersion ?? '');
      return lw.watch(o);
    },
  };
  return counted;
}

describe('informers against a real server', { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  function tempDir(): string {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-informer-'));
    dirs.push(d);
    return d;
  }

  it('lists, watches and delivers add/update/delete; a late handler gets the cache as adds', { timeout: 20_000 }, async (t) => {
    const server = await startTestServer();
    t.after(() => server.stop());
    const client = RestClient.fromKubeconfig(server.kubeconfigPath);
    t.after(() => client.close());
    await client.namespaces().create({ metadata: { name: 'inf' } });
    await client.configMaps('inf').create({ metadata: { name: 'before' }, data: { v: '1' } });

    const controller = new AbortController();
    const factory = new SharedInformerFactory(client, { logger: silentLogger, reflector: FAST_BACKOFF });
    const informer = factory.forBuiltin('configmaps');
    assert.equal(factory.forBuiltin('configmaps'), informer, 'one informer per resource');
    const rec = recorder();
    informer.addEventHandler(rec.handler);
    factory.start(controller.signal);
    t.after(async () => {
      controller.abort();
      await factory.shutdown();
    });
    const synced = await factory.waitForCacheSync(controller.signal);
    assert.deepEqual([...synced.values()], [true]);
    assert.deepEqual(cacheNames(informer), ['before']);
    assert.notEqual(informer.lastSyncResourceVersion(), '');

    const cms = client.configMaps('inf');
    await cms.create({ metadata: { name: 'second' }, data: { v: '1' } });
    const before = await cms.get('before');
    await cms.update({ ...before, data: { v: '2' } });
    await cms.delete('second');
    await until('add, update and delete delivered', () => rec.events.length >= 4);
    assert.deepEqual(rec.events, ['add before', 'add second', 'update before {"v":"2"}', 'delete second']);
    assert.deepEqual(cacheNames(informer), ['before']);
    assert.deepEqual(informer.lister().namespace('inf').get('before')?.data, { v: '2' });

    const late = recorder();
    const registration = informer.addEventHandler(late.handler);
    await until('late handler synced', () => registration.hasSynced());
    assert.deepEqual(late.events, ['add before']);

    // A handler that throws does not stop the informer or the other handlers.
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    await cms.create({ metadata: { name: 'third' } });
    await until('both handlers see the next add', () => rec.events.includes('add third') && late.events.includes('add third'));
    controller.abort();
    await factory.shutdown();
    assert.equal(informer.isStopped(), true);
  });

  it('a transform (factory WithTransform, stripManagedFields): the cache holds and handlers get what it returns; a write from the cache keeps the stored managedFields', { timeout: 20_000 }, async (t) => {
    const server = await startTestServer();
    t.after(() => server.stop());
    const client = RestClient.fromKubeconfig(server.kubeconfigPath);
    t.after(() => client.close());
    await client.namespaces().create({ metadata: { name: 'tf' } });
    await client.configMaps('tf').create({ metadata: { name: 'before', labels: { a: 'b' } }, data: { v: '1' } });

    const given: KubeObject[] = [];
    const controller = new AbortController();
    const factory = new SharedInformerFactory(client, {
      logger: silentLogger,
      reflector: FAST_BACKOFF,
      transform: (o) => {
        given.push(o);
        return stripManagedFields(o);
      },
    });
    const informer = factory.forBuiltin('configmaps');
    const handled: Array<{ event: string; obj: KubeObject }> = [];
    informer.addEventHandler({
      onAdd: (obj) => void handled.push({ event: 'add', obj }),
      onUpdate: (old, obj) => void handled.push({ event: 'update-old', obj: old }, { event: 'update', obj }),
      onDelete: (obj) => void handled.push({ event: 'delete', obj: obj as KubeObject }),
    });
    factory.start(controller.signal);
    t.after(async () => {
      controller.abort();
      await factory.shutdown();
    });
    await factory.waitForCacheSync(controller.signal);
    assert.throws(() => informer.setTransform((o) => o), /already started/);

    const cached = informer.lister().namespace('tf').get('before')!;
    assert.equal(cached.metadata.managedFields, undefined, 'the cache holds the transformed object');
    assert.deepEqual(cached.data, { v: '1' });
    assert.deepEqual(cached.metadata.labels, { a: 'b' });
    assert.ok(cached.metadata.resourceVersion && cached.metadata.uid);
    assert.ok(given.length >= 1 && given.every((o) => o.metadata.managedFields !== undefined), 'the transform gets the object as received, and leaves it as it was');

    // A write from the cached copy (no managedFields) keeps the server's.
    const cms = client.configMaps('tf');
    await cms.update({ ...cached, data: { v: '2' } });
    const stored = await cms.get('before');
    assert.deepEqual(stored.data, { v: '2' });
    assert.ok((stored.metadata.managedFields ?? []).length >= 1, 'managedFields kept on the server');
    await cms.delete('before');
    await until('update and delete delivered', () => handled.some((h) => h.event === 'delete'));
    assert.deepEqual(
      handled.map((h) => h.event),
      ['add', 'update-old', 'update', 'delete'],
    );
    assert.equal(handled[0]!.obj, cached, 'handlers get the cached object');
    for (const h of handled) assert.equal(h.obj.metadata.managedFields, undefined, `${h.event}: transformed`);
    assert.deepEqual(handled[2]!.obj.data, { v: '2' });
    assert.equal(informer.lister().namespace('tf').get('before'), undefined);
  });

  it('resumes a watch the server ended from the last resourceVersion, without relisting', { timeout: 20_000 }, async (t) => {
    const server = await startTestServer();
    t.after(() => server.stop());
    const client = RestClient.fromKubeconfig(server.kubeconfigPath);
    t.after(() => client.close());
    await client.namespaces().create({ metadata: { name: 'resume' } });
    const lw = counting(listWatchFromClient(client.configMaps('resume')));
    // The server ends each watch after timeoutSeconds (2 s here: well above the 1 s "very short watch" bar).
    const { informer, rec } = runInformer(t, lw, { ...FAST_BACKOFF, minWatchTimeoutSeconds: 2, random: () => 0 });
    await until('synced', () => informer.hasSynced());
    const rvAfterList = informer.lastSyncResourceVersion();
    await until('the server ended the first watch and the reflector watched again', () => lw.watches.length >= 2);
    await client.configMaps('resume').create({ metadata: { name: 'after-renewal' } });
    await until('event after the watch was renewed', () => rec.events.includes('add after-renewal'));
    assert.equal(lw.lists, 1, 'a clean end of watch resumes the watch, it does not relist');
    assert.ok(lw.watches.length >= 2, `the watch was renewed: ${lw.watches.length}`);
    assert.equal(lw.watches[1], lw.watches[0], 'from the last resourceVersion seen (no events came in between)');
    assert.notEqual(informer.lastSyncResourceVersion(), rvAfterList);
  });

  it('survives a server restart on the same data dir and converges to the server state', { timeout: 30_000 }, async (t) => {
    const dataDir = tempDir();
    let server: TestServer = await startTestServer({ dataDir });
    t.after(() => server.stop());
    const client = RestClient.fromKubeconfig(server.kubeconfigPath);
    t.after(() => client.close());
    const cms = client.configMaps('restart');
    await client.namespaces().create({ metadata: { name: 'restart' } });
    for (const name of ['a', 'b', 'c']) await cms.create({ metadata: { name }, data: { v: '1' } });

    const { informer, rec } = runInformer(t, listWatchFromClient(client.configMaps()), FAST_BACKOFF);
    await until('synced', () => informer.hasSynced());

    await server.stop();
    server = await startTestServer({ dataDir, port: server.port });
    await retry(() => cms.delete('b'));
    const a = await retry(() => cms.get('a'));
    await retry(() => cms.update({ ...a, data: { v: '2' } }));
    await retry(() => cms.create({ metadata: { name: 'd' } }));

    await until('cache equals the server again', async () => JSON.stringify(cacheNames(informer)) === JSON.stringify(await serverNames(client, 'restart')));
    await until('handlers saw every change', () => rec.events.includes('add d') && rec.events.some((e) => e.startsWith('delete ')) && rec.events.some((e) => e.startsWith('update a')));
    assert.deepEqual(cacheNames(informer), ['a', 'c', 'd']);
    assert.deepEqual(informer.lister().namespace('restart').get('a')?.data, { v: '2' });
    assert.equal(rec.events.filter((e) => e.startsWith('delete')).length, 1, `one delete for b: ${rec.events.join(', ')}`);
  });

  it('relists after a compaction while disconnected and reports missed deletes as tombstones', { timeout: 30_000 }, async (t) => {
    const dataDir = tempDir();
    let server: TestServer = await startTestServer({ dataDir });
    t.after(() => server.stop());
    const client = RestClient.fromKubeconfig(server.kubeconfigPath);
    t.after(() => client.close());
    await client.namespaces().create({ metadata: { name: 'compact' } });
    for (const name of ['x', 'y']) await client.configMaps('compact').create({ metadata: { name }, data: { last: name } });

    const lw = counting(listWatchFromClient(client.configMaps('compact')));
    const { informer, rec } = runInformer(t, lw, FAST_BACKOFF);
    await until('synced', () => informer.hasSynced());
    const port = server.port;

    // While the informer cannot reach it, the data changes on another port and history is compacted.
    await server.stop();
    const elsewhere = await startTestServer({ dataDir });
    const other = RestClient.fromKubeconfig(elsewhere.kubeconfigPath);
    await other.configMaps('compact').delete('y');
    await other.configMaps('compact').create({ metadata: { name: 'z' } });
    await other.close();
    await elsewhere.stop();
    const backend = await openBackend({ kind: 'sqlite', dataDir });
    await backend.compact(await backend.currentRevision());
    await backend.close();

    server = await startTestServer({ dataDir, port });
    await until('y reported deleted and z added', () => rec.tombstones.length === 1 && rec.events.includes('add z'));
    const [tomb] = rec.tombstones;
    assert.equal(tomb!.key, 'compact/y');
    assert.deepEqual(tomb!.obj?.data, { last: 'y' }, 'the tombstone carries the last state the cache had');
    assert.deepEqual(cacheNames(informer), ['x', 'z']);
    assert.ok(lw.lists >= 2, 'the informer relisted');
  });
});
