// corrupt-values.ts in isolation: upstream's decoder wording for the ways a
// value goes bad (the etcd cases in corrupt-values.test.ts were recorded from
// kube-apiserver 1.32.4), and the log hook called once per key and revision.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorruptValues, base64ErrorOffset, decodeStored, isCorruptObjectError } from '../../src/storage/corrupt-values.js';

const gr = { group: 'apps', resource: 'deployments' };

function message(value: string): string {
  try {
    decodeStored(value, 7, '/registry/deployments/ns/x', gr, new CorruptValues());
  } catch (err) {
    assert.ok(isCorruptObjectError(err));
    return err.status.message ?? '';
  }
  return 'decoded';
}

test("Go's base64 decoder: where it reports a value corrupt", () => {
  assert.equal(base64ErrorOffset('xxxxnotjson'), 8); // a short last quantum
  assert.equal(base64ErrorOffset('42'), 0);
  assert.equal(base64ErrorOffset('ab!d'), 2); // an invalid character
  assert.equal(base64ErrorOffset('aGVsbG8='), undefined);
  assert.equal(base64ErrorOffset('a==='), 1);
});

test('decode failures in upstream wording', () => {
  assert.equal(message('xxxxnotjson'), 'illegal base64 data at input byte 8');
  assert.equal(message('{"kind":"Deployment"'), "couldn't get version/kind; json parse error: unexpected end of JSON input");
  assert.equal(message('{"kind":"Deployment" x}'), "couldn't get version/kind; json parse error: invalid character 'x' after object key:value pair");
  assert.equal(message('[1,2]'), 'illegal base64 data at input byte 0');
  assert.equal(message('k8s:enc:aescbc:v1:key1:xx'), 'Internal error occurred: identity transformer tried to read encrypted data');
  assert.equal(message('{"kind":"Deployment","metadata":{"name":"x"}}'), 'decoded');
});

test('with the gate: the corrupt-object StorageError, the key without the prefix when asked', () => {
  const values = new CorruptValues();
  values.unsafeDeletion = true;
  try {
    decodeStored('xxxxnotjson', 9, '/registry/deployments/ns/x', gr, values, '/deployments/ns/x');
    assert.fail('decoded');
  } catch (err) {
    assert.ok(isCorruptObjectError(err));
    assert.equal(
      err.status.message,
      'Internal error occurred: StorageError: corrupt object, Code: 7, Key: /deployments/ns/x, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=9: illegal base64 data at input byte 8',
    );
    assert.equal(err.status.reason, 'InternalError');
  }
});

test('counted every time, reported once per key and revision', () => {
  const values = new CorruptValues();
  const reported: string[] = [];
  values.onFirstFailure((r) => reported.push(`${r.resource} ${r.key}@${r.revision}`));
  for (let i = 0; i < 5; i++) {
    assert.throws(() => decodeStored('garbage!', 3, '/registry/deployments/ns/a', gr, values));
    assert.throws(() => decodeStored('garbage!', 4, '/registry/deployments/ns/a', gr, values));
  }
  assert.deepEqual(reported, ['deployments.apps /registry/deployments/ns/a@3', 'deployments.apps /registry/deployments/ns/a@4']);
  assert.equal(values.failures().get('deployments.apps'), 10);
});
