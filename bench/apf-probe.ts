// A diagnostic for APF's cost (issue 29): several `apiary serve` variants on
// memory storage, bursts of GETs (OP=create: creates) alternating between
// them, and per variant: CPU per request from schedstat (all threads, and the
// main thread alone, with the quartiles of its per-round ratio to the first
// variant), young-generation allocation per request (from --trace-gc: bytes
// allocated between two collections) and GC pause per request. Allocation is
// not skewed by a busy machine the way CPU time is.
//
// Usage: [ROUNDS=6] [TOTAL=10000] [OP=get|create] [CONC=32] [CONTROLLERS=false]
//   node --import tsx bench/apf-probe.ts NAME=[off][,DIST:path/to/dist/cli/main.js][,ENVVAR:value]...
// e.g. off=off on= base=DIST:/tmp/base/dist/cli/main.js  (the first variant is the reference;
// ENVVAR:value sets an environment variable of that server, for experiments gated by one).

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { buildOnce, median, runLoad, type RequestSpec } from './lib.js';

/** CPU seconds of all of a process's threads (schedstat: ns on a CPU). */
function cpuSeconds(pid: number): number {
  let t = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      t += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return t / 1e9;
}

/** CPU seconds of its main (JavaScript) thread. */
function mainCpu(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

const specs = process.argv.slice(2);
const rounds = Number(process.env.ROUNDS ?? 6);
const total = Number(process.env.TOTAL ?? 10000);
const op = process.env.OP ?? 'get';
buildOnce();
interface V { name: string; origin: string; pid: number; stop: () => Promise<void>; gc: { n: number; ms: number; mc: number; alloc: number; last: number }; cpu: number[]; main: number[]; gcn: number[]; alloc: number[]; gcms: number[]; rps: number[]; made: number }
const vs: V[] = [];
for (const spec of specs) {
  const [name, rest = ''] = spec.split(/=(.*)/s) as [string, string];
  const env: Record<string, string> = {};
  let apf = 'true';
  let dist = join(process.cwd(), 'dist/cli/main.js');
  for (const kv of rest.split(',').filter(Boolean)) {
    if (kv === 'off') apf = 'false';
    else if (kv.startsWith('DIST:')) dist = kv.slice(5);
    else { const [k, v] = kv.split(':'); env[k!] = v ?? '1'; }
  }
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const gc = { n: 0, ms: 0, mc: 0, alloc: 0, last: -1 };
  const dataDir = mkdtempSync(join(tmpdir(), 'apf-probe-'));
  const proc = spawnNode(['--trace-gc', dist, 'serve', '--insecure-serving', '--port', '0', '--data-dir', dataDir, '--storage', 'memory', '--log-level', 'warn', '--controllers', process.env.CONTROLLERS ?? 'false', `--enable-priority-and-fairness=${apf}`], {
    stderr: 'inherit',
    onLine: (l) => {
      const a = /(Scavenge|Mark-Compact|Mark-sweep)\S*\s+([\d.]+) \(([\d.]+)\) -> ([\d.]+)/.exec(l);
      if (a) { if (gc.last >= 0) gc.alloc += Number(a[2]) - gc.last; gc.last = Number(a[4]); }
      const m = /(Scavenge|Mark-Compact|Mark-sweep)[^,]*, ([\d.]+) \/ ([\d.]+) ms/.exec(l);
      if (m) { if (m[1] === 'Scavenge') gc.n++; else gc.mc++; gc.ms += Number(m[2]); }
    },
  }, name);
  process.env = saved;
  const origin = await proc.url;
  for (;;) {
    try {
      if ((await fetch(`${origin}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  vs.push({ name, origin, pid: proc.child.pid!, stop: async () => {
      await proc.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    }, gc, cpu: [], main: [], gcn: [], alloc: [], gcms: [], rps: [], made: 0 });
}
const body = (n: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: { p: 'x'.repeat(256) } });
const spec = (v: V) => (i: number): RequestSpec => op === 'get' ? { method: 'GET', path: '/api/v1/namespaces/default/configmaps/seed' } : { method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: body(`c${v.made + i}`) };
try {
  for (const v of vs) {
    await fetch(`${v.origin}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('seed') });
    await runLoad(v.origin, { concurrency: 32, total: 3000 }, spec(v)); v.made += 3000;
  }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...vs].reverse() : vs;
    for (const v of order) {
      const st = process.env.STRACE ? spawn('strace', ['-c', '-f', '-p', String(v.pid), '-o', `/tmp/apf2-strace-${v.name}-${r}.txt`], { stdio: 'ignore' }) : undefined;
      if (st) await new Promise((r) => setTimeout(r, 1000));
      const c0 = cpuSeconds(v.pid), m0 = mainCpu(v.pid), g0 = { ...v.gc };
      const res = await runLoad(v.origin, { concurrency: Number(process.env.CONC ?? 32), total }, spec(v)); v.made += total;
      v.cpu.push(((cpuSeconds(v.pid) - c0) * 1e6) / res.requests);
      v.main.push(((mainCpu(v.pid) - m0) * 1e6) / res.requests);
      v.gcn.push(((v.gc.n - g0.n) * 1000) / res.requests);
      v.alloc.push(((v.gc.alloc - g0.alloc) * 1048576) / res.requests);
      v.gcms.push(((v.gc.ms - g0.ms) * 1000) / res.requests);
      v.rps.push(res.rps);
      if (st) { st.kill('SIGINT'); await new Promise((r) => st.once('exit', r)); console.log(v.name, readFileSync(`/tmp/apf2-strace-${v.name}-${r}.txt`, 'utf8').split('\n').slice(0, 14).join('\n')); }
    }
  }
} finally { for (const v of vs) await v.stop(); }
const base = vs[0]!;
for (const v of vs) {
  const ratio = median(v.cpu.map((c, i) => c / base.cpu[i]!));
  const mr = v.main.map((c, i) => c / base.main[i]!).sort((a, b) => a - b);
  const rr = median(v.rps.map((c, i) => c / base.rps[i]!));
  console.log(`${v.name.padEnd(10)} cpu ${median(v.cpu).toFixed(1)} us/req (x${ratio.toFixed(3)}) main ${median(v.main).toFixed(1)} (x${median(mr).toFixed(3)} q1 ${mr[Math.floor(mr.length / 4)]!.toFixed(3)} q3 ${mr[Math.floor((3 * mr.length) / 4)]!.toFixed(3)})  rps ${median(v.rps).toFixed(0)} (x${rr.toFixed(3)})  scavenges/1000 ${median(v.gcn).toFixed(2)} alloc B/req ${median(v.alloc).toFixed(0)}  gc us/req ${median(v.gcms).toFixed(2)}`);
}
