// Shared pieces of the benchmarks: a bounded closed-loop load generator on
// undici (keep-alive, fixed concurrency), latency percentiles, and helpers to
// run apiary and the bare node:http ceiling as child processes so that the
// server under test and the ceiling get the same machine in the same run.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, Pool, request } from 'undici';
import { type ApiaryProcess, spawnNode } from '../test/helpers/apiary-process.js';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: string;
  contentType?: string;
}

/**
 * Sends `total` requests with `concurrency` in flight (a closed loop), each made
 * by `next(i)`, and measures throughput and latency. Bounded by count and by
 * `maxSeconds`, whichever comes first.
 */
export async function runLoad(
  origin: string,
  options: { concurrency: number; total: number; maxSeconds?: number; expectStatus?: number[] },
  next: (i: number) => RequestSpec,
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: options.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + (options.maxSeconds ?? 120) * 1000;
  const expect = options.expectStatus ?? [200, 201];
  let firstError = '';

  async function worker(): Promise<void> {
    while (issued < options.total && performance.now() < deadline) {
      const spec = next(issued++);
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: spec.method,
          path: spec.path,
          body: spec.body,
          headers: spec.body === undefined ? {} : { 'content-type': spec.contentType ?? 'application/json' },
        });
        const text = await res.body.text();
        if (!expect.includes(res.statusCode)) {
          errors++;
          if (firstError === '') firstError = `${res.statusCode} ${text.slice(0, 200)}`;
        }
      } catch (err) {
        errors++;
        if (firstError === '') firstError = String(err);
      }
      latencies.push(performance.now() - t0);
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (firstError !== '') console.error(`  first error: ${firstError}`);
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50ms: percentile(latencies, 0.5),
    p99ms: percentile(latencies, 0.99),
  };
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

export interface ChildServer {
  origin: string;
  process: ChildProcess;
  /** Resident set size of the child in bytes, read from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

function childHandle(proc: ApiaryProcess, origin: string, cleanup: () => void): ChildServer {
  return {
    origin,
    process: proc.child,
    rss: () => readRss(proc.child.pid!),
    stop: async () => {
      await proc.stop('SIGTERM');
      cleanup();
    },
  };
}

export function readRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : NaN;
}

const REPO = fileURLToPath(new URL('..', import.meta.url));
let built = false;

/**
 * Builds dist/ from the current source, once per benchmark process. The
 * benchmarks measure what `npm start` runs: tsc's output. Through tsx the
 * server is slower (esbuild's keepNames wraps every closure it creates in a
 * __name() call): about a fifth more CPU per create on the memory store.
 */
export function buildOnce(): void {
  if (built) return;
  execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  built = true;
}

/**
 * Starts `apiary serve` (dist/cli/main.js, built first) on a free port in a
 * child process. With APIARY_BENCH_CPU_PROF=DIR in the environment the child
 * runs under `node --cpu-prof` and writes its profile into DIR on exit.
 */
export async function startApiary(options: { dataDir?: string; storage?: string; extraArgs?: string[]; nodeArgs?: string[] } = {}): Promise<
  ChildServer & { dataDir: string; readyMs: number }
> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'apiary-bench-'));
  buildOnce();
  const t0 = performance.now();
  const profileDir = process.env.APIARY_BENCH_CPU_PROF;
  const nodeArgs = [...(options.nodeArgs ?? []), ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])];
  const proc = spawnNode(
    [
      ...nodeArgs,
      join(REPO, 'dist/cli/main.js'),
      // Plain HTTP, everything allowed (the benchmarks measure the storage path; bench/security.ts measures security's cost).
      ...['serve', '--insecure-serving', '--port', '0', '--data-dir', dataDir, '--storage', options.storage ?? 'sqlite', '--log-level', 'warn'],
      ...(options.extraArgs ?? []),
      // APIARY_SERVE_ARGS: more `apiary serve` flags for every benchmark's server, space-separated,
      // to attribute a cost (e.g. APIARY_SERVE_ARGS='--controllers *,-garbage-collector-controller').
      ...(process.env.APIARY_SERVE_ARGS ?? '').split(' ').filter((a) => a !== ''),
    ],
    { stderr: 'inherit' },
    'apiary serve',
  );
  const origin = await proc.url;
  await waitReady(origin, 60_000);
  const readyMs = performance.now() - t0;
  const handle = childHandle(proc, origin, () => {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return { ...handle, dataDir, readyMs };
}

async function waitReady(origin: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${origin}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${origin} not ready in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The ceiling: a bare node:http server in a child process answering every
 * request with a canned body; node:https with `tls` (PEM files), to measure
 * what TLS alone costs.
 */
export async function startCeiling(bodyBytes: number, tls?: { certFile: string; keyFile: string }): Promise<ChildServer> {
  const create =
    tls === undefined
      ? `require('node:http').createServer(`
      : `require('node:https').createServer({ cert: require('node:fs').readFileSync(${JSON.stringify(tls.certFile)}), key: require('node:fs').readFileSync(${JSON.stringify(tls.keyFile)}) }, `;
  const scheme = tls === undefined ? 'http' : 'https';
  const script = `
    const body = Buffer.alloc(${bodyBytes}, 'x');
    const server = ${create}(req, res) => {
      req.on('data', () => {});
      req.on('end', () => {
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => console.log('ceiling listening on ${scheme}://127.0.0.1:' + server.address().port));
  `;
  const proc = spawnNode(['-e', script], { stderr: 'inherit', urlTimeoutMs: 10_000 }, 'ceiling');
  const origin = await proc.url;
  return childHandle(proc, origin, () => {});
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (clock
 * ticks of 10 ms); NaN once it is gone. Per request, it is steadier than a
 * rate on a machine shared with noisy neighbours.
 */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The machine's busy and total CPU time so far (jiffies summed over all cores, from /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are not busy
  return { busy: total - fields[3]! - (fields[4] ?? 0), total };
}

/**
 * Waits until the whole machine is quiet: less than `maxBusyCores` cores busy
 * over a `windowMs` window (the servers not under test finishing what their
 * last burst left: collections, controllers catching up), at most `timeoutMs`.
 * Returns how long it waited. On a two-core machine one server's background
 * work otherwise lands in the next server's measured burst.
 */
export async function waitForQuietMachine(options: { maxBusyCores?: number; windowMs?: number; timeoutMs?: number } = {}): Promise<number> {
  const { maxBusyCores = 0.15, windowMs = 300, timeoutMs = 15_000 } = options;
  const cores = Math.max(1, availableParallelism());
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const a = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const b = machineTicks();
    const busyCores = b.total > a.total ? ((b.busy - a.busy) / (b.total - a.total)) * cores : 0;
    if (busyCores < maxBusyCores) break;
  }
  return performance.now() - started;
}

/** CPU seconds of a process's main (JavaScript) thread, from schedstat (ns on a CPU): the thread a create is bound by. */
export function mainThreadSeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) of one thread of a process. */
export function threadCpu(pid: number, tid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Every thread of a process: its name (comm) and CPU seconds. */
export function threadsCpu(pid: number): Map<number, { name: string; cpu: number }> {
  const out = new Map<number, { name: string; cpu: number }>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out.set(Number(tid), { name, cpu: threadCpu(pid, Number(tid)) });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** A thread's time on a CPU and waiting for one (runnable), in seconds, from /proc schedstat. */
export function threadSched(pid: number, tid: number): { run: number; wait: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: run! / 1e9, wait: wait! / 1e9 };
  } catch {
    return { run: NaN, wait: NaN };
  }
}

/** The processes a process started (its TLS front, for a secure apiary), from /proc. */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
        .split(' ')
        .filter((p) => p !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** The pid of a process whose command line contains `needle` (an etcd, by its data directory), from /proc. */
export function pidWith(needle: string): number | undefined {
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

/** Polls `origin`/readyz (with `headers`, through `agent`) until it answers 200; throws after `timeoutMs`. */
export async function waitReadyz(origin: string, agent: Agent, headers: Record<string, string>, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await request(`${origin}/readyz`, { dispatcher: agent, headers });
      await res.body.text();
      if (res.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${origin} not ready in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
