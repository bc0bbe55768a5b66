// Watch fan-out: N concurrent watchers on one resource while a writer creates
// objects at a fixed rate. Checks that every watcher receives every event, in
// order (strictly increasing resourceVersions, none missing), and reports the
// delivery latency (the writer stamps Date.now() into each object; a watcher
// subtracts it on receipt) and the server's RSS growth (baseline before the
// watchers connect → peak during the run).
//
// The server runs as a child process (`apiary serve`, sqlite, watch cache on);
// every watcher lives in this process on raw node:http with one keep-alive
// agent, and parses lines with string searches only (no JSON.parse), so the
// clients stay cheap on a small machine. Bounded: the writer stops after
// --seconds, then watchers get at most 15 s to drain.
//
// Usage: node --import tsx bench/watch-fanout.ts [--watchers 100,1000,5000] [--rate 500] [--seconds 30] [--storage sqlite|memory]
//        [--origin URL --pid PID]   (use a server already running, e.g. under --cpu-prof; one watcher count)
// Prints a markdown table, one row per watcher count.

import http from 'node:http';
import { readRss, startApiary } from './lib.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const watcherCounts = flag('watchers', '100,1000').split(',').map(Number);
const rate = Number(flag('rate', '500'));
const seconds = Number(flag('seconds', '30'));
const storage = flag('storage', 'sqlite');
const NS = 'bench';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function post(origin: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = http.request(
      `${origin}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': data.length } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Latency histogram in 1 ms buckets up to 60 s. */
class Histogram {
  private readonly buckets = new Uint32Array(60_001);
  count = 0;
  add(ms: number): void {
    this.buckets[Math.min(60_000, Math.max(0, Math.round(ms)))]++;
    this.count++;
  }
  quantile(q: number): number {
    const target = Math.ceil(this.count * q);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!;
      if (seen >= target) return i;
    }
    return NaN;
  }
}

interface WatcherState {
  received: number;
  lastRV: number;
  outOfOrder: number;
  ended: boolean;
  req: http.ClientRequest;
}

const RV_MARK = '"resourceVersion":"';
const T_MARK = '"t":"';

function openWatcher(origin: string, fromRV: string, hist: Histogram, connected: () => void): WatcherState {
  const state = { received: 0, lastRV: 0, outOfOrder: 0, ended: false } as WatcherState;
  state.req = http.get(`${origin}/api/v1/namespaces/${NS}/configmaps?watch=1&resourceVersion=${fromRV}`, { agent }, (res) => {
    connected();
    let rest = '';
    res.setEncoding('latin1');
    res.on('data', (chunk: string) => {
      const now = Date.now();
      const text = rest + chunk;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const rvAt = text.indexOf(RV_MARK, start);
        const tAt = text.indexOf(T_MARK, start);
        if (rvAt >= 0 && rvAt < nl) {
          const rv = Number(text.slice(rvAt + RV_MARK.length, text.indexOf('"', rvAt + RV_MARK.length)));
          if (rv <= state.lastRV) state.outOfOrder++;
          state.lastRV = rv;
        }
        if (tAt >= 0 && tAt < nl) hist.add(now - Number(text.slice(tAt + T_MARK.length, text.indexOf('"', tAt + T_MARK.length))));
        state.received++;
        start = nl + 1;
      }
      rest = text.slice(start);
    });
    res.on('end', () => (state.ended = true));
    res.on('error', () => (state.ended = true));
  });
  state.req.on('error', () => (state.ended = true));
  return state;
}

async function run(watchers: number): Promise<string> {
  const origin = flag('origin', '');
  const server =
    origin === ''
      ? await startApiary({ storage })
      : { origin, rss: () => readRss(Number(flag('pid', '0'))), stop: async () => {} };
  try {
    await post(server.origin, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // Warm up the write path, then take the baseline.
    for (let i = 0; i < 50; i++) await post(server.origin, `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `warm-${i}` }, data: { t: '0' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const baseline = server.rss();

    const listRes = await fetch(`${server.origin}/api/v1/namespaces/${NS}/configmaps?limit=1`);
    const fromRV = ((await listRes.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const hist = new Histogram();
    let connected = 0;
    const states: WatcherState[] = [];
    for (let i = 0; i < watchers; i++) {
      states.push(openWatcher(server.origin, fromRV, hist, () => connected++));
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 600 && connected < watchers; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    if (connected < watchers) throw new Error(`only ${connected} of ${watchers} watchers connected`);

    let peak = server.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 250);
    const payload = 'p'.repeat(900);
    let created = 0;
    let failed = 0;
    const total = rate * seconds;
    const startedAt = Date.now();
    // Open loop: every 10 ms, issue the creates due by now.
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((Date.now() - startedAt) / 1000) * rate));
        while (created + failed < due) {
          const n = created + failed;
          created++;
          post(server.origin, `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `cm-${n}` }, data: { t: String(Date.now()), payload } })
            .then((r) => {
              if (r.status !== 201) {
                created--;
                failed++;
              }
            })
            .catch(() => {
              created--;
              failed++;
            });
        }
        if (created + failed >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 10);
    });
    const writeSeconds = (Date.now() - startedAt) / 1000;
    // Let in-flight creates finish and watchers drain (bounded).
    const drainDeadline = Date.now() + 15_000;
    while (Date.now() < drainDeadline && states.some((s) => !s.ended && s.received < created)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    clearInterval(sampler);
    peak = Math.max(peak, server.rss());

    const complete = states.filter((s) => s.received === created && s.outOfOrder === 0).length;
    const ended = states.filter((s) => s.ended).length;
    for (const s of states) s.req.destroy();
    const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
    return `| ${watchers} | ${created} (${failed} failed) in ${writeSeconds.toFixed(1)} s | ${complete}/${watchers}${ended > 0 ? ` (${ended} ended)` : ''} | ${hist.quantile(0.5)} | ${hist.quantile(0.99)} | ${hist.quantile(1)} | ${mib(baseline)} | ${mib(peak)} | ${mib(peak - baseline)} |`;
  } finally {
    await server.stop();
  }
}

const rows: string[] = [];
for (const n of watcherCounts) {
  rows.push(await run(n));
  console.error(rows[rows.length - 1]);
}
console.log(`\nWatch fan-out: ${rate} creates/s for ${seconds} s (configmaps of ~1 KiB), ${storage}, watch cache on\n`);
console.log('| watchers | creates | watchers with every event, in order | p50 ms | p99 ms | max ms | RSS before MiB | RSS peak MiB | RSS growth MiB |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
agent.destroy();
