import { test } from 'node:test';
import assert from 'node:assert/strict';
import { omitKeys } from '../../src/machinery/omit-keys.js';

test('omitKeys copies as a rest pattern does: the other own keys, in order, "__proto__" as a key', () => {
  const obj = JSON.parse('{"b":1,"resourceVersion":"5","a":{"x":1},"__proto__":{"polluted":true},"2":"two","managedFields":[],"z":null}') as Record<string, unknown>;
  const { resourceVersion: _rv, managedFields: _mf, ...rest } = obj;
  const copy = omitKeys(obj, 'resourceVersion', 'managedFields');
  assert.deepEqual(Object.keys(copy), Object.keys(rest));
  assert.equal(JSON.stringify(copy), JSON.stringify(rest));
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal((copy as { polluted?: boolean }).polluted, undefined);
  assert.equal(copy['a'], obj['a'], 'values are shared, not copied');
  assert.deepEqual(omitKeys({ a: 1, b: 2 }, 'c'), { a: 1, b: 2 });
  assert.deepEqual(omitKeys({ a: 1, b: 2 }, 'a'), { b: 2 });
});
