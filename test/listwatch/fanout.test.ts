// Watch fan-out with many watchers: enough of them (≥ 128) that the watch
// cache gathers backend batches into bigger dispatches and hands unfiltered
// watchers whole batches at once (WatchSink.events). Every watcher must still
// see exactly its events, in order, whatever mix of namespace, selector and
// per-event or batch sinks it uses; over HTTP, every stream gets every event.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { WatchEvent, WatchOptions } from '../../src/registry/rest.js';
import type { RESTStore } from '../../src/registry/rest.js';
import { configMap, newFixture, rvOf } from './helpers.js';
import { startTestServer } from '../helpers/server.js';
import { request, configMap as httpConfigMap } from '../helpers/http.js';

interface Recorded {
  events: WatchEvent[];
  /** How many times the store handed over a batch (sink.events). */
  batches: number;
  done: boolean;
}

async function record(store: RESTStore, namespace: string, options: WatchOptions, batchSink: boolean): Promise<Recorded> {
  const rec: Recorded = { events: [], batches: 0, done: false };
  const sink = {
    event: (e: WatchEvent) => void rec.events.push(e),
    done: () => void (rec.done = true),
    ...(batchSink
      ? {
          events: (es: readonly WatchEvent[]) => {
            rec.batches++;
            rec.events.push(...es);
          },
        }
      : {}),
  };
  await store.watch(namespace, { timeoutSeconds: 60, ...options }, sink);
  return rec;
}

function names(rec: Recorded): string[] {
  return rec.events.map((e) => `${e.type}:${(e.object as KubeObject).metadata.name}`);
}

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('many watchers: namespaces, selectors, batch and per-event sinks each see exactly their events, in order', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const rv = (await f.configmaps.list('a', {})).metadata.resourceVersion;
  const from = { resourceVersion: rv };

  const inA = await Promise.all(Array.from({ length: 120 }, () => record(f.configmaps, 'a', from, true)));
  const inB = await Promise.all(Array.from({ length: 20 }, () => record(f.configmaps, 'b', from, true)));
  const everywhere = await Promise.all(Array.from({ length: 20 }, () => record(f.configmaps, '', from, true)));
  const perEvent = await Promise.all(Array.from({ length: 10 }, () => record(f.configmaps, 'a', from, false)));
  const selected = await Promise.all(Array.from({ length: 10 }, () => record(f.configmaps, 'a', { ...from, labelSelector: 'pick=yes' }, true)));

  // Bursts of concurrent writes, so that backend batches and gathered dispatches hold several events.
  for (let round = 0; round < 4; round++) {
    await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        f.configmaps.create('a', configMap(`a-${round}-${i}`, i % 3 === 0 ? { pick: 'yes' } : {}), {}),
      ),
      ...Array.from({ length: 2 }, (_, i) => f.configmaps.create('b', configMap(`b-${round}-${i}`), {})),
    ]);
  }
  // One update that moves an object into the selection: ADDED for the selector watchers, MODIFIED for the rest.
  const moved = await f.configmaps.get('a', 'a-0-1', {});
  await f.configmaps.update('a', 'a-0-1', { ...moved, metadata: { ...moved.metadata, labels: { pick: 'yes' } } }, {});

  const all = [...inA, ...inB, ...everywhere, ...perEvent, ...selected];
  await until(() => inA.every((r) => r.events.length === 25) && everywhere.every((r) => r.events.length === 33), 'every event');
  await until(() => inB.every((r) => r.events.length === 8) && selected.every((r) => r.events.length === 9), 'filtered events');
  await until(() => perEvent.every((r) => r.events.length === 25), 'per-event sinks');

  for (const r of all) {
    const rvs = r.events.map((e) => rvOf(e.object as KubeObject));
    assert.deepEqual(rvs, [...rvs].sort((x, y) => x - y), 'in resourceVersion order');
    assert.equal(new Set(rvs).size, rvs.length, 'no event twice');
  }
  // Same namespace, no selector: the same events (the very same objects, shared between watchers).
  for (const r of [...inA.slice(1), ...perEvent]) assert.deepEqual(names(r), names(inA[0]!));
  for (const r of inA) r.events.forEach((e, i) => assert.equal(e, inA[0]!.events[i]));
  assert.ok(inA.some((r) => r.batches > 0), 'batch sinks got batches');
  assert.ok(inA[0]!.batches < inA[0]!.events.length, 'some batch held several events');
  assert.equal(perEvent[0]!.batches, 0);

  assert.ok(names(inB[0]!).every((n) => n.startsWith('ADDED:b-')));
  assert.equal(names(everywhere[0]!).filter((n) => n.includes(':b-')).length, 8);
  assert.deepEqual(names(selected[0]!).at(-1), 'ADDED:a-0-1');
  assert.ok(names(selected[0]!).slice(0, -1).every((n) => /^ADDED:a-\d-[03]$/.test(n)));
  assert.deepEqual(names(inA[0]!).at(-1), 'MODIFIED:a-0-1');
});

test('HTTP: 150 watch streams each receive every event, in order', async (t) => {
  const server = await startTestServer({ storage: 'memory' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
  t.after(async () => {
    agent.destroy();
    await server.stop();
  });
  const base = server.url;
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fan' } } });
  const list = await request(base, 'GET', '/api/v1/namespaces/fan/configmaps');
  const rv = (list.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  const streams = await Promise.all(
    Array.from(
      { length: 150 },
      () =>
        new Promise<{ lines: string[]; req: http.ClientRequest }>((resolve, reject) => {
          const out = { lines: [] as string[], req: undefined as unknown as http.ClientRequest };
          let rest = '';
          out.req = http.get(`${base}/api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=${rv}`, { agent }, (res) => {
            assert.equal(res.statusCode, 200);
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const parts = (rest + chunk).split('\n');
              rest = parts.pop()!;
              out.lines.push(...parts);
            });
            resolve(out);
          });
          out.req.on('error', reject);
        }),
    ),
  );
  t.after(() => streams.forEach((s) => s.req.destroy()));

  for (let round = 0; round < 4; round++) {
    const writes = Array.from({ length: 5 }, (_, i) =>
      request(base, 'POST', '/api/v1/namespaces/fan/configmaps', { body: httpConfigMap(`cm-${round}-${i}`) }),
    );
    for (const reply of await Promise.all(writes)) assert.equal(reply.status, 201);
  }
  await until(() => streams.every((s) => s.lines.length >= 20), 'every stream to get 20 events', 10_000);
  const expected = streams[0]!.lines.map((l) => JSON.parse(l) as { type: string; object: KubeObject });
  assert.equal(expected.length, 20);
  const rvs = expected.map((e) => rvOf(e.object));
  assert.deepEqual(rvs, [...rvs].sort((x, y) => x - y));
  assert.ok(expected.every((e) => e.type === 'ADDED' && e.object.kind === 'ConfigMap'));
  for (const s of streams) assert.deepEqual(s.lines, streams[0]!.lines);
});
