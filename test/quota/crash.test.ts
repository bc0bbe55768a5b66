// A crash never leaves more objects than the quota counts: a real
// `apiary serve` (SQLite, no controllers, so only admission moves
// status.used) takes parallel configmap creates in a quota'd namespace and
// is killed with SIGKILL mid-load; reopening its file, the durable
// configmaps are at most the durable count/configmaps, by no more than the
// creates in flight, and every acknowledged create is there. (Written to
// guard admitting at the quota write's commit rather than its fsync; holds
// for any ordering of the two writes that is safe.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiary } from '../helpers/apiary-process.js';
import { request } from '../helpers/http.js';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { SQLITE_FILE_NAME } from '../../src/storage/open.js';
import { prefixEnd } from '../../src/storage/interface.js';
import { decode } from '../../src/storage/object-store.js';
import { parseQuantity } from '../../src/machinery/quantity.js';
import type { ResourceQuota } from '../../src/api/core/v1/types.js';

const PARALLEL = 32;
const KILL_AFTER_ACKS = 300;

test('kill -9 under quota\'d load: durable configmaps never exceed the durable status.used', { timeout: 120_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-quota-crash-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const server = await startApiary(['serve', '--port', '0', '--data-dir', dir, '--storage', 'sqlite', '--controllers=false', '--log-level', 'warn']);
  t.after(() => server.stop('SIGKILL'));
  const base = server.origin;

  const ns = await request(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'crash' } } });
  assert.equal(ns.status, 201, ns.text);
  const hard = { 'count/configmaps': '100000' };
  const q = await request(base, 'POST', '/api/v1/namespaces/crash/resourcequotas', { body: { metadata: { name: 'q' }, spec: { hard } } });
  assert.equal(q.status, 201, q.text);
  // No quota controller: fill the status as it would (the count starts at 0).
  const status = await request(base, 'PUT', '/api/v1/namespaces/crash/resourcequotas/q/status', {
    body: { ...q.json, status: { hard, used: { 'count/configmaps': '0' } } },
  });
  assert.equal(status.status, 200, status.text);

  const acked = new Set<string>();
  let next = 0;
  let killed = false;
  const worker = async (): Promise<void> => {
    while (!killed) {
      const name = `c${next++}`;
      let reply;
      try {
        reply = await request(base, 'POST', '/api/v1/namespaces/crash/configmaps', { body: { metadata: { name }, data: { name } } });
      } catch {
        return; // the server is gone
      }
      if (reply.status === 201) acked.add(name);
      else if (!killed) assert.fail(`create ${name}: ${reply.status} ${reply.text}`);
      if (!killed && acked.size >= KILL_AFTER_ACKS) {
        killed = true;
        server.child.kill('SIGKILL'); // creates (and quota writes) are still in flight
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  await server.exited;

  const reopened = SqliteBackend.open(path.join(dir, SQLITE_FILE_NAME));
  t.after(() => reopened.close());
  const prefix = '/registry/configmaps/crash/';
  const stored = await reopened.range(prefix, prefixEnd(prefix));
  const names = new Set(stored.kvs.map((kv) => kv.key.slice(prefix.length)));
  for (const name of acked) assert.ok(names.has(name), `acknowledged configmap ${name} is missing`);
  const quota = (await reopened.get('/registry/resourcequotas/crash/q')).kv;
  assert.ok(quota !== null);
  const usedText = (decode(quota.value, quota.modRevision) as ResourceQuota).status?.used?.['count/configmaps'] ?? '0';
  const used = Number(parseQuantity(String(usedText)).value());
  assert.ok(stored.count <= used, `${stored.count} configmaps are durable but status.used counts ${used}`);
  // Charged but never created: at most the creates that were in flight.
  assert.ok(used - stored.count <= PARALLEL, `status.used ${used} over-counts ${stored.count} configmaps by more than ${PARALLEL}`);
  t.diagnostic(`acknowledged ${acked.size}, durable ${stored.count}, durable status.used ${used}`);
});
