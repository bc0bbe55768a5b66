// Watch fan-out: N concurrent watchers on one resource while a writer creates
// objects at a fixed rate. Checks that every watcher receives every event, in
// order (strictly increasing resourceVersions, none missing), and reports the
// delivery latency and the server's RSS growth (baseline before the watchers
// connect → peak during the run).
//
// Four processes, so each side's cost is its own: the server (`apiary serve`,
// sqlite, watch cache on), the watchers (bench/watch-fanout-watchers.ts: node:http,
// event lines scanned as bytes, never JSON.parse'd), the writer
// (bench/watch-fanout-writer.ts: open loop at --rate creates/s), and this
// orchestrator, which samples the server's RSS and CPU from /proc.
//
// Latency = the watcher's Date.now() when the event's bytes arrive − the
// writer's Date.now() when it issued the create (data.sentAt): it includes the
// create itself (admission, the durable sqlite commit), dispatch and the
// stream's flush interval. The writer's own create latency is reported beside it.
// The writer first runs a declared warm-up of WARMUP_MS at the same rate (JIT,
// the first full fan-out, buffers settling), then --seconds of measurement:
// p50/p99/max cover the events sent after the warm-up; "p99 with warm-up"
// covers every event. Every event, warm-up included, must reach every watcher
// in order.
// Server and watchers CPU: their CPU time over the writing time, as a share of one core.
//
// Usage: node --import tsx bench/watch-fanout.ts [--watchers 100,1000,5000] [--rate 500] [--seconds 30] [--storage sqlite|memory]
//        [--origin URL --pid PID]   (use a server already running, e.g. under --cpu-prof; one watcher count)
//        [--client-prof DIR]        (CPU profiles of the watcher and writer processes)
// Bounded: the writer stops after warm-up + --seconds, then watchers get at most 15 s to drain.
// Prints a markdown table, one row per watcher count.

import { fork, type ChildProcess } from 'node:child_process';
import { cpuSeconds, readRss, startApiary } from './lib.js';
import type { WatchersResult } from './watch-fanout-watchers.js';
import type { WriterResult } from './watch-fanout-writer.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const watcherCounts = flag('watchers', '100,1000').split(',').map(Number);
const rate = Number(flag('rate', '500'));
const seconds = Number(flag('seconds', '30'));
const storage = flag('storage', 'sqlite');
const NS = 'bench';
const WARMUP_MS = 2000;
const here = new URL('.', import.meta.url).pathname;


async function post(origin: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
}

const clientProfileDir = flag('client-prof', '');

function child(script: string, args: string[]): ChildProcess {
  // --client-prof DIR: CPU profiles of the watcher and writer processes, to see the clients' own cost.
  const prof = clientProfileDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${clientProfileDir}`];
  return fork(`${here}${script}`, args, { execArgv: [...prof, '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function nextMessage<T>(proc: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} message in ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (msg: { type: string }): void => {
      if (msg.type !== type) return;
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve(msg as T);
    };
    proc.on('message', onMessage);
    proc.once('exit', (code) => reject(new Error(`${type}: child exited with ${code}`)));
  });
}

interface Row {
  watchers: number;
  writer: WriterResult;
  watchersResult: WatchersResult;
  baseline: number;
  peak: number;
  serverCpu: number;
}

function quantile(histogram: Array<[number, number]>, q: number): number {
  const total = histogram.reduce((n, [, c]) => n + c, 0);
  const target = Math.ceil(total * q);
  let seen = 0;
  for (const [ms, c] of histogram) {
    seen += c;
    if (seen >= target) return ms;
  }
  return NaN;
}

async function run(watchers: number): Promise<Row> {
  const origin = flag('origin', '');
  const server =
    origin === ''
      ? await startApiary({ storage })
      : { origin, process: { pid: Number(flag('pid', '0')) }, rss: () => readRss(Number(flag('pid', '0'))), stop: async () => {} };
  const pid = server.process.pid!;
  const procs: ChildProcess[] = [];
  try {
    await post(server.origin, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // Warm up the write path, then take the baseline.
    for (let i = 0; i < 50; i++) await post(server.origin, `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `warm-${watchers}-${i}` }, data: { sentAt: '0' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const baseline = server.rss();

    const listRes = await fetch(`${server.origin}/api/v1/namespaces/${NS}/configmaps?limit=1`);
    const fromRV = ((await listRes.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 250);
    const watcherProc = child('watch-fanout-watchers.ts', ['--origin', server.origin, '--ns', NS, '--rv', fromRV, '--count', String(watchers)]);
    procs.push(watcherProc);
    await nextMessage(watcherProc, 'connected', 120_000);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const cpu0 = cpuSeconds(pid);
    // Events sent after the first WARMUP_MS also count apart: the steady state, once JIT and buffers have settled.
    watcherProc.send({ type: 'start', steadyFrom: Date.now() + WARMUP_MS });
    const writing = seconds + WARMUP_MS / 1000;
    const writerProc = child('watch-fanout-writer.ts', ['--origin', server.origin, '--ns', NS, '--rate', String(rate), '--seconds', String(writing)]);
    procs.push(writerProc);
    const writer = await nextMessage<WriterResult>(writerProc, 'done', (seconds + 120) * 1000);
    if (writer.firstError !== '') console.error(`  first create error: ${writer.firstError}`);
    if (process.env.FANOUT_DEBUG) console.error(`  slowest create per second (ms): ${writer.slowestPerSecond.join(' ')}`);
    watcherProc.send({ type: 'drain', expected: writer.created, timeoutMs: 15_000 });
    const watchersResult = await nextMessage<WatchersResult>(watcherProc, 'result', 60_000);
    const serverCpu = cpuSeconds(pid) - cpu0;
    clearInterval(sampler);
    peak = Math.max(peak, server.rss());
    return { watchers, writer, watchersResult, baseline, peak, serverCpu };
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill();
    await server.stop();
  }
}

function format(r: Row): string {
  const w = r.watchersResult;
  const mib = (b: number): string => (b / 1024 / 1024).toFixed(0);
  // CPU over the write window plus the drain, as a share of one core.
  const window = r.writer.seconds;
  const pct = (s: number): string => `${Math.round((s / window) * 100)}%`;
  const ended = w.ended > 0 ? ` (${w.ended} ended)` : '';
  return [
    r.watchers,
    `${r.writer.created}${r.writer.failed > 0 ? ` (${r.writer.failed} failed)` : ''} in ${r.writer.seconds.toFixed(1)} s`,
    `${w.complete}/${r.watchers}${ended}`,
    quantile(w.steadyHistogram, 0.5),
    quantile(w.steadyHistogram, 0.99),
    quantile(w.steadyHistogram, 1),
    quantile(w.histogram, 0.99),
    `${r.writer.createP50} / ${r.writer.createP99}`,
    mib(r.baseline),
    mib(r.peak),
    mib(r.peak - r.baseline),
    pct(r.serverCpu),
    pct(w.cpuSeconds),
  ].join(' | ').replace(/^/, '| ').concat(' |');
}

const rows: string[] = [];
for (const n of watcherCounts) {
  rows.push(format(await run(n)));
  console.error(rows[rows.length - 1]);
}
console.log(
  `\nWatch fan-out: ${rate} creates/s for ${seconds} s after a ${WARMUP_MS / 1000} s warm-up (ConfigMaps of ~1 KiB), ${storage}, watch cache on; latency from the writer's send to the watcher's receipt\n`,
);
console.log(
  '| watchers | creates | watchers with every event, in order | p50 ms | p99 ms | max ms | p99 with warm-up ms | create p50 / p99 ms | RSS before MiB | RSS peak MiB | RSS growth MiB | server CPU | watchers CPU |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
