// SqliteBackend's commit hook (WriteOptions.onCommitted): it fires once the
// write is applied in its batch's transaction, before the fsync that makes it
// durable, and nothing else sees the write before that fsync — not readers,
// not watchers, not the write's own promise. A write issued from the hook
// builds on the committed state (a compare-and-swap against the committed
// revision succeeds) and is acknowledged only after the first one. When the
// fsync fails, the committed write and every write issued after its hook fail;
// none is acknowledged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { StorageError, type KeyValue, type WatchEvent } from '../../src/storage/interface.js';

function open(t: { after(fn: () => unknown): void }): SqliteBackend {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-commit-hook-'));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(async () => {
    await backend.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return backend;
}

test('sqlite: onCommitted fires before the write is durable; readers, watchers and the promise wait for the fsync', async (t) => {
  const b = open(t);
  const base = await b.create('/registry/q/ns/a', 'v0');
  const events: WatchEvent[] = [];
  const handle = b.watch('/registry/q/', base.modRevision, { onEvents: (e) => events.push(...e), onError: () => {} });
  t.after(() => handle.cancel());

  const order: string[] = [];
  let atCommit: { settled: boolean; read: Promise<{ kv: KeyValue | null }>; revision: Promise<number>; events: number; syncing: boolean } | undefined;
  let committed: KeyValue | undefined;
  let followUp: Promise<KeyValue> | undefined;
  let settled = false;
  const write = b.update('/registry/q/ns/a', 'v1', base.modRevision, {
    onCommitted: (kv) => {
      order.push('committed');
      committed = kv;
      atCommit = {
        settled,
        read: b.get('/registry/q/ns/a'),
        revision: b.currentRevision(),
        events: events.length,
        // White box: the fsync covering this write's batch is in flight (SqliteBackend.syncing).
        syncing: (b as unknown as { syncing?: Promise<void> }).syncing !== undefined,
      };
      // Built on the committed state: the CAS compares against the committed, not yet durable, revision.
      followUp = b.update('/registry/q/ns/a', 'v2', kv.modRevision);
      followUp.then(() => order.push('follow-up acknowledged'), () => {});
    },
  });
  write.then(() => {
    settled = true;
    order.push('acknowledged');
  }, () => {});
  const answer = await write;
  assert.ok(atCommit !== undefined && committed !== undefined && followUp !== undefined, 'onCommitted was called');
  assert.deepEqual(committed, answer);
  assert.equal(atCommit.settled, false, 'the promise settles only after the fsync');
  assert.equal(atCommit.syncing, true, 'the fsync covering the write was still running');
  assert.equal((await atCommit.read).kv?.value, 'v0', 'a read during the fsync sees the durable state');
  assert.equal(await atCommit.revision, base.modRevision, 'the current revision is the durable one');
  assert.equal(atCommit.events, 0, 'no watcher saw the write before its fsync');

  const second = await followUp;
  assert.equal(second.modRevision, answer.modRevision + 1);
  assert.deepEqual(order, ['committed', 'acknowledged', 'follow-up acknowledged']);
  assert.equal((await b.get('/registry/q/ns/a')).kv?.value, 'v2');
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    events.map((e) => (e.type === 'put' ? e.kv.value : 'delete')),
    ['v1', 'v2'],
  );
});

test('sqlite: a failed fsync fails the committed write and every write issued after its hook', async (t) => {
  const b = open(t);
  await b.create('/registry/q/ns/a', 'v0'); // the WAL file exists, and its fd is open
  // White box: fsync of /dev/null fails (EINVAL), as a dying disk's would.
  const internals = b as unknown as { walFd?: number };
  assert.notEqual(internals.walFd, undefined);
  fs.closeSync(internals.walFd!);
  internals.walFd = fs.openSync('/dev/null', 'r');

  // Follow-ups issued at several moments after the commit, so that some are
  // committed in a later batch and some are still queued when the fsync fails:
  // each must fail (none hang, none is acknowledged).
  const followUps: Promise<KeyValue>[] = [];
  const follow = (i: number): void => {
    const p = b.create(`/registry/q/ns/f${i}`, 'created after the commit');
    p.catch(() => {}); // examined below
    followUps.push(p);
  };
  let hooks = 0;
  const write = b.update('/registry/q/ns/a', 'v1', undefined, {
    onCommitted: () => {
      hooks++;
      follow(0);
      setImmediate(() => follow(1));
      setImmediate(() => setImmediate(() => follow(2)));
      process.nextTick(() => follow(3));
      setTimeout(() => follow(4), 0);
    },
  });
  await assert.rejects(write, (err) => err instanceof StorageError && err.code === 'Unavailable');
  assert.equal(hooks, 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(followUps.length, 5);
  const outcomes = await Promise.race([
    Promise.allSettled(followUps),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), 2000)),
  ]);
  assert.notEqual(outcomes, 'hung', 'a write issued after the commit never settled');
  for (const o of outcomes as PromiseSettledResult<KeyValue>[]) {
    assert.equal(o.status, 'rejected');
    assert.ok(o.reason instanceof StorageError && o.reason.code === 'Unavailable', String(o.reason));
  }
  await assert.rejects(b.create('/registry/q/ns/c', 'later'), (err) => err instanceof StorageError && err.code === 'Unavailable');
});
