// Go's base64.StdEncoding, as kube-apiserver decodes []byte fields: the expected
// answers below were produced by Go's encoding/base64 (DecodeString, then
// EncodeToString of the bytes), including its quirks (newlines skipped anywhere,
// trailing bits dropped, the byte offset of the first bad input).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Base64CorruptInputError, decodeStdBase64 } from '../../src/machinery/base64.js';

// [input, canonical re-encoding or null, Go's error or null]
const WITNESSED: Array<[string, string | null, string | null]> = [
  ['', '', null], ['YWJj', 'YWJj', null], ['YWJjZA==', 'YWJjZA==', null], ['YWJjZB==', 'YWJjZA==', null],
  ['YWJjZGU=', 'YWJjZGU=', null], ['YWJjZGV=', 'YWJjZGU=', null], ['YW\nJj', 'YWJj', null],
  ['YWJjZA=', null, 'illegal base64 data at input byte 7'], ['YWJjZA', null, 'illegal base64 data at input byte 4'],
  ['YWJjZA==\n', 'YWJjZA==', null], ['YWJjZA==x', null, 'illegal base64 data at input byte 8'],
  ['=', null, 'illegal base64 data at input byte 0'], ['==', null, 'illegal base64 data at input byte 0'],
  ['Y===', null, 'illegal base64 data at input byte 1'], ['YW==YW==', null, 'illegal base64 data at input byte 4'],
  ['YWJjZA=\n=', 'YWJjZA==', null], ['YWJj\r\nZGVm', 'YWJjZGVm', null], ['!!!', null, 'illegal base64 data at input byte 0'],
  ['aGVsbG8gd29ybGQ=', 'aGVsbG8gd29ybGQ=', null], ['aGVsbG8gd29ybGQ', null, 'illegal base64 data at input byte 12'],
  ['aGVsbG8gd29ybGQ=x', null, 'illegal base64 data at input byte 16'], ['aGVs bG8=', null, 'illegal base64 data at input byte 4'],
  ['-\r\nA', null, 'illegal base64 data at input byte 0'], ['z++\r  A\n=AA ', null, 'illegal base64 data at input byte 4'],
  ['\r+\n-A-z \r  -', null, 'illegal base64 data at input byte 3'], ['zAz=\r\r', 'zAw=', null], ['\rz\r\r+AA\r', 'z+AA', null],
  ['- é-=-+-', null, 'illegal base64 data at input byte 0'],
];

test('decodeStdBase64 answers as Go\'s base64.StdEncoding.DecodeString', () => {
  for (const [input, canonical, error] of WITNESSED) {
    if (error === null) {
      assert.equal(decodeStdBase64(input).toString('base64'), canonical, JSON.stringify(input));
    } else {
      assert.throws(() => decodeStdBase64(input), (err: unknown) => err instanceof Base64CorruptInputError && err.message === error, JSON.stringify(input));
    }
  }
});

test('a non-ASCII character is the first bad byte; what decodes is the bytes', () => {
  assert.throws(() => decodeStdBase64('QUJDé!'), { message: 'illegal base64 data at input byte 4' });
  assert.equal(decodeStdBase64('aGk=').toString('utf8'), 'hi');
});
