// The issue's own reproduction, end to end: `apiary serve` on etcd with its
// controllers (garbage collector, quota, namespaces: informers over every
// resource), one value under its prefix that is not an object. Before the fix
// the watch path threw and the process ended at once. Now it keeps serving,
// its controllers keep running, and the log names the key once, however many
// requests and informer relists meet it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '../helpers/etcd.js';
import { spawnApiary } from '../helpers/apiary-process.js';

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

test('apiary serve survives a corrupt value under its prefix and logs its key once', { timeout: 120_000 }, async (t) => {
  const etcd = await startEtcd();
  t.after(() => etcd.stop());
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-faults-serve-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const lines: string[] = [];
  const proc = spawnApiary(['serve', '--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--data-dir', dataDir, '--secure-port', '0'], {
    onLine: (line) => lines.push(line),
  });
  t.after(() => proc.stop());
  const base = await proc.url;
  assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } })).status, 201);
  assert.equal((await call(base, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'good' } })).status, 201);
  // Watchers of configmaps (the controllers' informers, and one of ours) are open when the value lands.
  const controller = new AbortController();
  t.after(() => controller.abort());
  await fetch(`${base}/api/v1/configmaps?watch=true`, { signal: controller.signal });

  execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0]!, 'put', '/registry/configmaps/bench/garbage', 'xxxxnotjson'], {
    env: { ...process.env, ETCDCTL_API: '3' },
    stdio: 'ignore',
  });
  for (let i = 0; i < 5; i++) {
    const get = await call(base, 'GET', '/api/v1/namespaces/bench/configmaps/garbage');
    assert.equal(get.status, 500);
    assert.equal(get.body.message, 'illegal base64 data at input byte 8');
    assert.equal((await call(base, 'GET', '/api/v1/namespaces/bench/configmaps')).status, 500);
  }
  // Time for the controllers' informers to meet it too (their lists fail and retry).
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(proc.child.exitCode, null, `still running:\n${proc.output().slice(-3000)}`);
  assert.equal((await call(base, 'GET', '/readyz')).status, 200);
  assert.equal((await call(base, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'later' } })).status, 201);
  // A namespace deletion (the namespace controller lists every resource in it) still proceeds as far as it can.
  assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'other' } })).status, 201);
  assert.equal((await call(base, 'DELETE', '/api/v1/namespaces/other')).status, 200);

  const named = lines.filter((l) => l.includes('stored value cannot be decoded'));
  assert.equal(named.length, 1, `logged once:\n${named.join('\n')}`);
  const entry = JSON.parse(named[0]!) as { key: string; resource: string; err: string };
  assert.equal(entry.key, '/registry/configmaps/bench/garbage');
  assert.equal(entry.resource, 'configmaps');
  assert.equal(entry.err, 'illegal base64 data at input byte 8');
  const metrics = (await call(base, 'GET', '/metrics')).body as string;
  assert.match(metrics, /apiserver_storage_decode_errors_total\{resource="configmaps"\} \d+/);
  assert.doesNotMatch(proc.output(), /uncaught exception|unhandled promise rejection/);
});
