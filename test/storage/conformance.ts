// The Backend conformance suite: one set of node:test cases that every storage
// backend (memory, sqlite, etcd) must pass. Call runBackendConformance from a
// *.test.ts file with a factory that opens a fresh backend per test.
//
// The suite never assumes an empty store or synchronous watch delivery: every
// revision is checked relative to the revision read at the start of the test,
// every key lives under a per-test prefix, and watch assertions wait (bounded)
// for the events they expect, then wait a little more to catch duplicates.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StorageError,
  prefixEnd,
  type Backend,
  type KeyValue,
  type WatchEvent,
  type WatchHandle,
  type StorageErrorCode,
} from '../../src/storage/interface.js';

export type BackendFactory = () => Promise<{ backend: Backend; cleanup: () => Promise<void> }>;

const WAIT_MS = 5000;
const SETTLE_MS = 100;

let prefixCounter = 0;
/** A key prefix no other test uses, so backends shared between tests stay apart. */
function uniquePrefix(): string {
  prefixCounter++;
  return `/registry/conformance-${process.pid}-${Date.now().toString(36)}-${prefixCounter}/`;
}

async function expectStorageError(
  promise: Promise<unknown>,
  code: StorageErrorCode,
): Promise<StorageError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof StorageError, `expected a StorageError, got ${String(err)}`);
    assert.equal(err.code, code, `expected ${code}, got ${err.code}: ${err.message}`);
    return err;
  }
  assert.fail(`expected StorageError ${code}, but the operation succeeded`);
}

function revisionOf(event: WatchEvent): number {
  return event.type === 'put' ? event.kv.modRevision : event.revision;
}

function keyOf(event: WatchEvent): string {
  return event.type === 'put' ? event.kv.key : event.key;
}

/** Records a watch and lets a test wait, with a deadline, for what it expects. */
class WatchRecorder {
  readonly events: WatchEvent[] = [];
  error: StorageError | undefined;
  readonly batches: number[] = [];
  readonly handle: WatchHandle;

  constructor(backend: Backend, prefix: string, afterRevision: number) {
    this.handle = backend.watch(prefix, afterRevision, {
      onEvents: (events) => {
        this.batches.push(events.length);
        this.events.push(...events);
      },
      onError: (err) => {
        this.error = err;
      },
    });
  }

  async waitFor(what: string, done: () => boolean, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) {
        assert.fail(
          `timed out waiting for ${what}; got ${this.events.length} events ` +
            `${JSON.stringify(this.events.map((e) => [e.type, keyOf(e), revisionOf(e)]))}, error ${this.error?.code}`,
        );
      }
      await sleep(5);
    }
  }

  /** Waits for exactly n events, then a settle period in which no more may arrive. */
  async waitForCount(n: number): Promise<void> {
    await this.waitFor(`${n} events`, () => this.events.length >= n || this.error !== undefined);
    assert.equal(this.error, undefined, `unexpected watch error: ${this.error?.message}`);
    await sleep(SETTLE_MS);
    assert.equal(this.events.length, n, 'more events than expected (duplicates or leaks)');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function assertStrictlyIncreasing(events: WatchEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    assert.ok(revisionOf(events[i]) > revisionOf(events[i - 1]), `event ${i} out of order`);
  }
}

export function runBackendConformance(name: string, open: BackendFactory): void {
  describe(`Backend conformance: ${name}`, () => {
    /** Runs body with a fresh backend and a fresh key prefix, always cleaning up. */
    function withBackend(title: string, body: (backend: Backend, p: string) => Promise<void>): void {
      test(title, async () => {
        const { backend, cleanup } = await open();
        try {
          await body(backend, uniquePrefix());
        } finally {
          await cleanup();
        }
      });
    }

    withBackend('every write takes the next store-wide revision', async (b, p) => {
      const r0 = await b.currentRevision();
      const a = await b.create(`${p}a`, 'a1');
      assert.deepEqual([a.createRevision, a.modRevision], [r0 + 1, r0 + 1]);
      const c = await b.create(`${p}c`, 'c1');
      assert.equal(c.modRevision, r0 + 2);
      const a2 = await b.update(`${p}a`, 'a2');
      assert.deepEqual([a2.createRevision, a2.modRevision, a2.value], [r0 + 1, r0 + 3, 'a2']);
      const del = await b.delete(`${p}c`);
      assert.equal(del.revision, r0 + 4);
      assert.equal(del.prevKv.value, 'c1');
      assert.equal(del.prevKv.modRevision, r0 + 2);
      assert.equal(await b.currentRevision(), r0 + 4);
      const got = await b.get(`${p}a`);
      assert.equal(got.revision, r0 + 4);
      assert.deepEqual(pick(got.kv), { key: `${p}a`, value: 'a2', createRevision: r0 + 1, modRevision: r0 + 3 });
      assert.equal((await b.get(`${p}c`)).kv, null);
    });

    withBackend('a key recreated after deletion gets a new createRevision', async (b, p) => {
      const first = await b.create(`${p}k`, 'v1');
      await b.delete(`${p}k`);
      const second = await b.create(`${p}k`, 'v2');
      assert.equal(second.createRevision, first.createRevision + 2);
      assert.equal(second.modRevision, second.createRevision);
    });

    withBackend('create of an existing key fails KeyExists and writes nothing', async (b, p) => {
      await b.create(`${p}k`, 'v1');
      const before = await b.currentRevision();
      const err = await expectStorageError(b.create(`${p}k`, 'v2'), 'KeyExists');
      assert.equal(err.key, `${p}k`);
      assert.equal(await b.currentRevision(), before);
      assert.equal((await b.get(`${p}k`)).kv?.value, 'v1');
    });

    withBackend('guarded update and delete with a stale modRevision fail Conflict carrying the current value', async (b, p) => {
      const v1 = await b.create(`${p}k`, 'v1');
      const v2 = await b.update(`${p}k`, 'v2', v1.modRevision);
      assert.equal(v2.value, 'v2');
      const before = await b.currentRevision();

      const updateErr = await expectStorageError(b.update(`${p}k`, 'v3', v1.modRevision), 'Conflict');
      assert.equal(updateErr.current?.value, 'v2');
      assert.equal(updateErr.current?.modRevision, v2.modRevision);

      const deleteErr = await expectStorageError(b.delete(`${p}k`, v1.modRevision), 'Conflict');
      assert.equal(deleteErr.current?.modRevision, v2.modRevision);
      assert.equal(await b.currentRevision(), before, 'failed writes must not take a revision');

      const deleted = await b.delete(`${p}k`, v2.modRevision);
      assert.equal(deleted.prevKv.value, 'v2');
      assert.equal(deleted.revision, before + 1);
    });

    withBackend('unguarded update replaces any value', async (b, p) => {
      await b.create(`${p}k`, 'v1');
      await b.update(`${p}k`, 'v2');
      const v3 = await b.update(`${p}k`, 'v3');
      assert.equal((await b.get(`${p}k`)).kv?.modRevision, v3.modRevision);
      assert.equal((await b.get(`${p}k`)).kv?.value, 'v3');
    });

    withBackend('update and delete of a missing key fail KeyNotFound', async (b, p) => {
      const before = await b.currentRevision();
      await expectStorageError(b.update(`${p}missing`, 'v'), 'KeyNotFound');
      await expectStorageError(b.update(`${p}missing`, 'v', 5), 'KeyNotFound');
      await expectStorageError(b.delete(`${p}missing`), 'KeyNotFound');
      await expectStorageError(b.delete(`${p}missing`, 5), 'KeyNotFound');
      assert.equal(await b.currentRevision(), before);
    });

    withBackend('get and range at a past revision see the past', async (b, p) => {
      await b.create(`${p}zz-filler`, 'f'); // so that a's creation is never revision 1 (0 reads the current one)
      const a1 = await b.create(`${p}a`, 'a1');
      await b.create(`${p}b`, 'b1');
      const rPast = await b.currentRevision();
      await b.update(`${p}a`, 'a2');
      await b.delete(`${p}b`);
      await b.create(`${p}c`, 'c1');

      const pastA = await b.get(`${p}a`, { revision: rPast });
      assert.equal(pastA.revision, rPast);
      assert.deepEqual(pick(pastA.kv), pick(a1));
      assert.equal((await b.get(`${p}b`, { revision: rPast })).kv?.value, 'b1');
      assert.equal((await b.get(`${p}c`, { revision: rPast })).kv, null);
      assert.equal((await b.get(`${p}a`, { revision: a1.modRevision - 1 })).kv, null, 'before its creation');

      const past = await b.range(p, prefixEnd(p), { revision: rPast });
      assert.equal(past.revision, rPast);
      assert.deepEqual(past.kvs.map((kv) => [kv.key, kv.value]), [[`${p}a`, 'a1'], [`${p}b`, 'b1'], [`${p}zz-filler`, 'f']]);
      assert.equal(past.count, 3);

      const now = await b.range(p, prefixEnd(p));
      assert.equal(now.revision, await b.currentRevision());
      assert.deepEqual(now.kvs.map((kv) => [kv.key, kv.value]), [[`${p}a`, 'a2'], [`${p}c`, 'c1'], [`${p}zz-filler`, 'f']]);
    });

    withBackend('range returns keys in byte order, honours limit with more and count', async (b, p) => {
      for (const name of ['d', 'a', 'c', 'e', 'b']) await b.create(`${p}${name}`, name);
      const limited = await b.range(p, prefixEnd(p), { limit: 2 });
      assert.deepEqual(limited.kvs.map((kv) => kv.value), ['a', 'b']);
      assert.equal(limited.more, true);
      assert.equal(limited.count, 5);

      // Continue from just past the last key, as a paged list does.
      const rest = await b.range(`${p}b\u0000`, prefixEnd(p), { limit: 10, revision: limited.revision });
      assert.deepEqual(rest.kvs.map((kv) => kv.value), ['c', 'd', 'e']);
      assert.equal(rest.more, false);
      assert.equal(rest.count, 3);

      const exact = await b.range(p, prefixEnd(p), { limit: 5 });
      assert.equal(exact.kvs.length, 5);
      assert.equal(exact.more, false);

      const all = await b.range(p, prefixEnd(p));
      assert.deepEqual(all.kvs.map((kv) => kv.value), ['a', 'b', 'c', 'd', 'e']);
      assert.equal(all.more, false);
      assert.equal(all.count, 5);

      const empty = await b.range(`${p}x/`, prefixEnd(`${p}x/`));
      assert.deepEqual([empty.kvs.length, empty.count, empty.more], [0, 0, false]);
    });

    withBackend('paged ranges at every past revision match the history, with and without a count', async (b, p) => {
      // A deterministic mix of creates, updates and deletes over a few keys; the
      // model holds the live keys after each write.
      let seed = 7;
      const rand = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const live = new Map<string, string>();
      const states: Array<{ revision: number; live: Map<string, string> }> = [];
      for (let i = 0; i < 40; i++) {
        const key = `${p}k${String(rand(12)).padStart(2, '0')}`;
        let revision: number;
        if (!live.has(key)) revision = (await b.create(key, `v${i}`)).modRevision;
        else if (rand(3) === 0) {
          revision = (await b.delete(key)).revision;
          live.delete(key);
          states.push({ revision, live: new Map(live) });
          continue;
        } else revision = (await b.update(key, `v${i}`)).modRevision;
        live.set(key, `v${i}`);
        states.push({ revision, live: new Map(live) });
      }
      for (const state of states) {
        const want = [...state.live].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
        for (const limit of [1, 3, 0]) {
          for (const counted of [true, false]) {
            const got: Array<[string, string]> = [];
            let start = p;
            for (;;) {
              const page = await b.range(start, prefixEnd(p), { revision: state.revision, limit, ...(counted ? {} : { count: false }) });
              const rest = want.length - got.length;
              const at = `at ${state.revision}, limit ${limit}, count ${counted}, from ${start}`;
              assert.equal(page.revision, state.revision, at);
              assert.equal(page.more, page.kvs.length < rest, at);
              if (counted) assert.equal(page.count, rest, at);
              else assert.ok(page.count >= page.kvs.length + (page.more ? 1 : 0) && page.count <= rest, at);
              got.push(...page.kvs.map((kv): [string, string] => [kv.key, kv.value]));
              if (!page.more) break;
              start = `${page.kvs[page.kvs.length - 1]!.key}\u0000`;
            }
            assert.deepEqual(got, want, `at ${state.revision}, limit ${limit}`);
          }
        }
      }
    });

    withBackend('a prefix range never leaks a neighbouring prefix', async (b, p) => {
      const a = `${p}configmaps/a/`;
      const ab = `${p}configmaps/ab/`;
      await b.create(`${a}one`, '1');
      await b.create(`${ab}two`, '2');
      await b.create(`${p}configmaps/a`, 'bare'); // the prefix without its slash is not under it
      await b.create(`${a}three`, '3');
      const inA = await b.range(a, prefixEnd(a));
      assert.deepEqual(inA.kvs.map((kv) => kv.key), [`${a}one`, `${a}three`]);
      assert.equal(inA.count, 2);
      const inAb = await b.range(ab, prefixEnd(ab));
      assert.deepEqual(inAb.kvs.map((kv) => kv.key), [`${ab}two`]);
    });

    withBackend('reads at a future revision fail FutureRevision', async (b, p) => {
      await b.create(`${p}k`, 'v');
      const current = await b.currentRevision();
      const err = await expectStorageError(b.get(`${p}k`, { revision: current + 10 }), 'FutureRevision');
      assert.equal(err.revision, current);
      await expectStorageError(b.range(p, prefixEnd(p), { revision: current + 1 }), 'FutureRevision');
      assert.equal((await b.get(`${p}k`, { revision: current })).kv?.value, 'v');
    });

    withBackend('watch replays history after a revision, then goes live, in order, without gaps or duplicates', async (b, p) => {
      const w = `${p}pods/`;
      const a1 = await b.create(`${w}a`, 'a1');
      const start = a1.modRevision; // the watch starts after a's creation
      await b.update(`${w}a`, 'a2');
      await b.create(`${p}other/x`, 'x'); // outside the watched prefix
      await b.create(`${w}b`, 'b1');

      const rec = new WatchRecorder(b, w, start);
      try {
        await rec.waitForCount(2);
        await b.delete(`${w}a`);
        await b.create(`${p}podsX`, 'neighbour'); // shares the text prefix but not the path
        await b.update(`${w}b`, 'b2');
        await rec.waitForCount(4);

        const seen = rec.events.map((e) => [e.type, keyOf(e), revisionOf(e)]);
        assert.deepEqual(seen, [
          ['put', `${w}a`, start + 1],
          ['put', `${w}b`, start + 3],
          ['delete', `${w}a`, start + 4],
          ['put', `${w}b`, start + 6],
        ]);
        assertStrictlyIncreasing(rec.events);

        const update = rec.events[0];
        assert.equal(update.type, 'put');
        if (update.type === 'put') {
          assert.equal(update.kv.value, 'a2');
          assert.equal(update.kv.createRevision, start);
          assert.equal(update.prevKv?.value, 'a1');
          assert.equal(update.prevKv?.modRevision, start);
        }
        const created = rec.events[1];
        assert.equal(created.type === 'put' ? created.prevKv : 'not a put', undefined, 'a creation has no prevKv');
        const deletion = rec.events[2];
        assert.equal(deletion.type, 'delete');
        if (deletion.type === 'delete') {
          assert.equal(deletion.prevKv.value, 'a2');
          assert.equal(deletion.prevKv.modRevision, start + 1);
        }
        const liveUpdate = rec.events[3];
        assert.equal(liveUpdate.type === 'put' ? liveUpdate.prevKv?.value : undefined, 'b1');
      } finally {
        rec.handle.cancel();
      }
    });

    withBackend('watch from the current revision sees only later writes; concurrent writes arrive in order', async (b, p) => {
      await b.create(`${p}before`, 'old');
      const rec = new WatchRecorder(b, p, await b.currentRevision());
      try {
        const writes = Array.from({ length: 20 }, (_, i) => b.create(`${p}k${String(i).padStart(2, '0')}`, String(i)));
        const kvs = await Promise.all(writes);
        await rec.waitForCount(20);
        assertStrictlyIncreasing(rec.events);
        assert.deepEqual(
          rec.events.map(revisionOf),
          kvs.map((kv) => kv.modRevision).sort((x, y) => x - y),
        );
      } finally {
        rec.handle.cancel();
      }
    });

    withBackend('cancel stops delivery', async (b, p) => {
      const rec = new WatchRecorder(b, p, await b.currentRevision());
      await b.create(`${p}one`, '1');
      await rec.waitForCount(1);
      rec.handle.cancel();
      await b.create(`${p}two`, '2');
      await b.update(`${p}one`, '1b');
      await sleep(SETTLE_MS);
      assert.equal(rec.events.length, 1);
      assert.equal(rec.error, undefined);
    });

    withBackend('compaction fails old reads and watches with Compacted and keeps current data', async (b, p) => {
      const r1 = (await b.create(`${p}k`, 'v1')).modRevision;
      const r2 = (await b.update(`${p}k`, 'v2')).modRevision;
      await b.create(`${p}gone`, 'g');
      await b.delete(`${p}gone`);
      const r3 = (await b.update(`${p}k`, 'v3')).modRevision;
      const r4 = (await b.update(`${p}k`, 'v4')).modRevision;
      await b.compact(r3);
      assert.ok((await b.compactedRevision()) >= r3);

      const err = await expectStorageError(b.get(`${p}k`, { revision: r1 }), 'Compacted');
      assert.ok(err.revision !== undefined && err.revision >= r3, 'Compacted carries the compaction revision');
      await expectStorageError(b.get(`${p}k`, { revision: r2 }), 'Compacted');
      await expectStorageError(b.range(p, prefixEnd(p), { revision: r1 }), 'Compacted');

      // The compaction point itself stays readable.
      assert.equal((await b.get(`${p}k`, { revision: r3 })).kv?.value, 'v3');
      const atR3 = await b.range(p, prefixEnd(p), { revision: r3 });
      assert.deepEqual(atR3.kvs.map((kv) => kv.value), ['v3']);
      // Current data is intact.
      const now = await b.range(p, prefixEnd(p));
      assert.deepEqual(now.kvs.map((kv) => [kv.key, kv.value, kv.modRevision]), [[`${p}k`, 'v4', r4]]);
      assert.equal(now.kvs[0].createRevision, r1);

      const old = new WatchRecorder(b, p, r1);
      try {
        await old.waitFor('a Compacted error', () => old.error !== undefined);
        assert.equal(old.error?.code, 'Compacted');
        assert.equal(old.events.length, 0);
      } finally {
        old.handle.cancel();
      }

      const fromCompaction = new WatchRecorder(b, p, r3);
      try {
        await fromCompaction.waitForCount(1);
        const event = fromCompaction.events[0];
        assert.equal(event.type === 'put' ? event.kv.value : undefined, 'v4');
        assert.equal(event.type === 'put' ? event.prevKv?.value : undefined, 'v3');
      } finally {
        fromCompaction.handle.cancel();
      }
    });

    withBackend('concurrent creates of the same key: exactly one wins', async (b, p) => {
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => b.create(`${p}race`, `writer-${i}`)));
      const won = results.filter((r): r is PromiseFulfilledResult<KeyValue> => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(won.length, 1);
      for (const r of lost) {
        assert.ok(r.reason instanceof StorageError && r.reason.code === 'KeyExists', String(r.reason));
      }
      assert.equal((await b.get(`${p}race`)).kv?.value, won[0].value.value);
    });

    withBackend('concurrent creates of distinct keys all succeed with distinct consecutive revisions', async (b, p) => {
      const r0 = await b.currentRevision();
      const kvs = await Promise.all(Array.from({ length: 50 }, (_, i) => b.create(`${p}k${i}`, `v${i}`)));
      const revisions = kvs.map((kv) => kv.modRevision).sort((x, y) => x - y);
      assert.deepEqual(revisions, Array.from({ length: 50 }, (_, i) => r0 + 1 + i));
      const listed = await b.range(p, prefixEnd(p));
      assert.equal(listed.count, 50);
      for (const kv of kvs) {
        assert.equal((await b.get(kv.key)).kv?.value, kv.value);
      }
    });

    withBackend('values round-trip exactly', async (b, p) => {
      const value = JSON.stringify({ text: 'ünïcødé ✓ \u0000 "quoted"\n', big: 'x'.repeat(100_000) });
      await b.create(`${p}k`, value);
      assert.equal((await b.get(`${p}k`)).kv?.value, value);
    });

    test('calls after close fail', async () => {
      const { backend, cleanup } = await open();
      try {
        await backend.close();
        await assert.rejects(backend.get('/registry/anything'));
        await assert.rejects(backend.create('/registry/anything', 'v'));
      } finally {
        await cleanup();
      }
    });
  });
}

/** The contract's fields of a KeyValue, for comparisons that ignore backend extras such as lease. */
function pick(kv: KeyValue | null): Pick<KeyValue, 'key' | 'value' | 'createRevision' | 'modRevision'> | null {
  if (!kv) return null;
  return { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}
