// A lost etcd (issue 35, part 2): apiary stays up while etcd is stopped and
// started again, answers meanwhile as kube-apiserver 1.32.4 does, and its
// watches resume without a 410 for revisions etcd still has; no acknowledged
// write is lost or doubled. A compaction past a watch's revision while apiary
// was cut off ends in 410; a member lost from a 3-member cluster goes unnoticed.
//
// kube-apiserver 1.32.4 with its only etcd member killed (measured): GET and
// LIST without resourceVersion answer 504 Timeout "Timeout: request did not
// complete within the allotted timeout" (after its 60 s request timeout), a
// create 504 "... within requested timeout - context deadline exceeded" (34 s),
// LIST resourceVersion=0 200 from the watch cache, /readyz 500 with
// [-]etcd-readiness. apiary answers the same codes sooner (its etcd request
// deadline is 10 s). The outage lasts 30 s, as the issue asks: long enough for
// the backend watch to give up and the watch cache to resume after it; the
// storage-level case repeats that with a 2 s retry window.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ThreadedEtcdBackend } from '../../src/storage/etcd/thread.js';
import { CachedObjectStore } from '../../src/storage/cacher/cacher.js';
import type { StoreWatchEvent } from '../../src/storage/object-store.js';

async function call(base: string, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(base + path, {
    method,
    signal: AbortSignal.timeout(timeoutMs),
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text, ms: Date.now() - started };
}

/** A watch over HTTP: its events as "TYPE name" (ERROR events with their code). */
function openWatch(base: string, path: string): { events: string[]; ready: Promise<void>; stop(): void } {
  const controller = new AbortController();
  const events: string[] = [];
  let buffered = '';
  const ready = fetch(base + path, { signal: controller.signal }).then((res) => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return events.push('END');
          buffered += decoder.decode(value, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const e = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { code?: number; metadata?: { name?: string } } };
            buffered = buffered.slice(nl + 1);
            events.push(e.type === 'ERROR' ? `ERROR ${e.object.code}` : `${e.type} ${e.object.metadata?.name ?? ''}`);
          }
        }
      } catch {
        // Aborted.
      }
    })();
  });
  return { events, ready, stop: () => controller.abort() };
}

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('etcd stopped and started again', { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd();
    server = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints, compactionIntervalMs: 0 });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  it('stays up, answers with upstream codes, resumes watches without 410, loses and doubles nothing', async (t) => {
    const base = server.url;
    const cm = '/api/v1/namespaces/outage/configmaps';
    assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'outage' } })).status, 201);
    const acknowledged: string[] = [];
    for (const name of ['a', 'b']) {
      assert.equal((await call(base, 'POST', cm, { metadata: { name } })).status, 201);
      acknowledged.push(name);
    }
    const b = await call(base, 'GET', `${cm}/b`);
    const rv = b.body.metadata.resourceVersion as string;
    const watch = openWatch(base, `${cm}?watch=true&resourceVersion=${rv}`);
    await watch.ready;

    await etcd.killMember(0);
    const stoppedAt = Date.now();
    try {
      const [get, list, create, cached] = await Promise.all([
        call(base, 'GET', `${cm}/a`),
        call(base, 'GET', cm),
        call(base, 'POST', cm, { metadata: { name: 'during' } }),
        call(base, 'GET', `${cm}?resourceVersion=0`),
      ]);
      t.diagnostic(`while etcd is away: GET ${get.status} in ${get.ms} ms, LIST ${list.status} in ${list.ms} ms, create ${create.status} in ${create.ms} ms, LIST rv=0 ${cached.status} in ${cached.ms} ms`);
      assert.equal(get.status, 504);
      assert.equal(get.body.reason, 'Timeout');
      assert.equal(get.body.message, 'Timeout: request did not complete within the allotted timeout');
      assert.equal(list.status, 504);
      assert.equal(create.status, 504);
      assert.equal(create.body.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
      // The watch cache serves what it has.
      assert.equal(cached.status, 200);
      assert.deepEqual(cached.body.items.map((i: any) => i.metadata.name), ['a', 'b']);
      const readyz = await call(base, 'GET', '/readyz?verbose');
      assert.equal(readyz.status, 500);
      assert.match(readyz.body, /\[-\]etcd failed/);
      assert.match(readyz.body, /\[-\]etcd-readiness failed/);
      const livez = await call(base, 'GET', '/livez');
      assert.equal(livez.status, 200, 'live while etcd is away');
    } finally {
      // About 30 s away in all.
      await sleep(Math.max(0, 30_000 - (Date.now() - stoppedAt)));
      await etcd.restartMember(0);
    }

    // Writes succeed again by themselves.
    await until(async () => (await call(base, 'GET', '/readyz')).status === 200, '/readyz');
    assert.equal((await call(base, 'POST', cm, { metadata: { name: 'after' } })).status, 201);
    acknowledged.push('after');
    await until(() => watch.events.includes('ADDED after'), 'the watch to see the write after the outage');
    watch.stop();
    assert.ok(!watch.events.some((e) => e.startsWith('ERROR') || e === 'END'), `no error, no end: ${watch.events.join(', ')}`);
    // A client resuming from a revision etcd still has gets no 410.
    const resumed = openWatch(base, `${cm}?watch=true&resourceVersion=${rv}`);
    await resumed.ready;
    await until(() => resumed.events.includes('ADDED after'), 'the resumed watch');
    resumed.stop();
    assert.ok(!resumed.events.some((e) => e.startsWith('ERROR')));

    // Nothing acknowledged lost, nothing doubled: every stored object came through the watch once.
    const list = await call(base, 'GET', cm);
    const names: string[] = list.body.items.map((i: any) => i.metadata.name);
    for (const name of acknowledged) assert.ok(names.includes(name), `${name} kept`);
    assert.equal(new Set(names).size, names.length);
    for (const name of names.filter((n) => n !== 'a' && n !== 'b')) {
      assert.equal(watch.events.filter((e) => e === `ADDED ${name}`).length, 1, `${name} once`);
    }
  });
});

/** A TCP proxy in front of etcd: cut() drops every connection and refuses new ones until heal(). */
async function startProxy(target: string): Promise<{ url: string; cut(): void; heal(): void; stop(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    cut: () => {
      open = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    heal: () => {
      open = true;
    },
    stop: async () => {
      open = false;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function etcdctl(endpoint: string, ...args: string[]): string {
  return execFileSync('etcdctl', ['--endpoints', endpoint, ...args], { env: { ...process.env, ETCDCTL_API: '3' } }).toString();
}

describe('the watch cache while etcd is away', { timeout: 90_000 }, () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  it('resumes its backend watch once its reconnects gave up (watchers stay open); compaction meanwhile ends them for a relist, then 410', async () => {
    const proxy = await startProxy(etcd.endpoints[0]!);
    // A short retry window: the backend watch gives up (Unavailable) well within the outage.
    const backend = await ThreadedEtcdBackend.connect({ endpoints: [proxy.url], watchRetryWindowMs: 1000, requestTimeoutMs: 2000 });
    const store = new CachedObjectStore({
      backend,
      resource: { group: '', resource: 'configmaps' },
      namespaced: true,
      cache: { relistDelayMs: 300 },
    });
    try {
      await store.start();
      const obj = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });
      const first = await store.create('ns', 'one', obj('one'));
      const seen: string[] = [];
      let ended = '';
      const handle = await store.watch('ns', { resourceVersion: first.metadata.resourceVersion! }, {
        onEvent: (e: StoreWatchEvent) => seen.push(`${e.type} ${e.object.metadata.name}`),
        onError: (err) => (ended = `error ${err.code}`),
        onClose: () => (ended = 'closed'),
      });

      // Away for 3 s (three retry windows); etcd gets a write from elsewhere meanwhile.
      proxy.cut();
      etcdctl(etcd.endpoints[0]!, 'put', '/registry/configmaps/ns/two', JSON.stringify(obj('two')));
      await sleep(3000);
      proxy.heal();
      await until(() => seen.includes('ADDED two'), 'the event written while away', 15_000);
      assert.equal(ended, '', 'the watcher stayed open');
      handle.stop();

      // Cut again; a write and a compaction past the cache's revision while away.
      const watcher2: string[] = [];
      let ended2 = '';
      const current = await store.currentResourceVersion();
      const handle2 = await store.watch('ns', { resourceVersion: current }, {
        onEvent: (e) => watcher2.push(e.object.metadata.name!),
        onError: (err) => (ended2 = `error ${err.code}`),
        onClose: () => (ended2 = 'closed'),
      });
      proxy.cut();
      etcdctl(etcd.endpoints[0]!, 'put', '/registry/configmaps/ns/three', JSON.stringify(obj('three')));
      const rev = JSON.parse(etcdctl(etcd.endpoints[0]!, 'put', '/registry/configmaps/ns/four', JSON.stringify(obj('four')), '-w', 'json')).header.revision as number;
      etcdctl(etcd.endpoints[0]!, 'compact', String(rev));
      await sleep(2500);
      proxy.heal();
      // The cache cannot resume: its watchers are ended cleanly and it lists again.
      await until(() => ended2 !== '', 'the watcher to end', 15_000);
      assert.equal(ended2, 'closed');
      handle2.stop();
      // A client re-watching from the revision it had: 410, as upstream's "too old resource version".
      await until(async () => (await store.list('ns', { resourceVersion: '0' })).items.length === 4, 'the relist');
      let expired = '';
      await store.watch('ns', { resourceVersion: current }, { onEvent: () => {}, onError: (err) => (expired = `${err.code} ${err.message}`) });
      assert.match(expired, /^410 too old resource version/);
    } finally {
      store.stop();
      await backend.close();
      await proxy.stop();
    }
  });
});

describe('a member lost from a 3-member etcd cluster', { timeout: 90_000 }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd({ members: 3 });
    server = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints, compactionIntervalMs: 0 });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  it('keeps serving through the others, the leader included', async () => {
    const base = server.url;
    const cm = '/api/v1/namespaces/members/configmaps';
    assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'members' } })).status, 201);
    const watch = openWatch(base, `${cm}?watch=true`);
    await watch.ready;
    // The first endpoint apiary talks to, then (in a second round) the leader.
    for (const [round, victim] of [[0, 0], [1, await etcd.leader()]] as const) {
      await etcd.killMember(victim);
      try {
        for (let i = 0; i < 5; i++) {
          const name = `r${round}-${i}`;
          const res = await call(base, 'POST', cm, { metadata: { name } });
          assert.equal(res.status, 201, `${name}: ${JSON.stringify(res.body)}`);
          assert.equal((await call(base, 'GET', `${cm}/${name}`)).status, 200);
        }
        assert.equal((await call(base, 'GET', '/readyz')).status, 200);
      } finally {
        await etcd.restartMember(victim);
      }
    }
    await until(() => watch.events.filter((e) => e.startsWith('ADDED')).length === 10, 'every write through the watch');
    watch.stop();
    assert.ok(!watch.events.some((e) => e.startsWith('ERROR') || e === 'END'));
  });
});
