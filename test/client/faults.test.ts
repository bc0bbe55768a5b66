// Faults under a running informer, with the server as a real process:
// `apiary serve` on sqlite is SIGKILLed (no clean shutdown, no goodbye to its
// watchers) and started again on the same port and data dir. The informer
// must recover by itself with a cache equal to the server's state, and its
// handlers must have seen the final state of every object, deletes missed
// while the server was down included (as tombstones after a relist).
// A clean restart and a compaction while disconnected are covered in
// informer.test.ts. Every wait is bounded.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeObject } from '../../src/machinery/meta.js';
import { DeletedFinalStateUnknown, RestClient, SharedIndexInformer, isAlreadyExists, listWatchFromClient, silentLogger } from '../../src/client/index.js';
import { retry, until } from '../helpers/wait.js';
import { startApiary } from '../helpers/apiary-process.js';

/** Waits here span a process restart: roomier than the default. */
const WAIT_MS = 15_000;
const FAST_BACKOFF = { backoff: { initialMs: 50, maxMs: 500 } };

/** `apiary serve` on sqlite as a child process, once it listens; kill() is a SIGKILL (no clean shutdown). */
async function serve(dataDir: string, port: number): Promise<{ url: string; port: number; kill: () => Promise<void> }> {
  const proc = await startApiary(
    ['serve', '--port', String(port), '--data-dir', dataDir, '--storage', 'sqlite', '--log-level', 'silent', '--controllers', 'false'],
    { urlTimeoutMs: 20_000 },
  );
  const kill = async (): Promise<void> => {
    await proc.stop('SIGKILL');
  };
  return { url: proc.origin, port: Number(new URL(proc.origin).port), kill };
}

/**
 * What the handlers were told, replayed into a map key → resourceVersion:
 * if handlers saw every final state, this equals the server's state.
 */
function handlerView(): {
  view: Map<string, string>;
  deletes: string[];
  handler: Parameters<SharedIndexInformer['addEventHandler']>[0];
} {
  const view = new Map<string, string>();
  const deletes: string[] = [];
  const key = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    view,
    deletes,
    handler: {
      onAdd: (o) => void view.set(key(o), o.metadata.resourceVersion!),
      onUpdate: (_old, o) => void view.set(key(o), o.metadata.resourceVersion!),
      onDelete: (o) => {
        if (o instanceof DeletedFinalStateUnknown) {
          deletes.push(`${o.key} (tombstone)`);
          view.delete(o.key);
        } else {
          deletes.push(key(o));
          view.delete(key(o));
        }
      },
    },
  };
}

async function serverState(client: RestClient, namespace: string): Promise<Map<string, string>> {
  const list = await client.configMaps(namespace).list();
  return new Map(list.items.map((o) => [`${namespace}/${o.metadata.name}`, o.metadata.resourceVersion!]));
}

function sorted(map: Map<string, string>): string[] {
  return [...map].map(([k, v]) => `${k}@${v}`).sort();
}

function cacheState(informer: SharedIndexInformer): Map<string, string> {
  return new Map(informer.getIndexer().list().map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion!]));
}

describe('informer under a SIGKILLed server process', { timeout: 120_000 }, () => {
  it('recovers after kill and restart; changes made while it was away reach the cache and the handlers', { timeout: 60_000 }, async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-faults-'));
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    let server = await serve(dataDir, 0);
    t.after(() => server.kill());
    const port = server.port;
    const client = new RestClient({ server: server.url });
    t.after(() => client.close());
    const ns = 'faults';
    await client.namespaces().create({ metadata: { name: ns } });
    for (const name of ['keep', 'change', 'gone', 'gone-too']) await client.configMaps(ns).create({ metadata: { name }, data: { v: '1' } });

    const informer = new SharedIndexInformer(listWatchFromClient(client.configMaps(ns)), { logger: silentLogger, reflector: FAST_BACKOFF });
    const seen = handlerView();
    informer.addEventHandler(seen.handler);
    const controller = new AbortController();
    const done = informer.run(controller.signal);
    t.after(async () => {
      controller.abort();
      await done;
    });
    await until('synced', () => informer.hasSynced(), WAIT_MS);
    assert.deepEqual(sorted(seen.view), sorted(await serverState(client, ns)));

    await server.kill();
    // While the informer cannot reach the server, another process on the same data changes it, and is killed too.
    const elsewhere = await serve(dataDir, 0);
    const other = new RestClient({ server: elsewhere.url });
    await other.configMaps(ns).delete('gone');
    await other.configMaps(ns).delete('gone-too');
    const change = await other.configMaps(ns).get('change');
    await other.configMaps(ns).update({ ...change, data: { v: '2' } });
    await other.configMaps(ns).create({ metadata: { name: 'new-offline' } });
    await other.close();
    await elsewhere.kill();

    server = await serve(dataDir, port);
    await retry(() => client.configMaps(ns).create({ metadata: { name: 'new-online' } }));

    await until('the cache equals the server', async () => sorted(cacheState(informer)).join() === sorted(await serverState(client, ns)).join(), WAIT_MS);
    await until('the handlers saw the final state', async () => sorted(seen.view).join() === sorted(await serverState(client, ns)).join(), WAIT_MS);
    assert.deepEqual([...cacheState(informer).keys()].sort(), ['faults/change', 'faults/keep', 'faults/new-offline', 'faults/new-online']);
    assert.deepEqual(informer.lister().namespace(ns).get('change')?.data, { v: '2' });
    // Each missed delete is reported once: a tombstone after a relist, or the DELETED event if the watch resumed.
    assert.deepEqual(seen.deletes.map((d) => d.replace(' (tombstone)', '')).sort(), ['faults/gone', 'faults/gone-too'], seen.deletes.join(', '));
    t.diagnostic(`deletes seen as: ${seen.deletes.join(', ')}`);
  });

  it('converges after a kill in the middle of a burst of writes: every acknowledged write is in the cache', { timeout: 60_000 }, async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-faults-'));
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    let server = await serve(dataDir, 0);
    t.after(() => server.kill());
    const port = server.port;
    const client = new RestClient({ server: server.url });
    t.after(() => client.close());
    const ns = 'burst';
    await client.namespaces().create({ metadata: { name: ns } });

    const informer = new SharedIndexInformer(listWatchFromClient(client.configMaps(ns)), { logger: silentLogger, reflector: FAST_BACKOFF });
    const seen = handlerView();
    informer.addEventHandler(seen.handler);
    const controller = new AbortController();
    const done = informer.run(controller.signal);
    t.after(async () => {
      controller.abort();
      await done;
    });
    await until('synced', () => informer.hasSynced(), WAIT_MS);

    // Four writers create configmaps until the server dies under them.
    const acknowledged: string[] = [];
    let failed = 0;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; failed === 0; i++) {
        const name = `w${w}-${i}`;
        try {
          await client.configMaps(ns).create({ metadata: { name } });
          acknowledged.push(`${ns}/${name}`);
        } catch {
          failed++;
        }
      }
    };
    const writers = Promise.all([0, 1, 2, 3].map(writer));
    await until('some writes acknowledged', () => acknowledged.length >= 40, WAIT_MS);
    await server.kill();
    await writers;

    server = await serve(dataDir, port);
    const state = await retry(() => serverState(client, ns));
    for (const key of acknowledged) assert.ok(state.has(key), `acknowledged write ${key} survived the kill`);
    await until('the cache equals the server', async () => sorted(cacheState(informer)).join() === sorted(await serverState(client, ns)).join(), WAIT_MS);
    await until('the handlers saw the final state', async () => sorted(seen.view).join() === sorted(await serverState(client, ns)).join(), WAIT_MS);
    assert.deepEqual(seen.deletes, []);
    t.diagnostic(`${acknowledged.length} acknowledged, ${state.size} on the server after the restart`);
  });
});
