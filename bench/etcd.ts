// The foundation benchmark on etcd, with raw etcd as the ceiling.
//
// Starts a throwaway single-member etcd (test/helpers/etcd.ts) and `apiary
// serve --storage etcd` on it in a child process, then measures, interleaved
// in the same run and at the same concurrency:
//   - apiary on etcd: create, get, update and list of 1 KiB configmaps over
//     HTTP (bench/lib.ts's closed-loop load generator), as bench/load.ts does;
//   - raw etcd from this process (grpc-js, etcd's own protos, one channel):
//     Put of a value the size apiary stores (fresh keys), Range of one key,
//     Range of a 100-key prefix (the list phase's namespace).
// apiary's create is reported as a ratio of raw puts (target ≥ 50 %), get of
// raw single-key ranges, update of raw puts, list of raw prefix ranges. The
// better of the rounds is kept for each (the machine is shared, single runs
// are noisy). Prints a markdown table, then where the CPU went in those best
// rounds: each process's CPU time (/proc) over the phase's wall time, in % of
// one core, for the load generator (this process), apiary and etcd.
//
// Before the rounds, `--warmup` creates through apiary and as many raw puts
// (not measured), so that neither side is timed while its code is still cold.
//
// Usage: node --import tsx bench/etcd.ts [--concurrency 32] [--requests 3000] [--rounds 2] [--warmup 1000]

import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import { startEtcd } from '../test/helpers/etcd.js';
import { EtcdBackend } from '../src/storage/etcd.js';
import { startApiary, runLoad, fmt, type LoadResult, type RequestSpec } from './lib.js';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '32' },
    requests: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1000' },
  },
});
const concurrency = Number(args.concurrency);
const perRound = Number(args.requests);
const rounds = Number(args.rounds);
const warmup = Number(args.warmup);

const payload = 'x'.repeat(1024);
const configMap = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });

interface Rate {
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  cpu?: CpuSplit;
}

/** Runs op(0..total-1) with `concurrency` in flight; ops/s and latency percentiles. */
async function closedLoop(total: number, op: (i: number) => Promise<unknown>): Promise<Rate> {
  let next = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        try {
          await op(i);
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: total / seconds, p50ms: at(0.5), p99ms: at(0.99), errors };
}

const better = (a: Rate | undefined, b: Rate): Rate => (a === undefined || b.rps > a.rps ? b : a);
const fromLoad = (r: LoadResult): Rate => ({ rps: r.rps, p50ms: r.p50ms, p99ms: r.p99ms, errors: r.errors });

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The pid of this process's child running `command` (etcd is started by the test helper, which does not expose it). */
function childPid(command: string): number | undefined {
  const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  return children.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command;
    } catch {
      return false;
    }
  });
}

/** % of one core each process used while `run` ran. */
interface CpuSplit {
  load: number;
  apiary: number;
  etcd: number;
}

async function main(): Promise<void> {
  const etcd = await startEtcd();
  const endpoint = etcd.endpoints[0]!;
  const apiary = await startApiary({ storage: 'etcd', extraArgs: ['--etcd-servers', endpoint, '--etcd-prefix', '/registry'] });
  // The raw client: grpc-js on the same protos EtcdBackend compiles (borrowed from a connected backend).
  const protoSource = await EtcdBackend.connect({ endpoints: [endpoint] });
  const { put, range } = protoSource.proto;
  const channel = new grpc.Client(new URL(endpoint).host, grpc.credentials.createInsecure());
  const unary = (method: typeof put, request: object): Promise<unknown> =>
    new Promise((resolve, reject) =>
      channel.makeUnaryRequest(method.path, method.serialize, method.deserialize, request, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
  const etcdPid = childPid('etcd');
  const apiaryPid = apiary.process.pid!;
  /** Runs one phase and records the CPU split over it. */
  const measured = async (phase: () => Promise<Rate>): Promise<Rate> => {
    const before = { load: process.cpuUsage(), apiary: cpuSeconds(apiaryPid), etcd: etcdPid === undefined ? NaN : cpuSeconds(etcdPid) };
    const t0 = performance.now();
    const rate = await phase();
    const wall = (performance.now() - t0) / 1000;
    const load = process.cpuUsage(before.load);
    rate.cpu = {
      load: (100 * (load.user + load.system)) / 1e6 / wall,
      apiary: (100 * (cpuSeconds(apiaryPid) - before.apiary)) / wall,
      etcd: etcdPid === undefined ? NaN : (100 * (cpuSeconds(etcdPid) - before.etcd)) / wall,
    };
    return rate;
  };
  const prefixEnd = (p: string): Buffer => Buffer.from(p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1));

  try {
    const origin = apiary.origin;
    const post = async (path: string, body: string): Promise<string> => {
      const res = await fetch(origin + path, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      const text = await res.text();
      if (res.status !== 201 && res.status !== 409) throw new Error(`${path}: ${res.status} ${text}`);
      return text;
    };
    await post('/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }));
    await post('/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'listed' } }));
    for (let i = 0; i < 100; i++) await post('/api/v1/namespaces/listed/configmaps', configMap(`cm-${i}`));
    // What apiary stores for one configmap: the raw puts write values of that size.
    const stored = await post('/api/v1/namespaces/bench/configmaps', configMap('seed'));
    const value = Buffer.from(JSON.stringify(JSON.parse(stored)));
    for (let i = 0; i < 100; i++) await unary(put, { key: Buffer.from(`/raw/listed/cm-${i}`), value });
    await unary(put, { key: Buffer.from('/raw/one'), value });

    const best: Record<string, { apiary?: Rate; raw?: Rate }> = { create: {}, get: {}, update: {}, list: {} };
    const http = async (total: number, spec: (i: number) => RequestSpec): Promise<Rate> =>
      fromLoad(await runLoad(origin, { concurrency, total, maxSeconds: 120 }, spec));
    const listTotal = Math.max(200, perRound / 10);

    if (warmup > 0) {
      await closedLoop(warmup, (i) => unary(put, { key: Buffer.from(`/raw/warmup/${i}`), value }));
      await http(warmup, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`warmup-${i}`) }));
    }
    for (let r = 0; r < rounds; r++) {
      best.create!.raw = better(best.create!.raw, await measured(() => closedLoop(perRound, (i) => unary(put, { key: Buffer.from(`/raw/put/${r}/${i}`), value }))));
      best.create!.apiary = better(
        best.create!.apiary,
        await measured(() => http(perRound, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`c-${r}-${i}`) }))),
      );
      best.get!.raw = better(best.get!.raw, await measured(() => closedLoop(perRound * 2, () => unary(range, { key: Buffer.from('/raw/one') }))));
      best.get!.apiary = better(
        best.get!.apiary,
        await measured(() => http(perRound * 2, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/c-${r}-${i % perRound}` }))),
      );
      best.update!.raw = better(best.update!.raw, await measured(() => closedLoop(perRound, (i) => unary(put, { key: Buffer.from(`/raw/put/${r}/${i}`), value }))));
      best.update!.apiary = better(
        best.update!.apiary,
        await measured(() => http(perRound, (i) => ({ method: 'PUT', path: `/api/v1/namespaces/bench/configmaps/c-${r}-${i}`, body: configMap(`c-${r}-${i}`) }))),
      );
      best.list!.raw = better(
        best.list!.raw,
        await measured(() => closedLoop(listTotal, () => unary(range, { key: Buffer.from('/raw/listed/'), range_end: prefixEnd('/raw/listed/') }))),
      );
      best.list!.apiary = better(best.list!.apiary, await measured(() => http(listTotal, () => ({ method: 'GET', path: '/api/v1/namespaces/listed/configmaps' }))));
    }

    const ceilingName: Record<string, string> = {
      create: 'Put',
      get: 'Range (1 key)',
      update: 'Put',
      list: 'Range (100 keys)',
    };
    console.log(`apiary on etcd vs raw etcd: single member on 127.0.0.1, concurrency ${concurrency}, ${perRound} requests/round, best of ${rounds} rounds, values ${value.length} B\n`);
    console.log('| operation | apiary on etcd req/s | raw etcd | raw ops/s | ratio | apiary p50 ms | apiary p99 ms | raw p50 ms | errors |');
    console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
    for (const [name, { apiary: a, raw }] of Object.entries(best)) {
      console.log(
        `| ${name} | ${fmt(a!.rps)} | ${ceilingName[name]} | ${fmt(raw!.rps)} | ${fmt((100 * a!.rps) / raw!.rps, 1)}% | ${fmt(a!.p50ms, 2)} | ${fmt(a!.p99ms, 2)} | ${fmt(raw!.p50ms, 2)} | ${a!.errors + raw!.errors} |`,
      );
    }
    const pct = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : `${fmt(n)}%`);
    console.log('\nCPU in the best rounds, % of one core over the phase (this machine has ' + String(availableParallelism()) + ' cores):\n');
    console.log('| phase | load generator | apiary | etcd | total |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, { apiary: a, raw }] of Object.entries(best)) {
      for (const [label, rate] of [[`apiary ${name}`, a], [`raw ${ceilingName[name]} (${name})`, raw]] as const) {
        const cpu = rate?.cpu;
        const total = cpu === undefined ? undefined : cpu.load + cpu.apiary + (Number.isNaN(cpu.etcd) ? 0 : cpu.etcd);
        console.log(`| ${label} | ${pct(cpu?.load)} | ${pct(cpu?.apiary)} | ${pct(cpu?.etcd)} | ${pct(total)} |`);
      }
    }
    const ratio = best.create!.apiary!.rps / best.create!.raw!.rps;
    console.log(`\n${ratio >= 0.5 ? 'MET' : 'MISSED'}: apiary create ≥ 50% of raw etcd puts at concurrency ${concurrency} (${fmt(100 * ratio, 1)}%)`);
  } finally {
    channel.close();
    await protoSource.close();
    await apiary.stop();
    await etcd.stop();
  }
}

await main();
