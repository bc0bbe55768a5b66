import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResourceVersion, formatResourceVersion } from '../../src/machinery/resource-version.js';
import { encodeContinue, decodeContinue, cleanPath } from '../../src/machinery/continue-token.js';
import { StatusError } from '../../src/machinery/errors.js';

function badRequestMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, 'expected a StatusError');
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    return err.message;
  }
  assert.fail('expected a 400');
}

test('resourceVersion: empty and zero mean "any", decimals parse', () => {
  assert.equal(parseResourceVersion(undefined), 0);
  assert.equal(parseResourceVersion(''), 0);
  assert.equal(parseResourceVersion('0'), 0);
  assert.equal(parseResourceVersion('12345'), 12345);
  assert.equal(parseResourceVersion('007'), 7);
  assert.equal(formatResourceVersion(0), '');
  assert.equal(formatResourceVersion(42), '42');
});

test('resourceVersion: non-numeric, signed and out-of-range values are 400 with upstream text', () => {
  const cases: [string, string][] = [
    ['abc', 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
    ['-1', 'invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'],
    ['+1', 'invalid resource version: resourceVersion: Invalid value: "+1": strconv.ParseUint: parsing "+1": invalid syntax'],
    ['1.5', 'invalid resource version: resourceVersion: Invalid value: "1.5": strconv.ParseUint: parsing "1.5": invalid syntax'],
    [
      '18446744073709551616',
      'invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range',
    ],
  ];
  for (const [rv, want] of cases) assert.equal(badRequestMessage(() => parseResourceVersion(rv)), want, rv);
});

test('continue token: the exact upstream encoding', () => {
  const token = encodeContinue('/registry/pods/default/web-1\x00', '/registry/pods/default/', 42);
  assert.equal(
    Buffer.from(token, 'base64url').toString(),
    '{"v":"meta.k8s.io/v1","rv":42,"start":"web-1\\u0000"}',
  );
  assert.ok(!token.includes('=') && !token.includes('+') && !token.includes('/'));
  // Same bytes a Go server produces for this key (base64.RawURLEncoding of the JSON above).
  assert.equal(token, 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDIsInN0YXJ0Ijoid2ViLTFcdTAwMDAifQ');
  assert.deepEqual(decodeContinue(token, '/registry/pods/default/'), {
    fromKey: '/registry/pods/default/web-1\x00',
    revision: 42,
  });
  // Go escapes HTML-sensitive characters.
  const html = encodeContinue('/p/a<b>&c', '/p/', 1);
  assert.equal(Buffer.from(html, 'base64url').toString(), '{"v":"meta.k8s.io/v1","rv":1,"start":"a\\u003cb\\u003e\\u0026c"}');
  assert.equal(decodeContinue(html, '/p/').fromKey, '/p/a<b>&c');
});

test('continue token: a key outside the prefix cannot be encoded', () => {
  assert.throws(() => encodeContinue('/other/x', '/registry/pods/', 1), (err: StatusError) => err.code === 500);
});

function token(json: string): string {
  return Buffer.from(json).toString('base64url');
}

test('continue token: malformed tokens are 400 with upstream messages', () => {
  const p = '/registry/pods/';
  const cases: [string, string][] = [
    ['not base64!', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 3'],
    ['eyJ2Ijo=', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 7'],
    ['abcde', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 4'],
    [token('hello'), "invalid continue token: continue key is not valid: invalid character 'h' looking for beginning of value"],
    [token('[1]'), 'invalid continue token: continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken'],
    [
      token('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'),
      'invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
    ],
    [
      token('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}'),
      'invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2',
    ],
    [
      token('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'),
      'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    ],
    [
      token('{"v":"meta.k8s.io/v1","rv":5,"start":""}'),
      'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    ],
    [token('{"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/x"}'), 'invalid continue token: continue key is not valid: ../secrets/x'],
    [token('{"v":"meta.k8s.io/v1","rv":5,"start":"a/../../b"}'), 'invalid continue token: continue key is not valid: a/../../b'],
    [token('{"v":"meta.k8s.io/v1","rv":5,"start":"a//b"}'), 'invalid continue token: continue key is not valid: a//b'],
  ];
  for (const [t, want] of cases) assert.equal(badRequestMessage(() => decodeContinue(t, p)), want, t);
});

test('continue token: a negative revision passes through, a leading slash is accepted', () => {
  assert.deepEqual(decodeContinue(token('{"v":"meta.k8s.io/v1","rv":-1,"start":"/ns/a"}'), '/registry/pods/'), {
    fromKey: '/registry/pods/ns/a',
    revision: -1,
  });
});

test('cleanPath follows Go path.Clean for rooted paths', () => {
  assert.equal(cleanPath('/a/./b/../c'), '/a/c');
  assert.equal(cleanPath('/../a'), '/a');
  assert.equal(cleanPath('/a/'), '/a');
  assert.equal(cleanPath('/'), '/');
});
