import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedKeys } from '../../src/storage/sorted-keys.js';

test('keys come back in order, once each, between bounds', () => {
  const keys = new SortedKeys();
  for (const key of ['/r/b/2', '/r/a/1', '/r/c/1', '/r/b/1', '/r/a/1', '/s/x']) keys.insert(key);
  assert.equal(keys.length, 5);
  assert.deepEqual([...keys.between('/r/b/', '/r/b0')], ['/r/b/1', '/r/b/2']);
  assert.deepEqual([...keys.between('/r/', '')], ['/r/a/1', '/r/b/1', '/r/b/2', '/r/c/1', '/s/x']);
  assert.deepEqual([...keys.between('/r/b/2', '/r/c/1')], ['/r/b/2'], 'start is inclusive, end exclusive');
  assert.deepEqual([...keys.between('/t', '')], []);
});

test('remove and retain drop keys; removing a missing key is a no-op', () => {
  const keys = new SortedKeys();
  for (let i = 0; i < 1000; i++) keys.insert(`/k/${String(i).padStart(4, '0')}`);
  keys.remove('/k/0500');
  keys.remove('/k/none');
  assert.equal(keys.length, 999);
  keys.retain((key) => Number(key.slice(3)) % 2 === 0);
  assert.equal(keys.length, 499);
  assert.deepEqual([...keys.between('/k/0496', '/k/0504')], ['/k/0496', '/k/0498', '/k/0502']);
});

test('firstFrom is the first key at or after a start, as between() begins', () => {
  const keys = new SortedKeys();
  assert.equal(keys.firstFrom(''), undefined);
  for (const key of ['/r/b/2', '/r/a/1', '/r/c/1']) keys.insert(key);
  assert.equal(keys.firstFrom('/r/b/'), '/r/b/2');
  assert.equal(keys.firstFrom('/r/b/2'), '/r/b/2', 'inclusive');
  assert.equal(keys.firstFrom('/r/b/3'), '/r/c/1');
  assert.equal(keys.firstFrom('/r/d'), undefined);
  // Asked twice (the answer's array is reused): each answer stands.
  const a = keys.firstFrom('/r/a');
  const c = keys.firstFrom('/r/c');
  assert.deepEqual([a, c], ['/r/a/1', '/r/c/1']);
});
