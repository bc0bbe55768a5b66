// Upstream's own conformance specs (k8s.io/kubernetes/test/e2e v1.32.4) on
// apiary and on kube-apiserver 1.32.4, in the same run, each with
// kube-controller-manager, kube-scheduler and kwok beside it (cluster.ts).
// The selection: the [Conformance] specs of sig-api-machinery, sig-auth and
// sig-apps, less skip.json's `containers` (specs that need real containers
// on both sides) and, unless CONFORMANCE_NIGHTLY=1, its `nightly` (slow)
// specs. README.md says more.
//
// The pass fails when a spec passes on the reference and does not pass on
// apiary. A spec that fails on both is reported as such ("fails on both"),
// not a regression. As a guard against a broken harness, the reference must
// pass most of what it runs.
//
// Parallelism: CONFORMANCE_PROCS e2e.test processes per side (default 3)
// share the non-[Serial] specs; the [Serial] specs run after them, alone, in
// one process. Both sides run at the same time.
//
// Binaries: scripts/run-tests.mjs builds them with Go ($E2E_TEST_BIN and the
// control-plane pass's); without them the test is skipped with the reason.

import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { missingBinaries, startApiarySide, startReferenceSide, type Side } from './cluster.js';
import { E2E_BINARY, listSpecs, runSpecs, type SpecResult } from './e2e.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const SKIP = JSON.parse(readFileSync(join(HERE, 'skip.json'), 'utf8')) as { containers: Record<string, string>; nightly: Record<string, string>; known: Record<string, string> };
/** Seconds each spec took in a measured run (the longer side): the parallel phase's processes get equal shares. */
const TIMINGS = JSON.parse(readFileSync(join(HERE, 'timings.json'), 'utf8')) as Record<string, number>;
const NIGHTLY = process.env['CONFORMANCE_NIGHTLY'] === '1';
const PROCS = Math.max(1, Number(process.env['CONFORMANCE_PROCS'] ?? '5'));
/** The ginkgo timeouts per process (seconds) of the parallel, the serial and the catch-up phase. */
const PARALLEL_SECONDS = Number(process.env['CONFORMANCE_PARALLEL_SECONDS'] ?? (NIGHTLY ? 2400 : 300));
const SERIAL_SECONDS = Number(process.env['CONFORMANCE_SERIAL_SECONDS'] ?? (NIGHTLY ? 1200 : 120));
const CATCH_UP_SECONDS = Number(process.env['CONFORMANCE_CATCH_UP_SECONDS'] ?? (NIGHTLY ? 1200 : 180));
/** The share of the run a side may leave unreached (a loaded machine) before the pass fails. */
const MAX_UNREACHED = 0.1;

const FOCUS = ['\\[sig-(api-machinery|auth|apps)\\] .*\\[Conformance\\]'];

const missing = [...missingBinaries(), ...(existsSync(E2E_BINARY) ? [] : [E2E_BINARY])];

/** Spreads the specs over n lists of about equal time: the longest first, each to the least loaded list. */
function shards(specs: string[], n: number): string[][] {
  const cost = (s: string): number => (TIMINGS[s] !== undefined && TIMINGS[s]! > 0 ? TIMINGS[s]! : 10);
  const out = Array.from({ length: n }, () => ({ specs: [] as string[], seconds: 0 }));
  for (const spec of [...specs].sort((a, b) => cost(b) - cost(a))) {
    const least = out.reduce((min, o) => (o.seconds < min.seconds ? o : min));
    least.specs.push(spec);
    least.seconds += cost(spec);
  }
  return out.map((o) => o.specs).filter((s) => s.length > 0);
}

async function runSide(side: Side, dir: string, suite: string, parallel: string[], serial: string[]): Promise<Map<string, SpecResult>> {
  mkdirSync(dir, { recursive: true });
  const results = new Map<string, SpecResult>();
  const phase1 = await Promise.all(
    shards(parallel, PROCS).map((specs, i) => runSpecs({ suite, specs, kubeconfig: side.kubeconfig, dir, prefix: `parallel-${i}`, timeoutSeconds: PARALLEL_SECONDS })),
  );
  for (const r of phase1.flat()) results.set(r.name, r);
  for (const r of await runSpecs({ suite, specs: serial, kubeconfig: side.kubeconfig, dir, prefix: 'serial', timeoutSeconds: SERIAL_SECONDS })) results.set(r.name, r);
  // Catch-up: what the time limits cut off (on a loaded machine) gets one more round, in parallel.
  const left = parallel.filter((s) => !completed(results.get(s)));
  const phase3 = await Promise.all(
    shards(left, PROCS).map((specs, i) => runSpecs({ suite, specs, kubeconfig: side.kubeconfig, dir, prefix: `catch-up-${i}`, timeoutSeconds: CATCH_UP_SECONDS })),
  );
  for (const r of phase3.flat()) results.set(r.name, r);
  return results;
}

/** Whether the spec ran to its end (passed or failed), rather than being cut off by a process's time limit or never reached. */
function completed(r: SpecResult | undefined): boolean {
  if (r === undefined || r.state === 'not run' || r.state === 'skipped' || r.state === 'interrupted' || r.state === 'aborted') return false;
  return !(r.state === 'timedout' && (r.message ?? '').startsWith('A suite timeout occurred'));
}

const passed = (r: SpecResult | undefined): boolean => r?.state === 'passed';
const short = (r: SpecResult | undefined): string => (r === undefined ? 'missing' : `${r.state}${r.state === 'passed' ? '' : r.message ? `: ${r.message.split('\n')[0]}` : ''}`);

test('upstream conformance specs pass on apiary wherever they pass on kube-apiserver 1.32.4', { skip: missing.length > 0 ? `not built: ${missing.join(', ')} (scripts/run-tests.mjs builds them with Go)` : false, timeout: 30 * 60_000 }, async (t) => {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'apiary-conformance-'));
  const sides: Side[] = [];
  // CONFORMANCE_KEEP=1 keeps the reports and logs (whatever the outcome).
  const keep = process.env['CONFORMANCE_KEEP'] === '1';
  t.after(async () => {
    await Promise.all(sides.map((s) => s.stop()));
    if (!keep) rmSync(dir, { recursive: true, force: true });
  });

  const selection = await listSpecs(dir, FOCUS, []);
  const skipped = (name: string): string | undefined =>
    SKIP.containers[name] ?? (NIGHTLY ? undefined : (SKIP.nightly[name] ?? (name.includes('[Slow]') ? 'marked [Slow] upstream' : undefined)));
  const chosen = selection.specs.filter((s) => skipped(s) === undefined);
  // Names in skip.json that match no spec are stale: say so rather than skip nothing silently.
  const stale = [...Object.keys(SKIP.containers), ...Object.keys(SKIP.nightly), ...Object.keys(SKIP.known)].filter((n) => !selection.specs.includes(n));
  assert.deepEqual(stale, [], 'skip.json names specs the selection does not hold');
  const serial = chosen.filter((s) => s.includes('[Serial]'));
  const parallel = chosen.filter((s) => !s.includes('[Serial]'));
  t.diagnostic(`${selection.specs.length} specs selected, ${chosen.length} run (${parallel.length} in ${PROCS} processes, ${serial.length} serial)${NIGHTLY ? ', nightly mode' : ''}`);

  const [apiarySide, referenceSide] = await Promise.all([startApiarySide(join(dir, 'apiary')), startReferenceSide(join(dir, 'reference'))]);
  sides.push(apiarySide, referenceSide);
  t.diagnostic(`clusters up after ${Math.round((Date.now() - started) / 1000)} s`);

  const [onApiary, onReference] = await Promise.all([
    runSide(apiarySide, join(dir, 'apiary', 'e2e'), selection.suite, parallel, serial),
    runSide(referenceSide, join(dir, 'reference', 'e2e'), selection.suite, parallel, serial),
  ]);
  for (const side of sides) {
    const early = side.exitedEarly();
    if (early !== undefined) t.diagnostic(`${side.name}: ${early}`);
  }

  // Specs either side never finished within the time limits: reported, not compared (a bounded share, below).
  const unreached = chosen.filter((s) => !completed(onApiary.get(s)) || !completed(onReference.get(s)));
  const failsHere = chosen.filter((s) => passed(onReference.get(s)) && completed(onApiary.get(s)) && !passed(onApiary.get(s)));
  // skip.json's `known`: divergences kept on purpose, each with its reason; they run, and are reported, but fail nothing.
  const regressions = failsHere.filter((s) => SKIP.known[s] === undefined);
  const known = failsHere.filter((s) => SKIP.known[s] !== undefined);
  const both = chosen.filter((s) => completed(onReference.get(s)) && completed(onApiary.get(s)) && !passed(onReference.get(s)) && !passed(onApiary.get(s)));
  const apiaryOnly = chosen.filter((s) => passed(onApiary.get(s)) && !passed(onReference.get(s)));
  const count = (m: Map<string, SpecResult>): number => chosen.filter((s) => passed(m.get(s))).length;
  const summary = {
    seconds: Math.round((Date.now() - started) / 1000),
    selected: selection.specs.length,
    run: chosen.length,
    passedOnApiary: count(onApiary),
    passedOnReference: count(onReference),
    regressions: regressions.map((s) => ({ spec: s, apiary: short(onApiary.get(s)) })),
    known: known.map((s) => ({ spec: s, apiary: short(onApiary.get(s)), reason: SKIP.known[s] })),
    unreached: unreached.map((s) => ({ spec: s, apiary: short(onApiary.get(s)), reference: short(onReference.get(s)) })),
    failsOnBoth: both.map((s) => ({ spec: s, apiary: short(onApiary.get(s)), reference: short(onReference.get(s)) })),
    passesOnlyOnApiary: apiaryOnly.map((s) => ({ spec: s, reference: short(onReference.get(s)) })),
    durations: chosen.map((s) => ({ spec: s, apiary: onApiary.get(s)?.seconds, reference: onReference.get(s)?.seconds })),
  };
  const summaryFile = process.env['CONFORMANCE_SUMMARY'];
  if (summaryFile !== undefined) writeFileSync(summaryFile, JSON.stringify(summary, null, 2));
  t.diagnostic(`passed: apiary ${summary.passedOnApiary}/${chosen.length}, kube-apiserver ${summary.passedOnReference}/${chosen.length}, in ${summary.seconds} s`);
  for (const s of unreached) t.diagnostic(`not finished in time: ${s}\n    apiary: ${short(onApiary.get(s))}\n    reference: ${short(onReference.get(s))}`);
  for (const s of known) t.diagnostic(`known divergence (skip.json): ${s}\n    ${SKIP.known[s]}`);
  for (const s of Object.keys(SKIP.known)) if (passed(onApiary.get(s))) t.diagnostic(`skip.json's known divergence now passes on apiary, remove it: ${s}`);
  for (const s of both) t.diagnostic(`fails on both: ${s}\n    apiary: ${short(onApiary.get(s))}\n    reference: ${short(onReference.get(s))}`);
  for (const s of apiaryOnly) t.diagnostic(`passes only on apiary: ${s} (reference: ${short(onReference.get(s))})`);

  const tooSlow = unreached.length > chosen.length * MAX_UNREACHED;
  if (keep) t.diagnostic(`reports and logs kept in ${dir}`);
  assert.ok(summary.passedOnReference >= chosen.length / 2, `the reference passed only ${summary.passedOnReference} of ${chosen.length} specs: the harness is broken`);
  assert.ok(!tooSlow, `${unreached.length} of ${chosen.length} specs did not finish within the time limits (more than ${MAX_UNREACHED * 100}%)`);
  assert.deepEqual(
    regressions.map((s) => `${s}\n    ${onApiary.get(s)?.message ?? short(onApiary.get(s))}`),
    [],
    'specs that pass on kube-apiserver 1.32.4 and fail on apiary',
  );
});
