// The foundation benchmark on etcd, with raw etcd as the ceiling.
//
// Starts a throwaway single-member etcd (test/helpers/etcd.ts) and `apiary
// serve --storage etcd` on it in a child process, then measures, in the same
// run and at the same concurrency:
//   - apiary on etcd: create, get, update and list of 1 KiB configmaps over
//     HTTP, driven by wrk for --seconds per phase (bench/wrk.ts says why wrk
//     and not the Node load generator, which this run also measures once
//     per round on creates, for comparison);
//   - the ceiling, raw etcd from this process through the client apiary uses
//     (grpc-js with apiary's channel options, etcd's own protos, one channel):
//     Put of a value the size apiary stores (fresh keys), Range of one key,
//     Range of a 100-key prefix (the list phase's namespace), --requests each.
// apiary's create is reported as a ratio of raw puts (target ≥ 50 %), get of
// raw single-key ranges, update of raw puts, list of raw prefix ranges.
//
// Method (the machine is shared and noisy, and V8 takes thousands of requests
// to compile the hot paths):
//   - a declared warm-up first, not measured: --warmup creates through apiary
//     in one-second slices (their rate is printed per slice, so the JIT curve
//     is visible), gets, updates and lists, and raw calls of each kind;
//   - then --rounds rounds; in each, every operation runs apiary and raw back
//     to back, in alternating order, and the round's ratio is apiary / raw;
//   - the table gives medians over the rounds: of the ratios, of the rates and
//     of the latencies. The per-round create ratios are printed too.
// Also per round, for context: the create transaction apiary sends (a put
// guarded by create_revision = 0, as kube-apiserver's) from the same raw loop,
// which costs etcd more CPU than a plain Put; and Put through a bare HTTP/2 gRPC loop
// (bench/bare-grpc.ts), what etcd takes when the client costs little. On a
// small machine the grpc-js ceiling is bound by the client's CPU, not etcd's.
// Last, where the CPU went (median of rounds): each process's CPU time
// (/proc) over the phase's wall time, in % of one core, for the load
// generator (wrk, or this process for the raw loops), apiary and etcd.
//
// The etcd is `etcd` on PATH (Debian's package: 3.4) or $ETCD_BIN; the
// header names the version that answered. test/compat/etcd-3.5 builds etcd
// 3.5, where a create's guarded put costs etcd about what a plain put does
// (its main.go says why 3.4 differs).
//
// Needs wrk (apt-get install -y wrk).
// Usage: [ETCD_BIN=PATH] node --import tsx bench/etcd.ts [--concurrency 32] [--seconds 2] [--requests 3000] [--rounds 5] [--warmup 10000]

import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import * as http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { startEtcd } from '../test/helpers/etcd.js';
import { EtcdBackend } from '../src/storage/etcd.js';
import { ETCD_CHANNEL_OPTIONS } from '../src/storage/etcd/backend.js';
import { EQUAL, TARGET_CREATE } from '../src/storage/etcd/protocol.js';
import { bareUnary } from './bare-grpc.js';
import { cpuSeconds, median, startApiary, runLoad, fmt, type LoadResult } from './lib.js';
import { requireWrk, runWrk, type WrkRequest } from './wrk.js';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '32' },
    requests: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '10000' },
  },
});

const concurrency = Number(args.concurrency);
const perRound = Number(args.requests);
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const warmup = Number(args.warmup);

const payload = 'x'.repeat(1024);
const configMap = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });

interface Rate {
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  /** How many requests the phase sent (wrk runs for a time, not a count). */
  requests?: number;
  /** CPU seconds of a load generator in another process (wrk), counted as the load generator's. */
  generatorCpuSeconds?: number;
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

const fromLoad = (r: LoadResult): Rate => ({ rps: r.rps, p50ms: r.p50ms, p99ms: r.p99ms, errors: r.errors, requests: r.requests });


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

/** The medians over rounds of one side of one operation. */
function medianRate(rates: Rate[]): Rate {
  const of = (pick: (r: Rate) => number): number => median(rates.map(pick));
  const cpu = (pick: (c: CpuSplit) => number): number => median(rates.map((r) => (r.cpu === undefined ? NaN : pick(r.cpu))));
  return {
    rps: of((r) => r.rps),
    p50ms: of((r) => r.p50ms),
    p99ms: of((r) => r.p99ms),
    errors: rates.reduce((sum, r) => sum + r.errors, 0),
    cpu: { load: cpu((c) => c.load), apiary: cpu((c) => c.apiary), etcd: cpu((c) => c.etcd) },
  };
}

async function main(): Promise<void> {
  requireWrk();
  const etcd = await startEtcd();
  const endpoint = etcd.endpoints[0]!;
  const etcdVersion = ((await (await fetch(`${endpoint}/version`)).json()) as { etcdserver?: string }).etcdserver ?? 'unknown';
  const apiary = await startApiary({ storage: 'etcd', extraArgs: ['--etcd-servers', endpoint, '--etcd-prefix', '/registry'] });
  // The ceiling's client: grpc-js with apiary's channel options, on the same
  // protos EtcdBackend compiles (borrowed from a connected backend).
  const protoSource = await EtcdBackend.connect({ endpoints: [endpoint] });
  const { put, range, txn } = protoSource.proto;
  const channel = new grpc.Client(new URL(endpoint).host, grpc.credentials.createInsecure(), ETCD_CHANNEL_OPTIONS);
  const unary = (method: typeof put, request: object): Promise<unknown> =>
    new Promise((resolve, reject) =>
      channel.makeUnaryRequest(method.path, method.serialize, method.deserialize, request, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
  // The context reference: etcd through a bare HTTP/2 client.
  const bareSession = http2.connect(endpoint);
  const etcdPid = childPid(basename(process.env.ETCD_BIN ?? 'etcd').slice(0, 15)); // comm is the binary's name, cut to 15 bytes
  const apiaryPid = apiary.process.pid!;
  /** Runs one phase and records the CPU split over it. */
  const measured = async (phase: () => Promise<Rate>): Promise<Rate> => {
    const before = { load: process.cpuUsage(), apiary: cpuSeconds(apiaryPid), etcd: etcdPid === undefined ? NaN : cpuSeconds(etcdPid) };
    const t0 = performance.now();
    const rate = await phase();
    const wall = (performance.now() - t0) / 1000;
    const load = process.cpuUsage(before.load);
    rate.cpu = {
      load: (100 * ((load.user + load.system) / 1e6 + (rate.generatorCpuSeconds ?? 0))) / wall,
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

    /** apiary's side, driven by wrk for `seconds` (see bench/wrk.ts for why not undici). */
    const http = async (request: WrkRequest, forSeconds = seconds): Promise<Rate> => {
      const r = await runWrk(origin, { concurrency, seconds: forSeconds }, request);
      return { ...fromLoad(r), generatorCpuSeconds: r.cpuSeconds };
    };
    const listTotal = Math.max(200, perRound / 10);
    const create = (tag: string): WrkRequest => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`${tag}-{i}`) });
    // Reads and updates go round the objects the round's create phase made.
    const getOf = (tag: string, count: number): WrkRequest => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/${tag}-{i}`, modulo: count });
    const updateOf = (tag: string, count: number): WrkRequest => ({ method: 'PUT', path: `/api/v1/namespaces/bench/configmaps/${tag}-{i}`, body: configMap(`${tag}-{i}`), modulo: count });
    const list: WrkRequest = { method: 'GET', path: '/api/v1/namespaces/listed/configmaps' };
    /** The same creates from this process through undici, for comparison with earlier figures. */
    const undiciCreates = async (tag: string, total: number): Promise<Rate> =>
      fromLoad(
        await runLoad(origin, { concurrency, total, maxSeconds: 120 }, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`${tag}-${i}`) })),
      );
    const rawPut = (prefix: string) => (i: number) => unary(put, { key: Buffer.from(`${prefix}/${i}`), value });
    const rawGet = () => unary(range, { key: Buffer.from('/raw/one') });
    const rawList = () => unary(range, { key: Buffer.from('/raw/listed/'), range_end: prefixEnd('/raw/listed/') });
    // The write apiary (like kube-apiserver) sends for a create: a put guarded by create_revision = 0.
    const rawCreateTxn = (prefix: string) => (i: number) => {
      const key = Buffer.from(`${prefix}/${i}`);
      return unary(txn, { compare: [{ key, target: TARGET_CREATE, result: EQUAL, create_revision: 0 }], success: [{ request_put: { key, value } }], failure: [] });
    };

    if (warmup > 0) {
      // Not measured; the creates' rate per one-second slice shows how long the JIT takes.
      const rates: string[] = [];
      let created = 0;
      let firstSlice = 0;
      for (let slice = 0; created < warmup; slice++) {
        const rate = await http(create(`warmup-${slice}`), 1);
        if (slice === 0) firstSlice = rate.requests ?? 0;
        created += rate.requests ?? 0;
        rates.push(fmt(rate.rps));
      }
      console.log(`warm-up, not measured: apiary creates/s by slices of one second: ${rates.join(', ')}`);
      const half = Math.ceil(warmup / 2);
      await http(getOf('warmup-0', firstSlice), 2);
      await http(updateOf('warmup-0', firstSlice), 2);
      await http(list, 1);
      await undiciCreates('warmup-undici', half);
      await closedLoop(warmup, rawPut('/raw/warmup'));
      await closedLoop(half, rawGet);
      await closedLoop(Math.ceil(warmup / 20), rawList);
      for (let i = 0; i < half; i += concurrency) await Promise.all(Array.from({ length: concurrency }, (_, j) => bareUnary(bareSession, put, { key: Buffer.from(`/raw/bare-warmup/${i + j}`), value })));
    }

    type Side = { apiary: Rate[]; raw: Rate[] };
    const runs: Record<string, Side> = { create: { apiary: [], raw: [] }, get: { apiary: [], raw: [] }, update: { apiary: [], raw: [] }, list: { apiary: [], raw: [] } };
    const bare: Rate[] = [];
    const createTxns: Rate[] = [];
    const undiciCreateRatios: number[] = [];
    const undiciRates: Rate[] = [];
    /** Both sides of one operation, back to back; who goes first alternates by round. */
    const pair = async (r: number, side: Side, apiaryPhase: () => Promise<Rate>, rawPhase: () => Promise<Rate>): Promise<void> => {
      if (r % 2 === 0) {
        side.raw.push(await measured(rawPhase));
        side.apiary.push(await measured(apiaryPhase));
      } else {
        side.apiary.push(await measured(apiaryPhase));
        side.raw.push(await measured(rawPhase));
      }
    };
    for (let r = 0; r < rounds; r++) {
      await pair(r, runs.create!, () => http(create(`c-${r}`)), () => closedLoop(perRound, rawPut(`/raw/put/${r}`)));
      const created = runs.create!.apiary.at(-1)!.requests ?? 0;
      const undici = await measured(() => undiciCreates(`u-${r}`, perRound));
      undiciRates.push(undici);
      undiciCreateRatios.push(undici.rps / runs.create!.raw.at(-1)!.rps);
      await pair(r, runs.get!, () => http(getOf(`c-${r}`, created)), () => closedLoop(perRound * 2, rawGet));
      await pair(r, runs.update!, () => http(updateOf(`c-${r}`, created)), () => closedLoop(perRound, rawPut(`/raw/put/${r}`)));
      await pair(r, runs.list!, () => http(list), () => closedLoop(listTotal, rawList));
      createTxns.push(await measured(() => closedLoop(perRound, rawCreateTxn(`/raw/txn/${r}`))));
      bare.push(await measured(() => closedLoop(perRound, (i) => bareUnary(bareSession, put, { key: Buffer.from(`/raw/bare/${r}/${i}`), value }))));
    }

    const ceilingName: Record<string, string> = {
      create: 'Put',
      get: 'Range (1 key)',
      update: 'Put',
      list: 'Range (100 keys)',
    };
    const ratios = (side: Side): number[] => side.apiary.map((a, i) => a.rps / side.raw[i]!.rps);
    console.log(
      `\napiary on etcd (driven by wrk, ${seconds} s per phase) vs raw etcd through grpc-js (${perRound} requests per phase): ` +
        `single etcd ${etcdVersion} member on 127.0.0.1, concurrency ${concurrency}, ` +
        `medians of ${rounds} rounds, values ${value.length} B\n`,
    );
    console.log('| operation | apiary on etcd req/s | raw etcd | raw ops/s | ratio | apiary p50 ms | apiary p99 ms | raw p50 ms | errors |');
    console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
    const medians: Record<string, { apiary: Rate; raw: Rate; ratio: number }> = {};
    for (const [name, side] of Object.entries(runs)) {
      const a = medianRate(side.apiary);
      const raw = medianRate(side.raw);
      const ratio = median(ratios(side));
      medians[name] = { apiary: a, raw, ratio };
      console.log(
        `| ${name} | ${fmt(a.rps)} | ${ceilingName[name]} | ${fmt(raw.rps)} | ${fmt(100 * ratio, 1)}% | ${fmt(a.p50ms, 2)} | ${fmt(a.p99ms, 2)} | ${fmt(raw.p50ms, 2)} | ${a.errors + raw.errors} |`,
      );
    }
    console.log(`\ncreate ratio by round: ${ratios(runs.create!).map((x) => `${fmt(100 * x, 1)}%`).join(', ')}`);
    // The table's ratio pairs each apiary phase with the raw phase beside it;
    // the unpaired summaries are printed too, so a reader can see how much the
    // rounds disagree.
    const mean = (xs: number[]): number => xs.reduce((sum, x) => sum + x, 0) / xs.length;
    const createRps = { apiary: runs.create!.apiary.map((r) => r.rps), raw: runs.create!.raw.map((r) => r.rps) };
    console.log(
      `create, unpaired: ratio of the median rates ${fmt((100 * median(createRps.apiary)) / median(createRps.raw), 1)}%, ` +
        `of the mean rates ${fmt((100 * mean(createRps.apiary)) / mean(createRps.raw), 1)}%`,
    );
    const undiciRate = medianRate(undiciRates);
    console.log(
      `the same creates driven by undici from this process (the Node load generator of bench/lib.ts): ${fmt(undiciRate.rps)}/s median, ` +
        `${fmt(100 * median(undiciCreateRatios), 1)}% of raw puts (load generator ${fmt(undiciRate.cpu!.load)}% of a core, apiary ${fmt(undiciRate.cpu!.apiary)}%).`,
    );
    const txnRate = medianRate(createTxns);
    console.log(
      `raw create transactions through grpc-js (what apiary sends for a create): ${fmt(txnRate.rps)}/s median, ` +
        `${fmt((100 * txnRate.rps) / medians.create!.raw.rps, 1)}% of raw puts (etcd ${fmt(txnRate.cpu!.etcd)}% of a core).`,
    );
    const bareRate = medianRate(bare);
    console.log(
      `etcd through a bare HTTP/2 gRPC loop (bench/bare-grpc.ts), Put: ${fmt(bareRate.rps)}/s median ` +
        `(client ${fmt(bareRate.cpu!.load)}%, etcd ${fmt(bareRate.cpu!.etcd)}% of a core); grpc-js Put: ${fmt(medians.create!.raw.rps)}/s.`,
    );
    const pct = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : `${fmt(n)}%`);
    console.log('\nCPU, median of rounds, % of one core over the phase (this machine has ' + String(availableParallelism()) + ' cores):\n');
    console.log('| phase | load generator | apiary | etcd | total |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, { apiary: a, raw }] of Object.entries(medians)) {
      for (const [label, rate] of [[`apiary ${name}`, a], [`raw ${ceilingName[name]} (${name})`, raw]] as const) {
        const cpu = rate.cpu;
        const total = cpu === undefined ? undefined : cpu.load + cpu.apiary + (Number.isNaN(cpu.etcd) ? 0 : cpu.etcd);
        console.log(`| ${label} | ${pct(cpu?.load)} | ${pct(cpu?.apiary)} | ${pct(cpu?.etcd)} | ${pct(total)} |`);
      }
    }
    const ratio = medians.create!.ratio;
    console.log(`\n${ratio >= 0.5 ? 'MET' : 'MISSED'}: apiary create ≥ 50% of raw etcd puts at concurrency ${concurrency} (median ${fmt(100 * ratio, 1)}%)`);
  } finally {
    bareSession.close();
    channel.close();
    await protoSource.close();
    await apiary.stop();
    await etcd.stop();
  }
}

await main();
