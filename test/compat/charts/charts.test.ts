// The chart pass: every chart of corpus.ts, with Helm v3.16 and kubectl 1.32,
// on apiary and on a real kube-apiserver 1.32.4 in the same run (steps.ts says
// which steps and what of each is compared). Fails on any difference that
// allow-list.json does not accept, and on stale entries. Prints the step count
// and the differing count. scripts/run-tests.mjs builds Helm
// (test/compat/helm) and the reference's binaries and runs this file in a
// pass of its own.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiaryTls } from './apiary.js';
import { startReference, type ReferenceCluster } from '../differential/reference.js';
import type { Target } from '../differential/client.js';
import { compareOutcomes, loadChartAllowList } from './compare.js';
import { corpus } from './corpus.js';
import { runChart, type StepOutcome } from './steps.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const HELM = process.env['HELM_BIN'] ?? resolve(HERE, '../helm/bin/helm');

let apiary: Awaited<ReturnType<typeof startApiaryTls>> | undefined;
let reference: ReferenceCluster | undefined;
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'apiary-charts-'));
  const [a, r] = await Promise.allSettled([startApiaryTls(), startReference()]);
  if (a.status === 'fulfilled') apiary = a.value;
  if (r.status === 'fulfilled') reference = r.value;
  if (a.status === 'rejected') throw a.reason;
  if (r.status === 'rejected') throw r.reason;
});

after(async () => {
  await reference?.stop();
  await apiary?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A kubeconfig for a target's admin token. */
function kubeconfigFor(target: Target, dir: string): string {
  const file = join(dir, 'kubeconfig');
  const tls = target.base.startsWith('https:') ? '    insecure-skip-tls-verify: true\n' : '';
  writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${target.base}\n${tls}contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: ${target.token ?? ''}}\n`,
    { mode: 0o600 },
  );
  return file;
}

async function runSide(name: string, kubeconfig: (dir: string) => string): Promise<StepOutcome[]> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const tools = { helm: HELM, kubeconfig: kubeconfig(dir), workDir: dir, fixturesDir: join(HERE, 'fixtures') };
  const out: StepOutcome[] = [];
  const only = process.env['CHARTS'];
  for (const chart of corpus) {
    if (only !== undefined && !only.split(',').includes(chart.name)) continue;
    out.push(...(await runChart(chart, tools)));
  }
  return out;
}

test('Helm charts and CRD bundles behave on apiary as on kube-apiserver 1.32, except the reviewed allow-list', { timeout: 1_200_000 }, async () => {
  const [a, r] = await Promise.all([runSide('apiary', () => apiary!.kubeconfig), runSide('reference', (dir) => kubeconfigFor(reference!.target, dir))]);
  const dump = process.env['CHARTS_JSON'];
  if (dump !== undefined) writeFileSync(dump, JSON.stringify({ apiary: a, reference: r }, null, 1));
  const report = compareOutcomes(a, r, loadChartAllowList());
  const unlisted = report.differences.filter((d) => d.allowedBy === undefined);
  const lines = [`# charts: ${report.steps} steps a side, ${report.differingSteps} differ (${unlisted.length} differences unlisted)`];
  // what failed on the reference too (the same on apiary unless listed below)
  for (const o of r.filter((x) => x.exit !== 0)) lines.push(`reference exit ${o.exit}${o.errors === '' ? '' : ` (${o.errors})`}: ${o.chart} / ${o.step}`);
  for (const d of report.differences) {
    lines.push(`${d.allowedBy ? 'allowed' : 'UNLISTED'}: ${d.chart} / ${d.step} / ${d.field}\n    apiary:    ${d.apiary}\n    reference: ${d.reference}`);
    if (!d.allowedBy) {
      const ao = a.find((o) => o.chart === d.chart && o.step === d.step)?.output ?? '';
      const ro = r.find((o) => o.chart === d.chart && o.step === d.step)?.output ?? '';
      lines.push(`    apiary output:    ${ao.slice(0, 800).replace(/\n/g, '\n      ')}\n    reference output: ${ro.slice(0, 800).replace(/\n/g, '\n      ')}`);
    }
  }
  console.log(lines.join('\n'));
  assert.equal(unlisted.length, 0, `${unlisted.length} differences are not in test/compat/charts/allow-list.json (see the report above)`);
  if (process.env['CHARTS'] === undefined) assert.deepEqual(report.stale, [], 'allow-list.json has entries that no longer occur: remove them');
});
