// json-slices.ts: a value rebuilt from its slices is the value (keys in order,
// `__proto__` an own key), and no slice holds more than its share of it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleSlices, jsonSlices } from '../../src/machinery/json-slices.js';

const noPause = (): Promise<void> => Promise.resolve();

async function roundTrip(value: unknown, sliceNodes?: number): Promise<unknown> {
  return assembleSlices(jsonSlices(value, sliceNodes), noPause, 0);
}

test('small and scalar values come back whole, in one slice', async () => {
  for (const v of [null, 1, 'x', true, [], {}, { a: [1, { b: null }] }]) {
    assert.equal(jsonSlices(v).length, 1);
    assert.deepEqual(await roundTrip(v), v);
  }
});

test('large containers come back in order, nested ones under their own path', async () => {
  const data: Record<string, string> = {};
  for (let i = 0; i < 5000; i++) data[`k${i}`] = `v${i}`;
  data['10'] = 'numeric keys first, as JSON.parse orders them';
  const value = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big', ownerReferences: Array.from({ length: 3000 }, (_, i) => ({ uid: `u${i}` })) },
    data,
    list: [1, Array.from({ length: 2000 }, (_, i) => i), 'after', { deep: Array.from({ length: 1500 }, () => ({})) }],
  };
  const slices = jsonSlices(value, 100);
  assert.ok(slices.length > 100);
  for (const [, , json] of slices) assert.ok(json.length < 100 * 40, `a slice of ${json.length} characters`);
  const back = await roundTrip(value, 100);
  assert.equal(JSON.stringify(back), JSON.stringify(value));
  assert.deepEqual(Object.keys((back as typeof value).data), Object.keys(data));
});

test('`__proto__` stays an own key at every level and never sets a prototype', async () => {
  const text = `{"a":{${Array.from({ length: 300 }, (_, i) => `"k${i}":1`).join(',')},"__proto__":{"polluted":true}},"__proto__":[${'{},'.repeat(299)}{}]}`;
  const value = JSON.parse(text) as Record<string, unknown>;
  const back = (await roundTrip(value, 50)) as Record<string, Record<string, unknown>>;
  assert.equal(JSON.stringify(back), text);
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
  assert.equal(Object.getPrototypeOf(back['a']), Object.prototype);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('assembling pauses once its budget of work has passed', async () => {
  const value = { data: Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 'v'])) };
  let pauses = 0;
  const back = await assembleSlices(jsonSlices(value), async () => {
    pauses++;
  }, 0);
  assert.ok(pauses > 100, `${pauses} pauses`);
  assert.equal(Object.keys((back as typeof value).data).length, 200_000);
});

test('stringifySliced writes JSON.stringify\'s text, pausing as it goes', async () => {
  const value = {
    a: undefined,
    f: () => 1,
    when: new Date(0),
    data: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i % 3 === 0 ? null : `v${i}`])),
    list: [undefined, 1, [Array.from({ length: 3000 }, (_, i) => ({ i }))], 'x'],
    '__proto__': 1,
  };
  let pauses = 0;
  const { stringifySliced } = await import('../../src/machinery/json-slices.js');
  const text = await stringifySliced(value, async () => {
    pauses++;
  }, 0, 100);
  assert.equal(text, JSON.stringify(value));
  assert.ok(pauses > 100, `${pauses} pauses`);
  for (const v of [null, 1, 'x', [], {}, [undefined]]) assert.equal(await stringifySliced(v, async () => {}), JSON.stringify(v));
  // In pieces (for a worker thread, which joins them): a piece per pause, together the same text.
  const { stringifySlicedPieces, jsonText } = await import('../../src/machinery/json-slices.js');
  const pieces = await stringifySlicedPieces(value, async () => {}, 0, 100);
  assert.ok(pieces.length > 100, `${pieces.length} pieces`);
  assert.equal(jsonText(pieces), JSON.stringify(value));
});

test('stringifySliced writes runs of scalars and wide objects as JSON.stringify does', async () => {
  const { stringifySliced } = await import('../../src/machinery/json-slices.js');
  const value = {
    list: [1, 'x', null, undefined, () => 1, Symbol('s'), { b: [1, 2, { c: undefined }] }, ...new Array(5000).fill(0), [3, 4], 'end'],
    // eslint-disable-next-line no-sparse-arrays
    sparse: [1, , 3],
    wide: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i % 3 === 0 ? null : i % 3 === 1 ? { x: i } : 'v'])),
    // A wide object reached twice, under two parents: its keys are listed for each.
    twice: [] as unknown[],
  };
  value.twice.push(value.wide, { again: value.wide });
  let pauses = 0;
  const text = await stringifySliced(value, async () => {
    pauses++;
  }, 0, 16);
  assert.equal(text, JSON.stringify(value));
  assert.ok(pauses > 100, `${pauses} pauses`);
});
