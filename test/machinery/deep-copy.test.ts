import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy } from '../../src/machinery/deep-copy.js';

test('deepCopy copies a JSON tree: equal, and sharing nothing with the original', () => {
  const original = {
    metadata: { name: 'q', labels: { a: 'b' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { '.': {} } } }] },
    spec: { hard: { pods: '1' }, list: [1, 'two', null, true, [3]] },
    status: null,
  };
  const copy = deepCopy(original);
  assert.deepEqual(copy, original);
  copy.metadata.labels.a = 'changed';
  (copy.metadata.managedFields[0]!.fieldsV1['f:spec'] as Record<string, unknown>)['f:hard'] = {};
  (copy.spec.list[4] as number[]).push(4);
  assert.equal(original.metadata.labels.a, 'b');
  assert.deepEqual(original.metadata.managedFields[0]!.fieldsV1, { 'f:spec': { '.': {} } });
  assert.deepEqual(original.spec.list[4], [3]);
});

test('deepCopy keeps keys whose value is undefined, and copies what is not plain data by structuredClone', () => {
  const when = new Date(0);
  const bytes = new Uint8Array([1, 2, 3]);
  const copy = deepCopy({ gone: undefined, when, bytes });
  assert.ok('gone' in copy);
  assert.notEqual(copy.when, when);
  assert.equal(copy.when.getTime(), 0);
  assert.notEqual(copy.bytes, bytes);
  assert.deepEqual([...copy.bytes], [1, 2, 3]);
  assert.equal(deepCopy('s'), 's');
  assert.equal(deepCopy(null), null);
});

test('known keys: a large copy or an assembled map answers "empty?" without listing its keys, and stays right after deletes', async () => {
  const { isEmptyRecord } = await import('../../src/machinery/known-keys.js');
  const { assembleSlices, jsonSlices } = await import('../../src/machinery/json-slices.js');
  const big = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'v']));
  const copy = deepCopy(big);
  const assembled = (await assembleSlices(jsonSlices({ data: big }, 100), () => Promise.resolve())) as { data: Record<string, unknown> };
  for (const obj of [copy, assembled.data]) {
    assert.equal(isEmptyRecord(obj), false);
    for (const k of Object.keys(obj)) {
      if (k === 'k4999') continue;
      delete obj[k];
    }
    assert.equal(isEmptyRecord(obj), false);
    delete obj['k4999'];
    assert.equal(isEmptyRecord(obj), true);
    obj['again'] = undefined;
    assert.equal(isEmptyRecord(obj), false);
  }
  assert.equal(isEmptyRecord({}), true);
});
