// What API Priority and Fairness costs on an unloaded server: creates and gets
// of configmaps against two `apiary serve` processes on the same storage kind,
// one with --enable-priority-and-fairness=true (the default), one with false,
// plus the bare node:http ceiling, all in one run. Bursts alternate between the
// servers (the order flips every round) so that neighbouring bursts see the
// same machine; per round, the ratio on/off is taken, and the medians printed.
// A server is idle while another is measured. Concurrency 32 stays below the
// global-default level's 49 seats: nothing queues, what is measured is the
// filter's own work (classification, seat accounting, headers, metrics).
// Before the rounds, both servers sit idle together for a few seconds: what
// an idle server spends (timers) is printed too.
//
// CPU per request is the servers' threads' time on a CPU from /proc/PID/task/*/schedstat
// (nanoseconds; the clock ticks of /proc/PID/stat are 10 ms, too coarse for a ratio
// of a few per cent on short bursts).
//
// Usage: node --import tsx bench/apf-overhead.ts [--storage memory|sqlite] [--rounds 8] [--requests 3000] [--concurrency 32]
//          [--ops create,get] [--controllers false|true]
// Target: APF costs at most 5 % of create and get throughput (ratio ≥ 0.95).

import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fmt, median, runLoad, startApiary, startCeiling, type ChildServer } from './lib.js';

const { values: args } = parseArgs({
  options: {
    storage: { type: 'string', default: 'memory' },
    rounds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '32' },
    ops: { type: 'string', default: 'create,get' },
    controllers: { type: 'string', default: 'false' },
  },
});
const rounds = Number(args.rounds);
const total = Number(args.requests);
const concurrency = Number(args.concurrency);
const payload = 'x'.repeat(256);
const IDLE_SECONDS = 5;
const ops = new Set(args.ops!.split(','));

/** CPU seconds of all of a process's threads so far (schedstat: nanoseconds on a CPU). */
function cpuSeconds(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e9;
}

interface Variant {
  name: string;
  server: ChildServer;
  create: number[];
  get: number[];
  cpuPerCreateMs: number[];
  cpuPerGetMs: number[];
  made: number;
}

const cmBody = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });

async function burst(v: Variant, op: 'create' | 'get', round: number): Promise<void> {
  const pid = v.server.process.pid!;
  const cpu0 = cpuSeconds(pid);
  const base = v.made;
  const r = await runLoad(v.server.origin, { concurrency, total }, (i) =>
    op === 'create'
      ? { method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: cmBody(`r${round}-${base + i}`) }
      : { method: 'GET', path: `/api/v1/namespaces/default/configmaps/seed` },
  );
  if (op === 'create') v.made += total;
  const cpuMs = ((cpuSeconds(pid) - cpu0) * 1000) / Math.max(1, r.requests);
  if (r.errors > 0) console.error(`  ${v.name} ${op}: ${r.errors} errors`);
  (op === 'create' ? v.create : v.get).push(r.rps);
  (op === 'create' ? v.cpuPerCreateMs : v.cpuPerGetMs).push(cpuMs);
}

async function main(): Promise<void> {
  const storage = args.storage!;
  const controllers = args.controllers!;
  const on = await startApiary({ storage, extraArgs: ['--enable-priority-and-fairness=true', '--controllers', controllers] });
  const off = await startApiary({ storage, extraArgs: ['--enable-priority-and-fairness=false', '--controllers', controllers] });
  const ceiling = await startCeiling(300);
  const variants: Variant[] = [
    { name: 'apf on', server: on, create: [], get: [], cpuPerCreateMs: [], cpuPerGetMs: [], made: 0 },
    { name: 'apf off', server: off, create: [], get: [], cpuPerCreateMs: [], cpuPerGetMs: [], made: 0 },
  ];
  const ceilingGet: number[] = [];
  let idleMsPerSecond: number[] = [];
  try {
    for (const v of variants) {
      const seed = await fetch(`${v.server.origin}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: cmBody('seed') });
      if (seed.status !== 201) throw new Error(`${v.name}: seeding failed with ${seed.status}`);
      // Warm-up: JIT, watch caches, connection pools.
      await runLoad(v.server.origin, { concurrency, total: 1000 }, (i) => ({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: cmBody(`warm-${i}`) }));
      await runLoad(v.server.origin, { concurrency, total: 2000 }, () => ({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/seed' }));
    }
    const headers = await fetch(`${on.origin}/api/v1/namespaces/default/configmaps/seed`);
    if (headers.headers.get('x-kubernetes-pf-flowschema-uid') === null) throw new Error('apf on: no X-Kubernetes-PF-FlowSchema-UID header: is priority and fairness on?');
    const offHeaders = await fetch(`${off.origin}/api/v1/namespaces/default/configmaps/seed`);
    if (offHeaders.headers.get('x-kubernetes-pf-flowschema-uid') !== null) throw new Error('apf off: the APF header is present');
    // An idle server's own CPU (timers): both idle at once, for a few seconds.
    await new Promise((r) => setTimeout(r, 1000));
    const idle0 = variants.map((v) => cpuSeconds(v.server.process.pid!));
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    idleMsPerSecond = variants.map((v, i) => ((cpuSeconds(v.server.process.pid!) - idle0[i]!) * 1000) / IDLE_SECONDS);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      if (ops.has('create')) for (const v of order) await burst(v, 'create', round);
      if (ops.has('get')) for (const v of order) await burst(v, 'get', round);
      ceilingGet.push((await runLoad(ceiling.origin, { concurrency, total }, () => ({ method: 'GET', path: '/' }))).rps);
      process.stdout.write(`round ${round + 1}/${rounds}: create on/off ${fmt(variants[0]!.create.at(-1) ?? NaN)} / ${fmt(variants[1]!.create.at(-1) ?? NaN)}, get on/off ${fmt(variants[0]!.get.at(-1) ?? NaN)} / ${fmt(variants[1]!.get.at(-1) ?? NaN)} req/s\n`);
    }
  } finally {
    await on.stop();
    await off.stop();
    await ceiling.stop();
  }
  const [a, b] = variants as [Variant, Variant];
  const ratios = (x: number[], y: number[]): number[] => x.map((v, i) => v / y[i]!);
  const ceil = median(ceilingGet);
  console.log(`\nAPF overhead, ${storage} storage, controllers ${controllers}, concurrency ${concurrency}, ${rounds} rounds of ${total} requests per burst (medians)`);
  console.log(`ceiling (bare node:http GET): ${fmt(ceil)} req/s`);
  for (const v of variants) {
    console.log(
      `${v.name.padEnd(8)} create ${fmt(median(v.create)).padStart(7)} req/s (${fmt((100 * median(v.create)) / ceil, 1)} % of ceiling, ${fmt(median(v.cpuPerCreateMs), 3)} ms CPU each)` +
        `   get ${fmt(median(v.get)).padStart(7)} req/s (${fmt((100 * median(v.get)) / ceil, 1)} % of ceiling, ${fmt(median(v.cpuPerGetMs), 3)} ms CPU each)`,
    );
  }
  const createRatio = median(ratios(a.create, b.create));
  const getRatio = median(ratios(a.get, b.get));
  const cpuCreate = median(ratios(a.cpuPerCreateMs, b.cpuPerCreateMs));
  const cpuGet = median(ratios(a.cpuPerGetMs, b.cpuPerGetMs));
  console.log(`on/off throughput ratio (median of per-round ratios): create ${fmt(createRatio, 3)}, get ${fmt(getRatio, 3)}   (target ≥ 0.95)`);
  console.log(`on/off CPU per request ratio: create ${fmt(cpuCreate, 3)}, get ${fmt(cpuGet, 3)}`);
  console.log(`idle server CPU (${IDLE_SECONDS} s): on ${fmt(idleMsPerSecond[0]!, 1)} ms/s, off ${fmt(idleMsPerSecond[1]!, 1)} ms/s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
