// Where a create's time goes on etcd: is apiary on etcd bound by its CPU or by
// its latency at wrk's fixed concurrency?
//
// Starts etcd 3.5 (the differential pass builds it) and `apiary serve` on it
// (plain HTTP, no authentication: the storage path only), then per
// concurrency: wrk creates (1 KiB ConfigMaps) for --seconds after a warm-up,
// reading apiary's and etcd's /metrics around the measured burst. Prints the
// rate, the mean time a create spends in wrk's loop (Little's law:
// concurrency ÷ rate), in apiary's handler (apiserver_request_duration_seconds),
// in its storage call (etcd_request_duration_seconds, the round trip through
// the etcd client thread), etcd's WAL fsync and proposals per fsync, and the
// CPU of apiary's main thread and of etcd per create. The ceiling, in the same
// run: the same creates from an EtcdBackend in this process at the same
// concurrency with nothing else running (what etcd answers when only its
// client loads the machine).
//
//   node --import tsx bench/etcd-create-latency.ts [--concurrency 16,32,64] [--seconds 6]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEtcd } from '../test/helpers/etcd.js';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { REFERENCE_BINARIES } from '../test/compat/differential/reference.js';
import { EtcdBackend } from '../src/storage/etcd/backend.js';
import { cpuSeconds, fmt, mainThreadSeconds, pidWith } from './lib.js';
import { requireWrk, runWrk } from './wrk.js';

const { values } = parseArgs({ options: { concurrency: { type: 'string', default: '16,32,64' }, seconds: { type: 'string', default: '6' } } });
const levels = values.concurrency!.split(',').map(Number);
const seconds = Number(values.seconds);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const payload = 'x'.repeat(1000);

type Metrics = Map<string, number>;
async function scrape(url: string): Promise<Metrics> {
  const m: Metrics = new Map();
  for (const line of (await (await fetch(url)).text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    m.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return m;
}
/** Mean seconds of a histogram's series matching `match`, between two scrapes. */
function meanOf(before: Metrics, after: Metrics, name: string, match: (series: string) => boolean): number {
  let sum = 0;
  let count = 0;
  for (const [series, v] of after) {
    if (!match(series)) continue;
    if (series.startsWith(`${name}_sum`)) sum += v - (before.get(series) ?? 0);
    else if (series.startsWith(`${name}_count`)) count += v - (before.get(series) ?? 0);
  }
  return sum / count;
}
const delta = (before: Metrics, after: Metrics, series: string): number => (after.get(series) ?? 0) - (before.get(series) ?? 0);
const ms = (s: number): string => fmt(s * 1000, 2);

requireWrk();
execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json')], { stdio: 'inherit' });
const etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
const etcdPid = pidWith(etcd.dataDirs[0]!) ?? NaN;
const etcdMetrics = `${etcd.endpoints[0]}/metrics`;
const dataDir = mkdtempSync(join(tmpdir(), 'apiary-etcd-latency-'));
const proc = spawnNode([join(REPO, 'dist/cli/main.js'), 'serve', '--insecure-serving', '--port', '0', '--data-dir', dataDir, '--storage', 'etcd', '--log-level', 'warn', '--etcd-servers', etcd.endpoints[0]!, '--etcd-prefix', '/apiary'], { stderr: 'inherit' });
try {
  const origin = await proc.url;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${origin}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (i === 100) throw new Error('apiary did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  const ns = await fetch(`${origin}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench' } }) });
  if (ns.status !== 201) throw new Error(`creating the namespace answered ${ns.status}`);
  const pid = proc.child.pid!;
  const creates = (name: string, concurrency: number, s: number) =>
    runWrk(origin, { concurrency, seconds: s }, {
      method: 'POST',
      path: '/api/v1/namespaces/bench/configmaps',
      contentType: 'application/json',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-{i}` }, data: { payload } }),
    });
  for (let i = 0; i < 2; i++) await creates(`warm${i}`, 32, 3);

  console.log(`creates of 1 KiB ConfigMaps on etcd 3.5, plain HTTP, ${seconds} s per line; times are means\n`);
  console.log('| concurrency | creates/s | in wrk\'s loop | in apiary\'s handler | storage call | etcd WAL fsync | proposals per fsync | main thread µs/create | etcd µs/create | ceiling creates/s | ceiling call |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const direct = await EtcdBackend.connect({ endpoints: etcd.endpoints });
  try {
    for (const concurrency of levels) {
      const [a0, e0] = await Promise.all([scrape(`${origin}/metrics`), scrape(etcdMetrics)]);
      const main0 = mainThreadSeconds(pid);
      const etcd0 = cpuSeconds(etcdPid);
      const r = await creates(`c${concurrency}`, concurrency, seconds);
      const main1 = mainThreadSeconds(pid);
      const etcd1 = cpuSeconds(etcdPid);
      const [a1, e1] = await Promise.all([scrape(`${origin}/metrics`), scrape(etcdMetrics)]);
      const handler = meanOf(a0, a1, 'apiserver_request_duration_seconds', (x) => x.includes('verb="POST"') && x.includes('resource="configmaps"'));
      const storage = meanOf(a0, a1, 'etcd_request_duration_seconds', (x) => x.includes('operation="create"'));
      const fsync = meanOf(e0, e1, 'etcd_disk_wal_fsync_duration_seconds', () => true);
      const perFsync = delta(e0, e1, 'etcd_server_proposals_committed_total') / delta(e0, e1, 'etcd_disk_wal_fsync_duration_seconds_count');
      // The ceiling: the same creates straight from an etcd client, apiary idle.
      let next = 0;
      const total = Math.max(2000, Math.round(r.rps * 2));
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < total) await direct.create(`/ceiling/c${concurrency}/${next++}`, JSON.stringify({ data: { payload } }));
      }));
      const ceilingSeconds = (performance.now() - started) / 1000;
      console.log(
        `| ${concurrency} | ${fmt(r.rps)} | ${fmt((concurrency / r.rps) * 1000, 2)} ms | ${ms(handler)} ms | ${ms(storage)} ms | ${ms(fsync)} ms | ${fmt(perFsync, 1)} | ${fmt(((main1 - main0) / r.requests) * 1e6)} | ${fmt(((etcd1 - etcd0) / r.requests) * 1e6)} | ${fmt(total / ceilingSeconds)} | ${fmt((ceilingSeconds / total) * concurrency * 1000, 2)} ms |`,
      );
    }
  } finally {
    await direct.close();
  }
} finally {
  await proc.stop('SIGTERM');
  await etcd.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
