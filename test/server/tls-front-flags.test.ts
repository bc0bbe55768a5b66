// A profiled apiserver passes its --cpu-prof flags to its TLS front process,
// values given as separate arguments included (a front started with a bare
// `--cpu-prof-dir` exits, and the apiserver with it).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profilingFlags } from '../../src/server/tls-front.js';

test('the front gets the --cpu-prof flags with their values, and nothing else', () => {
  assert.deepEqual(profilingFlags(['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--import', 'tsx']), ['--cpu-prof', '--cpu-prof-dir', '/tmp/p']);
  assert.deepEqual(profilingFlags(['--cpu-prof', '--cpu-prof-dir=/tmp/p', '--cpu-prof-interval', '200']), ['--cpu-prof', '--cpu-prof-dir=/tmp/p', '--cpu-prof-interval', '200']);
  assert.deepEqual(profilingFlags(['--max-old-space-size=100', '--cpu-prof-dir', '--cpu-prof']), ['--cpu-prof-dir', '--cpu-prof']);
  assert.deepEqual(profilingFlags([]), []);
});
