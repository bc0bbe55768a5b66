// A full disk under the SQLite store (issue 35, part 3): the data directory is
// a size-limited tmpfs the test mounts (root only; the test is skipped, saying
// so, where mounting is refused). Writes that do not fit answer what
// kube-apiserver 1.32 answers when etcd's quota is exceeded (a plain 500,
// "etcdserver: mvcc: database space exceeded"), reads keep working, nothing is
// half-written, and writes work again by themselves once space returns.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';

function tryMount(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err).trim();
  }
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

test('sqlite on a full disk: 500 "database space exceeded" as upstream, reads work, nothing half-written, recovers by itself', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-full-disk-'));
  const refused = tryMount(dir, '6m');
  if (refused !== undefined) {
    rmSync(dir, { recursive: true, force: true });
    t.skip(`mounting a size-limited tmpfs was refused here: ${refused}`);
    return;
  }
  // Everything started here stops in one hook, in order: the server, the mount, the directory.
  const cleanups: Array<() => unknown> = [];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  // Ballast: removed later to give the space back.
  const ballast = join(dir, 'ballast');
  writeFileSync(ballast, Buffer.alloc(1024 * 1024));

  const server = await startTestServer({ dataDir: join(dir, 'data') });
  cleanups.push(() => server.stop());
  const base = server.url;
  const cm = '/api/v1/namespaces/full/configmaps';
  assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'full' } })).status, 201);

  const events: string[] = [];
  const controller = new AbortController();
  cleanups.push(() => controller.abort());
  const watch = await fetch(`${base}${cm}?watch=true`, { signal: controller.signal });
  void (async () => {
    const reader = watch.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const e = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { name: string } } };
          buffered = buffered.slice(nl + 1);
          events.push(`${e.type} ${e.object.metadata.name}`);
        }
      }
    } catch {
      // Aborted.
    }
  })();

  // Fill the disk with 200 KB objects until a write does not fit.
  const acknowledged: string[] = [];
  const payload = 'x'.repeat(200 * 1024);
  let refusedWrite: { name: string; status: number; body: any } | undefined;
  for (let i = 0; i < 200 && refusedWrite === undefined; i++) {
    const name = `fill-${i}`;
    const res = await call(base, 'POST', cm, { metadata: { name }, data: { payload } });
    if (res.status === 201) acknowledged.push(name);
    else refusedWrite = { name, ...res };
  }
  assert.ok(refusedWrite !== undefined, 'the disk filled up');
  assert.ok(acknowledged.length > 3, `some writes fitted (${acknowledged.length})`);
  assert.equal(refusedWrite.status, 500);
  assert.deepEqual(refusedWrite.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'etcdserver: mvcc: database space exceeded',
    code: 500,
  });

  // Reads keep working; the refused write left nothing.
  assert.equal((await call(base, 'GET', `${cm}/${acknowledged[0]}`)).status, 200);
  assert.equal((await call(base, 'GET', `${cm}/${refusedWrite.name}`)).status, 404);
  const list = await call(base, 'GET', cm);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.items.map((i: any) => i.metadata.name).sort(), [...acknowledged].sort());
  // Updates of what exists do not fit either, and change nothing.
  const first = (await call(base, 'GET', `${cm}/${acknowledged[0]}`)).body;
  const update = await call(base, 'PUT', `${cm}/${acknowledged[0]}`, { ...first, data: { payload: payload + 'y' } });
  assert.equal(update.status, 500);
  assert.equal((await call(base, 'GET', `${cm}/${acknowledged[0]}`)).body.metadata.resourceVersion, first.metadata.resourceVersion);
  assert.equal((await call(base, 'GET', '/readyz')).status, 200);

  // Space returns: writes work again, without a restart.
  rmSync(ballast);
  const after = await call(base, 'POST', cm, { metadata: { name: 'after' } });
  assert.equal(after.status, 201, JSON.stringify(after.body));
  acknowledged.push('after');
  const deadline = Date.now() + 10_000;
  while (!events.includes('ADDED after') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // Every acknowledged write reached the watch once; nothing else did.
  assert.deepEqual(events.filter((e) => e.startsWith('ADDED')).sort(), acknowledged.map((n) => `ADDED ${n}`).sort());
});
