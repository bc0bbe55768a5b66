// RevisionCheck: concurrent consistent reads share one backend revision read,
// and a caller arriving while a read is in flight never gets that read's answer.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RevisionCheck } from '../../src/storage/cacher/revision-check.js';

/** A backend revision whose reads the test answers one by one. */
function controlledReads(): { check: RevisionCheck; pending: Array<(rev: number) => void>; fail(i: number, err: Error): void } {
  const pending: Array<(rev: number) => void> = [];
  const rejects: Array<(err: Error) => void> = [];
  const check = new RevisionCheck(
    () =>
      new Promise<number>((resolve, reject) => {
        pending.push(resolve);
        rejects.push(reject);
      }),
  );
  return { check, pending, fail: (i, err) => rejects[i]!(err) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('RevisionCheck', () => {
  test('callers arriving during a read share the next one, which starts after the first settles', async () => {
    const { check, pending } = controlledReads();
    const first = check.current();
    const later = [check.current(), check.current(), check.current()];
    assert.equal(pending.length, 1, 'one read in flight');
    pending[0]!(10);
    assert.equal(await first, 10);
    await tick();
    assert.equal(pending.length, 2, 'the joiners started exactly one more read');
    const third = check.current(); // arrives during the second read: waits for a third
    pending[1]!(12);
    assert.deepEqual(await Promise.all(later), [12, 12, 12]);
    await tick();
    assert.equal(pending.length, 3);
    pending[2]!(13);
    assert.equal(await third, 13);
    assert.equal(check.reads, 3);
  });

  test('a failed read fails only its own callers; the next read still runs', async () => {
    const { check, pending, fail } = controlledReads();
    const first = check.current();
    const joiner = check.current();
    fail(0, new Error('etcd away'));
    await assert.rejects(first, /etcd away/);
    await tick();
    pending[1]!(7);
    assert.equal(await joiner, 7);
  });

  test('a read that throws synchronously rejects and leaves the check usable', async () => {
    let calls = 0;
    const check = new RevisionCheck(() => {
      if (++calls === 1) throw new Error('closed');
      return Promise.resolve(5);
    });
    await assert.rejects(check.current(), /closed/);
    assert.equal(await check.current(), 5);
  });
});
