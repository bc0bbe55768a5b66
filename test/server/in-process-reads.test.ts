// The server's in-process reads (src/server/in-process-reads.ts): lists and
// watches for the controllers in its own process, answered by the stores as
// an HTTP request would be, without the encoding. Checked against the same
// requests over HTTP on a real server.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/machinery/errors.js';
import type { KubeList, KubeObject } from '../../src/machinery/meta.js';
import { inProcessReads, type InProcessWatch } from '../../src/server/in-process-reads.js';
import { WatchTracker } from '../../src/server/watch.js';
import type { WatchEvent } from '../../src/registry/rest.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { configMap, get, request } from '../helpers/http.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

/** The next n events that are not bookmarks, or fails after 5 s. */
async function take(iterator: AsyncIterator<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const deadline = Date.now() + 5_000;
  while (events.length < n) {
    const next = await Promise.race([iterator.next(), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now())))]);
    if (next === 'timeout') throw new Error(`timed out after ${events.length} of ${n} events`);
    if (next.done === true) throw new Error(`the watch ended after ${events.length} of ${n} events`);
    if (next.value.type !== 'BOOKMARK') events.push(next.value);
  }
  return events;
}

/** Resolves true once the iteration ends (false after 5 s). */
async function ends(iterator: AsyncIterator<WatchEvent>): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const next = await Promise.race([iterator.next(), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now())))]);
    if (next === 'timeout') return false;
    if (next.done === true) return true;
  }
}

function rvOf(object: unknown): string | undefined {
  return (object as KubeObject).metadata?.resourceVersion;
}

describe('in-process reads', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'reads' } } });
    for (const name of ['first', 'second']) await request(server.url, 'POST', '/api/v1/namespaces/reads/configmaps', { body: configMap(name) });
  });
  after(() => server.stop());

  test('a list answers what the same list over HTTP does', async () => {
    const overHttp = (await get(server.url, '/api/v1/configmaps')).json as KubeList;
    const list = await server.inProcessReads.list(CONFIGMAPS, { resourceVersion: overHttp.metadata.resourceVersion })!;
    assert.deepEqual(
      list.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}@${i.metadata.resourceVersion}`),
      overHttp.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}@${i.metadata.resourceVersion}`),
    );
    const paged = await server.inProcessReads.list(CONFIGMAPS, { limit: 1 })!;
    assert.equal(paged.items.length, 1);
    assert.ok(paged.metadata.continue, 'a limited list carries a continue token');
  });

  test("a watch from a list's version sees each write once, in order, with the versions HTTP answered", async () => {
    const start = (await get(server.url, '/api/v1/namespaces/reads/configmaps')).json as KubeList;
    const watch = await server.inProcessReads.watch(CONFIGMAPS, { resourceVersion: start.metadata.resourceVersion, allowWatchBookmarks: true })!;
    const iterator = watch[Symbol.asyncIterator]();
    const created = await request(server.url, 'POST', '/api/v1/namespaces/reads/configmaps', { body: configMap('watched') });
    const updated = await request(server.url, 'PUT', '/api/v1/namespaces/reads/configmaps/watched', {
      body: { ...(created.json as object), metadata: { ...(created.json as KubeObject).metadata, labels: { changed: 'yes' } } },
    });
    const deleted = await request(server.url, 'DELETE', '/api/v1/namespaces/reads/configmaps/watched');
    assert.deepEqual([created.status, updated.status, deleted.status], [201, 200, 200]);
    const events = await take(iterator, 3);
    // A ConfigMap's DELETE answers a Status (as upstream's): the deletion's version is only in the event.
    assert.deepEqual(
      events.map((e) => `${e.type} ${(e.object as KubeObject).metadata.name} ${e.type === 'DELETED' ? '' : rvOf(e.object)}`),
      [`ADDED watched ${rvOf(created.json)}`, `MODIFIED watched ${rvOf(updated.json)}`, 'DELETED watched '],
    );
    assert.ok(Number(rvOf(events[2]!.object)) > Number(rvOf(updated.json)));
    assert.equal((events[1]!.object as KubeObject).metadata.labels?.['changed'], 'yes');
    watch.stop();
    assert.ok(await ends(iterator), 'stop() ends the iteration');
  });

  test('malformed options fail with the Status an HTTP request gets', async () => {
    const cases: Array<{ watch: boolean; query: Record<string, string>; path: string }> = [
      { watch: false, query: { resourceVersionMatch: 'Exact' }, path: '/api/v1/configmaps?resourceVersionMatch=Exact' },
      { watch: false, query: { limit: 'many' }, path: '/api/v1/configmaps?limit=many' },
      { watch: true, query: { resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }, path: '/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1' },
      { watch: true, query: { timeoutSeconds: 'abc' }, path: '/api/v1/configmaps?watch=true&timeoutSeconds=abc' },
    ];
    for (const c of cases) {
      const overHttp = await get(server.url, c.path);
      assert.ok(overHttp.status >= 400, `${c.path}: HTTP answered ${overHttp.status}`);
      const call = c.watch ? server.inProcessReads.watch(CONFIGMAPS, c.query)! : server.inProcessReads.list(CONFIGMAPS, c.query)!;
      await assert.rejects(call, (err: unknown) => {
        assert.ok(err instanceof StatusError, `${c.path}: ${String(err)}`);
        const expected = overHttp.json as { code: number; reason: string; message: string };
        assert.deepEqual({ code: err.status.code, reason: err.status.reason, message: err.status.message }, { code: expected.code, reason: expected.reason, message: expected.message }, c.path);
        return true;
      });
    }
  });

  test('a resource the server does not store has no in-process reads', () => {
    const metrics = { group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods' };
    assert.equal(server.inProcessReads.list(metrics, {}), undefined);
    assert.equal(server.inProcessReads.watch(metrics, {}), undefined);
  });

  test('a group/version an aggregated API server has taken over is read over HTTP, not from the local store', async () => {
    const reads = inProcessReads(server.registry, new WatchTracker(), { remote: (group, version) => group === '' && version === 'v1' });
    assert.equal(reads.list(CONFIGMAPS, {}), undefined);
    assert.equal(reads.watch(CONFIGMAPS, {}), undefined);
    const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
    assert.ok(reads.list(deployments, {}) !== undefined, 'other groups are still read in-process');
  });

  test('a consumer that falls behind gets what the watch held, then the end', async () => {
    const reads = inProcessReads(server.registry, new WatchTracker(), { maxPendingEvents: 3 });
    const start = (await get(server.url, '/api/v1/namespaces/reads/configmaps')).json as KubeList;
    const watch: InProcessWatch = await reads.watch(CONFIGMAPS, { resourceVersion: start.metadata.resourceVersion })!;
    for (let i = 0; i < 5; i++) {
      assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/reads/configmaps', { body: configMap(`behind-${i}`) })).status, 201);
    }
    const iterator = watch[Symbol.asyncIterator]();
    const events = await take(iterator, 3);
    assert.deepEqual(
      events.map((e) => (e.object as KubeObject).metadata.name),
      ['behind-0', 'behind-1', 'behind-2'],
    );
    assert.ok(await ends(iterator), 'the watch ends after the events it held');
  });
});

test('a stopping server ends its in-process watches', async () => {
  const server = await startTestServer({ storage: 'memory' });
  let iterator: AsyncIterator<WatchEvent> | undefined;
  try {
    const watch = await server.inProcessReads.watch(CONFIGMAPS, {})!;
    iterator = watch[Symbol.asyncIterator]();
  } finally {
    await server.stop();
  }
  assert.ok(await ends(iterator!), 'the watch ended with the server');
});
