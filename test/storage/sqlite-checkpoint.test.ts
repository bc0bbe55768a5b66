// SqliteBackend's own WAL checkpoints (src/storage/sqlite.ts): SQLite no
// longer checkpoints inside a COMMIT on the event loop; the backend copies the
// WAL into the database file itself, only once every committed batch is
// durable, and commits nothing until the file's copy is synced (a commit after
// a full checkpoint reuses the WAL from its start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { StorageError, type KeyValue } from '../../src/storage/interface.js';

const value = 'x'.repeat(1024);

function open(t: { after(fn: () => unknown): void }): { backend: SqliteBackend; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-checkpoint-'));
  const file = path.join(dir, 'apiary.db');
  const backend = SqliteBackend.open(file);
  t.after(async () => {
    await backend.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { backend, file };
}

/** Replaces fs.fdatasync (the backend imports it from node:fs) until the test ends. */
function interceptFdatasync(
  t: { after(fn: () => unknown): void },
  stand: (real: typeof fs.fdatasync, fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => void,
): void {
  const real = fs.fdatasync;
  fs.fdatasync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => stand(real, fd, callback)) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  t.after(() => {
    fs.fdatasync = real;
    syncBuiltinESMExports();
  });
}

const isDatabaseFile = (fd: number, file: string): boolean => fs.readlinkSync(`/proc/self/fd/${fd}`) === file;

async function createMany(backend: SqliteBackend, count: number, inFlight = 64): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await backend.create(`/registry/configmaps/ns/k${next++}`, value);
    }),
  );
}

test('sqlite: under sustained writes the WAL is copied into the database file and reused, not grown', async (t) => {
  const { backend, file } = open(t);
  let largestWal = 0;
  const sizes = setInterval(() => {
    if (fs.existsSync(`${file}-wal`)) largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
  }, 5);
  t.after(() => clearInterval(sizes));
  await createMany(backend, 8000);
  clearInterval(sizes);
  largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
  // 8,000 values of 1 KiB are over 8 MiB of rows: the file holds most of them before close.
  assert.ok(fs.statSync(file).size > 6 * 2 ** 20, `database file ${fs.statSync(file).size} bytes`);
  // Without checkpoints the WAL would hold every frame (about 80 MiB here: each write rewrites
  // whole pages of two key-ordered indexes); reused, it stays near one window's (2,000 writes).
  assert.ok(largestWal < 40 * 2 ** 20, `largest WAL ${largestWal} bytes`);
  const { kvs, count } = await backend.range('/registry/configmaps/ns/', '/registry/configmaps/ns0');
  assert.equal(count, 8000);
  assert.equal(kvs[0]!.value, value);
});

test('sqlite: a checkpoint copies only durable batches, and no batch commits until the copy is synced', async (t) => {
  const { backend, file } = open(t);
  const internals = backend as unknown as { revision: number; committedRevision: number };
  await backend.create('/registry/configmaps/ns/first', value); // the WAL exists
  let databaseSyncs = 0;
  let release: (() => void) | undefined;
  const atDatabaseSync: Array<{ durable: number; committed: number }> = [];
  interceptFdatasync(t, (real, fd, callback) => {
    if (!isDatabaseFile(fd, file)) return real(fd, callback);
    databaseSyncs++;
    atDatabaseSync.push({ durable: internals.revision, committed: internals.committedRevision });
    // The first one is held until the test lets it go: a slow disk.
    if (databaseSyncs === 1) real(fd, (err) => (release = () => callback(err)));
    else real(fd, callback);
  });
  // Writes until the first checkpoint's sync is held.
  const writes: Array<Promise<KeyValue>> = [];
  for (let i = 0; release === undefined && i < 20_000; i++) {
    writes.push(backend.create(`/registry/configmaps/ns/k${i}`, value));
    if (i % 64 === 63) await Promise.race([Promise.all(writes.slice(-64)), new Promise((r) => setTimeout(r, 50))]);
  }
  while (release === undefined) await new Promise((r) => setTimeout(r, 5));
  // Copied only once every committed batch was durable.
  assert.equal(atDatabaseSync[0]!.durable, atDatabaseSync[0]!.committed);
  const committedAtCopy = atDatabaseSync[0]!.committed;
  // Writes asked for while the file's sync runs wait, uncommitted.
  let acknowledged = false;
  const during = backend.create('/registry/configmaps/ns/during', value).then((kv) => ((acknowledged = true), kv));
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(acknowledged, false, 'acknowledged before the checkpoint was synced');
  assert.equal(internals.committedRevision, committedAtCopy, 'a batch committed before the checkpoint was synced');
  release();
  const kv = await during;
  assert.ok(kv.modRevision > committedAtCopy);
  await Promise.all(writes);
  assert.equal((await backend.get('/registry/configmaps/ns/during')).kv?.value, value);
});

test('sqlite: a failed fdatasync of the checkpointed file fails unacknowledged writes and refuses later ones', async (t) => {
  const { backend, file } = open(t);
  await backend.create('/registry/configmaps/ns/first', value);
  interceptFdatasync(t, (real, fd, callback) => {
    if (!isDatabaseFile(fd, file)) return real(fd, callback);
    const err = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5, syscall: 'fdatasync' });
    real(fd, () => callback(err));
  });
  // Waves of 64 until one is refused (the first checkpoint comes after 2,000 writes).
  const refused: PromiseRejectedResult[] = [];
  for (let wave = 0; refused.length === 0 && wave < 50; wave++) {
    const results = await Promise.allSettled(Array.from({ length: 64 }, (_, i) => backend.create(`/registry/configmaps/ns/k${wave}-${i}`, value)));
    refused.push(...results.filter((r): r is PromiseRejectedResult => r.status === 'rejected'));
  }
  assert.ok(refused.length > 0, 'every write was acknowledged although the checkpoint could not be synced');
  for (const r of refused) assert.ok(r.reason instanceof StorageError && r.reason.code === 'Unavailable', String(r.reason));
  await assert.rejects(backend.create('/registry/configmaps/ns/later', value), (err) => err instanceof StorageError && err.code === 'Unavailable');
});

test('sqlite: close() waits for a running checkpoint, and the file reopens with every write', async (t) => {
  const { backend, file } = open(t);
  await backend.create('/registry/configmaps/ns/first', value);
  let held = false;
  interceptFdatasync(t, (real, fd, callback) => {
    if (!isDatabaseFile(fd, file) || held) return real(fd, callback);
    held = true;
    real(fd, (err) => setTimeout(() => callback(err), 200));
  });
  await createMany(backend, 2500);
  assert.ok(held, 'no checkpoint ran');
  await backend.close();
  assert.equal(fs.existsSync(`${file}-wal`), false, 'closing checkpoints and removes the WAL');
  const reopened = SqliteBackend.open(file);
  t.after(() => reopened.close());
  const { count } = await reopened.range('/registry/configmaps/ns/', '/registry/configmaps/ns0');
  assert.equal(count, 2501);
});
