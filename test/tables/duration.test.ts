import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration } from '../../src/api/tables/duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

test('humanDuration prints ages as kubectl shows them', () => {
  const cases: Array<[number, string]> = [
    [-5 * S, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [5 * S, '5s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [3 * M + 2 * S, '3m2s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [5 * H + 4 * M, '5h4m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [2 * D + 22 * H, '2d22h'],
    [8 * D, '8d'],
    [400 * D, '400d'],
    [730 * D, '2y'],
    [3 * 365 * D + 12 * D, '3y12d'],
    [9 * 365 * D, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
});
