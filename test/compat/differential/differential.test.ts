// The differential pass: every case in ./cases/ runs on apiary and on a real
// kube-apiserver 1.32.4 (on etcd 3.5.16, with kube-controller-manager), and
// what a client sees must be the same, except for the differences listed in
// allow-list.json with a reason. Prints `N same of M` and every difference.
// scripts/run-tests.mjs builds the binaries and runs this file in a pass of
// its own (it is left out of the first pass).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReport, loadAllowList } from './allow-list.js';
import { startApiary } from './apiary.js';
import { startReference, type ReferenceCluster } from './reference.js';
import { loadCases, runCases } from './runner.js';

let apiary: Awaited<ReturnType<typeof startApiary>> | undefined;
let reference: ReferenceCluster | undefined;

before(async () => {
  const [a, r] = await Promise.allSettled([startApiary(), startReference()]);
  if (a.status === 'fulfilled') apiary = a.value;
  if (r.status === 'fulfilled') reference = r.value;
  if (a.status === 'rejected') throw a.reason;
  if (r.status === 'rejected') throw r.reason;
});

after(async () => {
  await reference?.stop();
  await apiary?.stop();
});

test('apiary answers every differential case as kube-apiserver 1.32 does, except the reviewed allow-list', { timeout: 480_000 }, async () => {
  const cases = await loadCases();
  let results: Awaited<ReturnType<typeof runCases>>;
  try {
    results = await runCases(cases, apiary!.target, reference!.target);
  } catch (err) {
    const warnings = apiary!.warnings();
    if (warnings.length > 0) console.log(`apiary's warnings (${warnings.length}):\n${warnings.join('\n')}`);
    console.log(`apiary's watch caches:\n${await apiary!.diagnose()}`);
    throw err;
  }
  const report = buildReport(results, loadAllowList());
  console.log(report.text);
  assert.equal(report.unlisted.length, 0, `${report.unlisted.length} differences are not in allow-list.json (see the report above)`);
  assert.deepEqual(report.stale, [], 'allow-list.json has entries that no longer occur: remove them');
  assert.deepEqual(report.overCeiling, [], 'allow-list.json has broad entries covering more steps than their maxSteps (see the report above)');
});
