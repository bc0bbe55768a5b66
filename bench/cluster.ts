// A Deployment of REPLICAS (1,000) replicas created, scheduled and Running on
// simulated nodes, against two API servers in one run: `apiary serve`
// (embedded SQLite, its own controllers) and kube-apiserver 1.32 on etcd 3.5
// (with a kube-controller-manager running namespace, service account and
// garbage collection, as in the differential test). Around each, the same
// upstream programs (test/compat/controlplane/cluster.ts): kube-controller-manager
// 1.32 with the workload controllers, kube-scheduler 1.32 and kwok, with the
// same client rates and the same scheduler profile on both sides.
//
// Measured per server: time from the Deployment's POST to every replica
// Running and ready (the Deployment's status.readyReplicas), the API
// server's CPU seconds over that time (for the reference: kube-apiserver and
// etcd, also shown apart), and resident memory at the end.
//
//   node scripts/run-tests.mjs controlplane          # builds the binaries once
//   node --import tsx bench/cluster.ts
//   REPLICAS=300 NODES=3 node --import tsx bench/cluster.ts
//
// Notes: apiary serves plain HTTP here (bench/security.ts measures TLS and
// authentication); the reference serves HTTPS with a token. The scheduler
// runs without its volume plugins on both sides (apiary may not serve the
// storage API they watch).

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cpuSeconds, fmt, readRss, startApiary } from './lib.js';
import { kwokNode, missingBinaries, startUpstreamControllers } from '../test/compat/controlplane/cluster.js';
import { referenceBinariesMissing, startReference } from '../test/compat/differential/reference.js';

const REPLICAS = Number(process.env.REPLICAS ?? 1000);
const NODES = Number(process.env.NODES ?? 10);
const PODS_PER_NODE = Math.ceil((REPLICAS * 1.2) / NODES);
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 300_000);
const CLIENT_QPS = 500;


/** The pid of the process whose command line contains `needle` (etcd, by its data directory). */
function pidWith(needle: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function kubectl(kubeconfig: string, args: string[], stdin?: string): string {
  const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { input: stdin, encoding: 'utf8', env: { ...process.env, KUBECACHEDIR: `${kubeconfig}.cache` } });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function schedulerConfig(dir: string, kubeconfig: string): string {
  const path = join(dir, 'scheduler.json');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      clientConnection: { kubeconfig, qps: CLIENT_QPS, burst: CLIENT_QPS * 2 },
      leaderElection: { leaderElect: false },
      profiles: [{ schedulerName: 'default-scheduler', plugins: { multiPoint: { disabled: ['VolumeBinding', 'VolumeRestrictions', 'VolumeZone', 'NodeVolumeLimits'].map((name) => ({ name })) } } }],
    }),
  );
  return path;
}

interface Result {
  name: string;
  seconds: number;
  cpu: Record<string, number>;
  rssMiB: Record<string, number>;
}

async function runOn(name: string, kubeconfig: string, pids: Record<string, number>): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), `apiary-cluster-bench-${name}-`));
  const upstream = startUpstreamControllers(kubeconfig, dir, { schedulerConfig: schedulerConfig(dir, kubeconfig), kcmQps: CLIENT_QPS, verbosity: 0 });
  try {
    for (let i = 0; i < NODES; i++) kubectl(kubeconfig, ['apply', '-f', '-'], JSON.stringify(kwokNode(`kwok-node-${i}`, PODS_PER_NODE)));
    kubectl(kubeconfig, ['wait', '--for=condition=Ready', 'node', '-l', 'type=kwok', '--timeout=60s']);
    kubectl(kubeconfig, ['create', 'namespace', 'bench']);
    // Let the programs' informers settle before the clock starts.
    await new Promise((r) => setTimeout(r, 2000));
    const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const t0 = performance.now();
    console.error(`# ${name}: ${NODES} nodes Ready; creating the Deployment`);
    kubectl(kubeconfig, ['-n', 'bench', 'create', 'deployment', 'big', '--image=registry.example/app:1', `--replicas=${REPLICAS}`]);
    for (;;) {
      const early = upstream.exitedEarly();
      if (early !== undefined) throw new Error(early);
      const ready = Number(kubectl(kubeconfig, ['-n', 'bench', 'get', 'deployment', 'big', '-o', 'jsonpath={.status.readyReplicas}']) || 0);
      if (ready >= REPLICAS) break;
      if (performance.now() - t0 > TIMEOUT_MS) {
        const logs = await upstream.stop();
        throw new Error(`${name}: ${ready} of ${REPLICAS} ready after ${TIMEOUT_MS} ms\n${Object.entries(logs).map(([k, v]) => `--- ${k}\n${v.slice(-3000)}`).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid) - cpu0[k]!]));
    const rssMiB = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, readRss(pid) / (1 << 20)]));
    const running = kubectl(kubeconfig, ['get', 'pods', '-n', 'bench', '--field-selector=status.phase=Running', '-o', 'name']).trim().split('\n').length;
    if (running < REPLICAS) throw new Error(`${name}: ${running} pods Running, expected ${REPLICAS}`);
    return { name, seconds, cpu, rssMiB };
  } finally {
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const missing = [...missingBinaries(), ...referenceBinariesMissing()];
  if (missing.length > 0) throw new Error(`build the binaries first (node scripts/run-tests.mjs controlplane; differential): ${missing.join(', ')}`);
  const results: Result[] = [];

  const apiary = await startApiary();
  try {
    results.push(await runOn('apiary (sqlite)', join(apiary.dataDir, 'kubeconfig'), { apiary: apiary.process.pid! }));
  } finally {
    await apiary.stop();
  }

  const reference = await startReference();
  try {
    const etcdPid = pidWith(reference.etcdDataDirs![0]!);
    const pids: Record<string, number> = { 'kube-apiserver': reference.apiserverPid! };
    if (etcdPid !== undefined) pids['etcd'] = etcdPid;
    results.push(await runOn('kube-apiserver 1.32 + etcd 3.5', reference.kubeconfig!, pids));
  } finally {
    await reference.stop();
  }

  console.log(`\nDeployment of ${REPLICAS} replicas on ${NODES} kwok nodes: POST → all Running and ready\n`);
  console.log('| server | time to all Running | server CPU (s) | server RSS at the end (MiB) |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of results) {
    const cpuTotal = Object.values(r.cpu).reduce((a, b) => a + b, 0);
    const rssTotal = Object.values(r.rssMiB).reduce((a, b) => a + b, 0);
    const parts = (o: Record<string, number>, d: number): string => (Object.keys(o).length > 1 ? ` (${Object.entries(o).map(([k, v]) => `${k} ${fmt(v, d)}`).join(', ')})` : '');
    console.log(`| ${r.name} | ${fmt(r.seconds, 1)} s | ${fmt(cpuTotal, 1)}${parts(r.cpu, 1)} | ${fmt(rssTotal)}${parts(r.rssMiB, 0)} |`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
