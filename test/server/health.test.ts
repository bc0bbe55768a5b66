// Health endpoints when a check fails, as kube-apiserver words it: always
// verbose, the reason withheld, a 500 ending "<endpoint> check failed"; a
// single failing check is "internal server error: <reason>". A real HTTP
// server runs serveHealth with probes that report what a stopping server with
// unreachable storage reports.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { healthEndpointOf, serveHealth, type HealthProbes } from '../../src/server/health.js';
import { startTestServer } from '../helpers/server.js';

async function serve(probes: HealthProbes, t: { after(fn: () => unknown): void }): Promise<string> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const target = healthEndpointOf(url.pathname);
    if (target === undefined) return void res.writeHead(404).end();
    void serveHealth(req, res, target, url.searchParams, probes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a failing check: verbose 500 with the reason withheld; the single check says why', async (t) => {
  const base = await serve({ storage: async () => Promise.reject(new Error('connection refused')), cachesSynced: () => true, serving: () => false, systemNamespaces: () => false }, t);
  const ready = await fetch(`${base}/readyz`);
  assert.equal(ready.status, 500);
  assert.equal(ready.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(
    await ready.text(),
    '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n[+]informer-sync ok\n' +
      '[+]poststarthook/start-apiserver-admission-initializer ok\n[-]poststarthook/start-system-namespaces-controller failed: reason withheld\n' +
      '[-]shutdown failed: reason withheld\nreadyz check failed\n',
  );
  // Until the system namespaces exist (when the embedder waits for them), /healthz fails too.
  const namespaces = await fetch(`${base}/healthz/poststarthook/start-system-namespaces-controller`);
  assert.equal(namespaces.status, 500);
  assert.equal(await namespaces.text(), 'internal server error: system namespaces not created yet\n');
  // livez has no shutdown check: only the storage fails it.
  const live = await fetch(`${base}/livez?exclude=etcd`);
  assert.equal(live.status, 200);
  assert.equal(await live.text(), 'ok');
  const one = await fetch(`${base}/readyz/etcd`);
  assert.equal(one.status, 500);
  assert.equal(await one.text(), 'internal server error: connection refused\n');
  const shutdown = await fetch(`${base}/readyz/shutdown`);
  assert.equal(await shutdown.text(), 'internal server error: process is shutting down\n');
});

test('a server told to await its system namespaces fails /healthz from its first request until they are created', async (t) => {
  const server = await startTestServer({ awaitSystemNamespaces: true });
  t.after(() => server.stop());
  // Before the embedder has started its controllers (envtest polls /healthz in this window).
  const early = await fetch(`${server.url}/healthz/poststarthook/start-system-namespaces-controller`);
  assert.equal(early.status, 500);
  assert.equal(await early.text(), 'internal server error: system namespaces not created yet\n');
  let created!: () => void;
  server.awaitSystemNamespaces(new Promise<void>((resolve) => (created = resolve)));
  assert.equal((await fetch(`${server.url}/healthz`)).status, 500);
  created();
  await new Promise((resolve) => setImmediate(resolve));
  const after = await fetch(`${server.url}/healthz`);
  assert.equal(after.status, 200);
  assert.equal(await after.text(), 'ok');
});
