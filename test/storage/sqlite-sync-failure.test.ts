// SqliteBackend when an fsync fails: what the file holds is unknown, so every
// write not yet acknowledged fails, those still queued for the next batch
// too (they used to wait forever: the closed backend never flushed them),
// and every later write is refused. Likewise close() fails writes queued
// while it waited for the last fsync instead of leaving them pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { StorageError, type KeyValue } from '../../src/storage/interface.js';

function open(t: { after(fn: () => unknown): void }): SqliteBackend {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-sync-failure-'));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(async () => {
    await backend.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return backend;
}

/** Each promise's outcome, or 'hung' when they have not all settled within 2 s. */
async function outcomes(writes: Promise<KeyValue>[]): Promise<PromiseSettledResult<KeyValue>[] | 'hung'> {
  return Promise.race([Promise.allSettled(writes), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 2000))]);
}

test('sqlite: a failed fsync fails every unacknowledged write, queued ones too, and refuses later ones', async (t) => {
  const b = open(t);
  await b.create('/registry/s/a', 'v0'); // the WAL file exists, and its fd is open
  // White box: fsync of /dev/null fails (EINVAL), as a dying disk's would.
  const internals = b as unknown as { walFd?: number };
  assert.notEqual(internals.walFd, undefined);
  fs.closeSync(internals.walFd!);
  internals.walFd = fs.openSync('/dev/null', 'r');

  // Writes at several moments around the failing fsync: some in its batch, some
  // in a later batch, some still queued when it fails. Each must fail.
  const writes: Promise<KeyValue>[] = [];
  const write = (i: number): void => {
    const p = b.create(`/registry/s/k${i}`, 'v');
    p.catch(() => {}); // examined below
    writes.push(p);
  };
  write(0);
  process.nextTick(() => write(1));
  setImmediate(() => write(2));
  setImmediate(() => setImmediate(() => write(3)));
  setImmediate(() => setImmediate(() => setImmediate(() => write(4))));
  setTimeout(() => write(5), 0);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(writes.length, 6);
  const settled = await outcomes(writes);
  assert.notEqual(settled, 'hung', 'a write queued when the fsync failed never settled');
  for (const o of settled as PromiseSettledResult<KeyValue>[]) {
    assert.equal(o.status, 'rejected');
    assert.ok(o.reason instanceof StorageError && o.reason.code === 'Unavailable', String(o.reason));
  }
  await assert.rejects(b.create('/registry/s/later', 'v'), (err) => err instanceof StorageError && err.code === 'Unavailable');
});

test('sqlite: writes queued while close() waits for the last fsync settle (acknowledged or refused), never hang', async (t) => {
  const b = open(t);
  const first = b.create('/registry/s/a', 'v');
  const closing = b.close();
  const writes: Promise<KeyValue>[] = [];
  const write = (i: number): void => {
    const p = b.create(`/registry/s/k${i}`, 'v');
    p.catch(() => {}); // examined below
    writes.push(p);
  };
  process.nextTick(() => write(0));
  setImmediate(() => write(1));
  setImmediate(() => setImmediate(() => write(2)));
  await first;
  await closing;
  const settled = await outcomes(writes);
  assert.notEqual(settled, 'hung', 'a write queued during close() never settled');
  for (const o of settled as PromiseSettledResult<KeyValue>[]) {
    if (o.status === 'rejected') assert.ok(o.reason instanceof StorageError && o.reason.code === 'Unavailable', String(o.reason));
  }
});
