import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  generateNameSuffix,
  generateName,
  formatTimestamp,
  formatMicroTime,
  newUid,
} from '../../src/machinery/names.js';
import { isDNS1123Label } from '../../src/machinery/validation.js';

test('name suffixes use only upstream alphabet and are 5 long', () => {
  for (let i = 0; i < 200; i++) assert.match(generateNameSuffix(), /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  // A controlled random source gives a predictable suffix: first and last letters.
  assert.equal(generateNameSuffix(() => 0), 'bbbbb');
  assert.equal(generateNameSuffix(() => 0.999999), '99999');
});

test('generateName keeps generated names within 63 characters', () => {
  assert.equal(generateName('web-', () => 0), 'web-bbbbb');
  const long = generateName('a'.repeat(100) + '-');
  assert.equal(long.length, 63);
  assert.deepEqual(isDNS1123Label(long), []);
});

test('timestamps: metav1.Time truncates to seconds, MicroTime has six digits', () => {
  const d = new Date(Date.UTC(2026, 10, 21, 10, 0, 0, 123));
  assert.equal(formatTimestamp(d), '2026-11-21T10:00:00Z');
  assert.equal(formatMicroTime(d), '2026-11-21T10:00:00.123000Z');
  assert.equal(formatTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 999))), '2026-01-02T03:04:05Z');
  assert.equal(formatMicroTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 7))), '2026-01-02T03:04:05.007000Z');
});

test('uids are distinct v4 UUIDs', () => {
  const a = newUid();
  const b = newUid();
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a, b);
});
