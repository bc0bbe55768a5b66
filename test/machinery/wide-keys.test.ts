// wide-keys.ts: the key list of a large map assembled from slices is kept (so
// that a large request never lists it again on the event loop), and whatever
// is done to the map afterwards, everything that reads it through the list
// answers as if it had listed the keys itself: JSON, copies, validation.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { assembleSlices, jsonSlices, stringifySliced } from '../../src/machinery/json-slices.js';
import { hasKeptKeys, releaseWideKeys, wideKeys } from '../../src/machinery/wide-keys.js';
import { deepCopy } from '../../src/machinery/deep-copy.js';
import { validateConfigMap } from '../../src/api/core/v1/validation.js';
import type { KubeObject } from '../../src/machinery/meta.js';

const noPause = (): Promise<void> => Promise.resolve();

function configMap(keys: number, first?: [string, unknown]): KubeObject {
  const data: Record<string, unknown> = {};
  if (first !== undefined) data[first[0]] = first[1];
  for (let i = 0; i < keys; i++) data[`k${i}`] = `v${i}`;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data } as KubeObject;
}

async function assembled(obj: unknown, sliceNodes = 100): Promise<KubeObject> {
  return (await assembleSlices(jsonSlices(obj, sliceNodes), noPause, 0)) as KubeObject;
}

/** What every reader must agree with: the map's own JSON as the platform writes it. */
async function agrees(obj: KubeObject): Promise<void> {
  const data = obj.data as Record<string, unknown>;
  const expected = JSON.stringify(obj);
  assert.equal(await stringifySliced(obj, noPause, 0, 100), expected);
  const listed = wideKeys(data).filter((k) => Object.hasOwn(data, k));
  assert.deepEqual(listed, Object.keys(data));
  const copy = deepCopy(obj);
  // A copy is plain data, or (of a kept map) a kept map of its own until the request's end.
  assert.ok(Object.getPrototypeOf(copy.data) === Object.prototype || hasKeptKeys(copy.data as object));
  assert.equal(JSON.stringify(copy), expected);
}

test('a large assembled map keeps its keys; a small one, or one with an array-index key, does not', async () => {
  const big = await assembled(configMap(5000));
  assert.ok(hasKeptKeys(big.data as object));
  assert.deepEqual(wideKeys(big.data as object), Object.keys(big.data as object));
  await agrees(big);
  const small = await assembled(configMap(500));
  assert.equal(hasKeptKeys(small.data as object), false);
  // Object.keys lists array indices first: such a map is listed as usual.
  const indexed = await assembled(configMap(5000, ['7', 'seven']));
  assert.equal(hasKeptKeys(indexed.data as object), false);
  releaseWideKeys();
});

test('a member too large for its map\'s slices keeps its place among the keys', async () => {
  const nested: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) nested[`n${i}`] = i;
  const obj = configMap(5000, ['aFirst', nested]);
  const back = await assembled(obj);
  assert.ok(hasKeptKeys(back.data as object));
  assert.deepEqual(wideKeys(back.data as object), Object.keys(obj.data as object));
  await agrees(back);
  releaseWideKeys();
});

test('deleted, added, re-added and changed keys read as Object.keys would list them', async () => {
  const obj = await assembled(configMap(5000));
  const data = obj.data as Record<string, unknown>;
  delete data.k10;
  data.k11 = 'changed';
  await agrees(obj);
  assert.ok(hasKeptKeys(data), 'deleting and changing keep the list');
  // An added key (and a re-added one, which moves to the end) drops the list: the map is listed again.
  data.k10 = 'back, at the end';
  assert.equal(hasKeptKeys(data), false);
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
  await agrees(obj);
  assert.equal(Object.keys(data).at(-1), 'k10');

  const other = await assembled(configMap(5000));
  Object.assign(other.data as object, { added: 'by Object.assign' });
  assert.equal(hasKeptKeys(other.data as object), false);
  await agrees(other);
  releaseWideKeys();
});

test('keys named like Object.prototype\'s members are own keys only while they are there', async () => {
  const obj = configMap(5000);
  Object.assign(obj.data as object, { toString: 'a', constructor: 'b', hasOwnProperty: 'c' });
  Object.defineProperty(obj.data, '__proto__', { value: 'd', enumerable: true, writable: true, configurable: true });
  const back = await assembled(obj);
  const data = back.data as Record<string, unknown>;
  assert.ok(hasKeptKeys(data));
  assert.equal(JSON.stringify(back), JSON.stringify(obj));
  await agrees(back);
  for (const key of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) delete data[key];
  assert.ok(hasKeptKeys(data));
  await agrees(back);
  // Object.prototype's members are still reached through the map.
  assert.equal(typeof data.hasOwnProperty, 'function');
  assert.equal(String(data), '[object Object]');
  releaseWideKeys();
});

test('validation reads the kept keys: a deleted invalid key is gone, an added one is found', async () => {
  const obj = await assembled(configMap(5000, ['bad key', 'x']));
  const data = obj.data as Record<string, unknown>;
  assert.ok(hasKeptKeys(data));
  assert.deepEqual(validateConfigMap(obj).map((e) => e.field), ['data[bad key]']);
  delete data['bad key'];
  assert.deepEqual(validateConfigMap(obj), []);
  data['another bad'] = 'y';
  assert.deepEqual(validateConfigMap(obj).map((e) => e.field), ['data[another bad]']);
  releaseWideKeys();
});

test('the end of the request gives the maps their plain prototype back', async () => {
  const obj = await assembled(configMap(5000));
  assert.equal(isDeepStrictEqual(obj, configMap(5000)), false, 'the kept map has a prototype of its own meanwhile');
  releaseWideKeys();
  assert.equal(hasKeptKeys(obj.data as object), false);
  assert.equal(Object.getPrototypeOf(obj.data), Object.prototype);
  assert.ok(isDeepStrictEqual(obj, configMap(5000)));
});

test('a copy of a kept map keeps its own list, without the keys deleted before the copy', async () => {
  const obj = await assembled(configMap(5000));
  delete (obj.data as Record<string, unknown>).k3;
  const copy = deepCopy(obj);
  const data = copy.data as Record<string, unknown>;
  assert.ok(hasKeptKeys(data));
  assert.deepEqual(wideKeys(data), Object.keys(data));
  assert.equal(Object.hasOwn(data, 'k3'), false);
  data.added = 'x';
  assert.equal(hasKeptKeys(data), false);
  await agrees(copy);
  releaseWideKeys();
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
});
