// The apiary command as a process: `serve` prints its URL, serves, and on
// SIGTERM ends open watches, closes the store and exits 0.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WatchStream, configMap, get, request } from '../helpers/http.js';
import { spawnApiary } from '../helpers/apiary-process.js';

test('serve on sqlite, SIGTERM ends watches and exits 0, data survives a restart', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-cli-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const args = ['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'];

  const first = spawnApiary(args, { urlTimeoutMs: 30_000 });
  t.after(() => first.stop('SIGKILL'));
  const url = await first.url;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await get(url, '/readyz')).text, 'ok');
  assert.ok(fs.existsSync(path.join(dataDir, 'kubeconfig')));
  await request(url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kept' } } });
  const created = await request(url, 'POST', '/api/v1/namespaces/kept/configmaps', { body: configMap('durable') });
  assert.equal(created.status, 201, created.text);

  const watch = await WatchStream.open(url, '/api/v1/namespaces/kept/configmaps?watch=1');
  assert.equal((await watch.next())?.type, 'ADDED');
  first.child.kill('SIGTERM');
  assert.equal(await watch.next(10_000), undefined, 'the watch ends with the server');
  assert.equal(await first.exited, 0, first.output());
  assert.match(first.output(), /received SIGTERM, shutting down/);

  const second = spawnApiary(args, { urlTimeoutMs: 30_000 });
  t.after(() => second.stop('SIGKILL'));
  const url2 = await second.url;
  const again = await get(url2, '/api/v1/namespaces/kept/configmaps/durable');
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json.data, { key: 'value' });
  second.child.kill('SIGINT');
  assert.equal(await second.exited, 0, second.output());
});

test('bad flags exit 2 with usage', async () => {
  const cli = spawnApiary(['serve', '--storage', 'floppy']);
  assert.equal(await cli.exited, 2);
  assert.match(cli.output(), /invalid --storage "floppy"/);
});

test('--controllers in kube-controller-manager syntax leaves a controller to upstream', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-cli-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const args = ['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent', '--namespace-deletion-grace-period', '0s'];
  const cli = spawnApiary([...args, '--controllers', '*,-namespace-controller'], { urlTimeoutMs: 30_000 });
  t.after(() => cli.stop('SIGKILL'));
  const url = await cli.url;
  // The system namespaces controller is the API server's own: it still runs.
  for (let i = 0; i < 50 && (await get(url, '/api/v1/namespaces/kube-system')).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get(url, '/api/v1/namespaces/kube-system')).status, 200);
  // Once this server holds the Lease, its leader-side controllers run: the choice must hold there too.
  const lease = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiary-controller-manager';
  for (let i = 0; i < 150 && (await get(url, lease)).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get(url, lease)).status, 200, 'the controllers lead');
  await request(url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'left' } } });
  assert.equal((await request(url, 'DELETE', '/api/v1/namespaces/left')).status, 200);
  // With no grace period apiary's namespace controller would empty and remove it within moments.
  await new Promise((r) => setTimeout(r, 3000));
  const left = await get(url, '/api/v1/namespaces/left');
  assert.equal(left.status, 200, 'nobody finalizes the namespace: that is left to kube-controller-manager');
  assert.equal(left.json.status.phase, 'Terminating');
  assert.equal(left.json.status.conditions, undefined);
});

test('--controllers with an unknown name exits 2 naming it', async () => {
  const cli = spawnApiary(['serve', '--controllers', '*,-bogus-controller']);
  assert.equal(await cli.exited, 2);
  assert.match(cli.output(), /"bogus-controller" is not in the list of known controllers/);
});
