// The registry on the real SqliteBackend: writes survive a reopen, watch and
// paginated lists behave as on memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { newTestRegistry, sample, statusOf } from './helpers.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { WatchEvent } from '../../src/registry/rest.js';

test('registry on SqliteBackend: create, conflict, watch, paginate, reopen', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-registry-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'state.db');

  const first = newTestRegistry({ backend: SqliteBackend.open(file) });
  try {
    const deploy = first.store('apps', 'deployments');
    const events: WatchEvent[] = [];
    const watcher = await deploy.watch('default', {}, { event: (e) => events.push(e), done: () => {} });
    const created = await deploy.create('default', sample('apps', 'deployments', 'web'), {});
    const updated = await deploy.patch('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 3 } }), {});
    assert.equal(updated.metadata.generation, 2);
    const stale = await statusOf(deploy.update('default', 'web', created, {}));
    assert.equal(stale.code, 409);
    for (let i = 0; i < 5; i++) await first.store('', 'configmaps').create('default', { metadata: { name: `c${i}` } }, {});
    const page = await first.store('', 'configmaps').list('default', { limit: 3 });
    assert.equal(page.items.length, 3);
    assert.equal(page.metadata.remainingItemCount, 2);
    const rest = await first.store('', 'configmaps').list('default', { limit: 3, continue: page.metadata.continue! });
    assert.deepEqual(rest.items.map((i) => i.metadata.name), ['c3', 'c4']);
    await new Promise((r) => setTimeout(r, 50));
    watcher.stop();
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED']);
  } finally {
    await first.close();
  }

  const second = newTestRegistry({ backend: SqliteBackend.open(file) });
  try {
    const got = await second.store('apps', 'deployments').get('default', 'web', {});
    assert.equal((got.spec as { replicas: number }).replicas, 3);
    assert.equal((got as KubeObject).metadata.generation, 2);
  } finally {
    await second.close();
  }
});
