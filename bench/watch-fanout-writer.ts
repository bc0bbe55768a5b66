// The writer side of bench/watch-fanout.ts, run as its own process (forked,
// IPC to the parent).
//
// Open loop: every 5 ms it issues the creates due by now so that --rate
// creates/s go out for --seconds, whatever the server's latency (up to 256 in
// flight on keep-alive connections, 32 of them opened before the clock starts;
// beyond 256 they queue here, and that wait counts in the latency). Each ConfigMap carries data.sentAt, Date.now()
// when the create was issued; watchers measure delivery latency from it.
// Sends {type:'done', created, failed, createP50, createP99, seconds} at the end.

import http from 'node:http';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const origin = flag('origin', '');
const ns = flag('ns', 'bench');
const rate = Number(flag('rate', '500'));
const seconds = Number(flag('seconds', '30'));

export interface WriterResult {
  type: 'done';
  created: number;
  failed: number;
  firstError: string;
  createP50: number;
  createP99: number;
  seconds: number;
  /** The slowest create issued in each second of the run, ms. */
  slowestPerSecond: number[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const payload = 'p'.repeat(900);
const path = `/api/v1/namespaces/${ns}/configmaps`;

function create(n: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const body = `{"metadata":{"name":"cm-${n}"},"data":{"sentAt":"${Date.now()}","payload":"${payload}"}}`;
    const req = http.request(
      `${origin}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens `n` keep-alive connections before the clock starts, so the run does not pay for connection set-up. */
async function warmConnections(n: number): Promise<void> {
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve, reject) => {
          http.get(`${origin}/readyz`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
        }),
    ),
  );
}
await warmConnections(32);

const total = Math.round(rate * seconds);
const latencies: number[] = [];
const slowestPerSecond: number[] = [];
let issued = 0;
let created = 0;
let failed = 0;
let firstError = '';
const inFlight = new Set<Promise<void>>();
const startedAt = Date.now();

await new Promise<void>((resolve) => {
  const tick = setInterval(() => {
    const due = Math.min(total, Math.floor(((Date.now() - startedAt) / 1000) * rate));
    while (issued < due) {
      const t0 = performance.now();
      const p = create(issued++)
        .then(
          (r) => {
            if (r.status === 201) created++;
            else {
              failed++;
              if (firstError === '') firstError = `${r.status} ${r.text.slice(0, 200)}`;
            }
          },
          (err: unknown) => {
            failed++;
            if (firstError === '') firstError = String(err);
          },
        )
        .finally(() => {
          const ms = performance.now() - t0;
          latencies.push(ms);
          const second = Math.floor((Date.now() - ms - startedAt) / 1000);
          slowestPerSecond[second] = Math.max(slowestPerSecond[second] ?? 0, Math.round(ms));
          inFlight.delete(p);
        });
      inFlight.add(p);
    }
    if (issued >= total) {
      clearInterval(tick);
      resolve();
    }
  }, 5);
});
await Promise.all(inFlight);
const writeSeconds = (Date.now() - startedAt) / 1000;
latencies.sort((a, b) => a - b);
const q = (x: number): number => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(x * latencies.length))] ?? NaN);
const result: WriterResult = { type: 'done', created, failed, firstError, createP50: q(0.5), createP99: q(0.99), seconds: writeSeconds, slowestPerSecond };
agent.destroy();
process.send!(result, () => process.exit(0));
