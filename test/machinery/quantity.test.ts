import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseQuantity,
  quantityFromInt,
  quantityFromMilli,
  QuantityParseError,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_SUFFIX_ERROR,
} from '../../src/machinery/quantity.js';

test('canonical strings (what the API server writes back)', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['-0', '0'],
    ['000', '0'],
    ['100m', '100m'],
    ['0.1', '100m'],
    ['1.5', '1500m'],
    ['1000', '1k'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['12345', '12345'],
    ['1k', '1k'],
    ['1M', '1M'],
    ['1E', '1E'],
    ['1n', '1n'],
    ['0.1n', '1n'],
    ['1u', '1u'],
    ['1Ki', '1Ki'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['1.0Ki', '1Ki'],
    ['0.5Ki', '512'],
    ['1025', '1025'],
    ['2e3', '2e3'],
    ['1.5e3', '1500'],
    ['1e-3', '1e-3'],
    ['100e-3', '100e-3'],
    ['-1', '-1'],
    ['-1.5', '-1500m'],
    ['-1Gi', '-1Gi'],
    ['9223372036854775807', '9223372036854775807'],
    ['9223372036854775808', '9223372036854775807'],
    ['99999999999999999999', '9223372036854775807'],
    ['-99999999999999999999', '-9223372036854775807'],
    // upstream's fast path neither caps nor rounds exponent forms that fit its int64 mantissa
    ['1e1000', '10e999'],
    ['1e-1000', '1e-9'],
    ['0.0000000001', '1n'],
    // upstream keeps text it considers canonical, sign and leading zeros included
    ['+1', '+1'],
    ['01', '01'],
  ];
  for (const [input, want] of cases) assert.equal(parseQuantity(input).toString(), want, input);
  assert.equal(JSON.stringify({ cpu: parseQuantity('0.5') }), '{"cpu":"500m"}');
});

test('values: milli and whole units round away from zero', () => {
  const cases: [string, bigint, bigint][] = [
    ['1.5', 1500n, 2n],
    ['100m', 100n, 1n],
    ['1Ki', 1024000n, 1024n],
    ['1n', 1n, 1n],
    ['-1n', -1n, -1n],
    ['-1.5', -1500n, -2n],
    ['2e3', 2000000n, 2000n],
    ['0', 0n, 0n],
  ];
  for (const [input, milli, whole] of cases) {
    const q = parseQuantity(input);
    assert.equal(q.milliValue(), milli, input);
    assert.equal(q.value(), whole, input);
  }
});

test('arithmetic and comparison are exact', () => {
  const sum = parseQuantity('1').add(parseQuantity('500m'));
  assert.equal(sum.toString(), '1500m');
  assert.equal(parseQuantity('1Gi').sub(parseQuantity('512Mi')).toString(), '512Mi');
  assert.equal(parseQuantity('0').add(parseQuantity('1Gi')).toString(), '1Gi');
  assert.equal(parseQuantity('1Gi').cmp(parseQuantity('1073741824')), 0);
  assert.equal(parseQuantity('999m').cmp(parseQuantity('1')), -1);
  assert.equal(parseQuantity('2').cmp(parseQuantity('1999m')), 1);
  assert.equal(quantityFromInt(3n).toString(), '3');
  assert.equal(quantityFromMilli(1500n).toString(), '1500m');
  assert.equal(quantityFromInt(2048n, 'BinarySI').toString(), '2Ki');
  assert.equal(parseQuantity('-1').neg().toString(), '1');
  assert.ok(parseQuantity('0m').isZero());
});

test('syntax errors carry upstream messages', () => {
  assert.equal(
    QUANTITY_FORMAT_ERROR,
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  );
  const format = ['', ' 1', '1 ', 'abc', '1.2.3', '1KB', '1Mib', '1e3.5', '1x'];
  for (const input of format) {
    assert.throws(() => parseQuantity(input), (e: Error) => e instanceof QuantityParseError && e.message === QUANTITY_FORMAT_ERROR, input);
  }
  const suffix = ['--1', '1e', '1k1', '1Ki1', '1iK', '1ee', '1mm'];
  for (const input of suffix) {
    assert.throws(() => parseQuantity(input), (e: Error) => e.message === QUANTITY_SUFFIX_ERROR, input);
  }
});
