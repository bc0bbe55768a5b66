// How fast apiary/testing hands a test its server: the median time from
// startTestServer() until it resolves (the server answers, system namespaces
// exist when controllers are on), over N runs in one process after a warm-up
// run, beside a ceiling measured in the same run: a bare node:http server
// listening on a free port and answering one request. Also the time stop()
// takes. Target: start < 300 ms.
//
//   node --import tsx bench/test-server.ts [--runs N]

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { startTestServer, type TestServerOptions } from '../src/testing/index.js';
import { fmt, median } from './lib.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const runs = Number(values.runs);

async function bareListen(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function measure(start: () => Promise<{ url: string; close(): Promise<void> }>): Promise<{ start: number; stop: number }> {
  const startMs: number[] = [];
  const stopMs: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const s = await start();
    const t1 = performance.now();
    const res = await fetch(`${s.url}/healthz`, { headers: { connection: 'close' } });
    await res.text();
    const t2 = performance.now();
    await s.close();
    const t3 = performance.now();
    if (i === 0) continue; // warm-up: module loading and JIT
    startMs.push(t1 - t0 + (t2 - t1));
    stopMs.push(t3 - t2);
  }
  return { start: median(startMs), stop: median(stopMs) };
}

const apiary = (options: TestServerOptions) => async () => {
  const s = await startTestServer(options);
  return { url: s.url, close: () => s.stop() };
};

const ceiling = await measure(bareListen);
const rows: Array<[string, { start: number; stop: number }]> = [
  ['bare node:http (ceiling)', ceiling],
  ['startTestServer memory, controllers off', await measure(apiary({ controllers: false }))],
  ['startTestServer memory, controllers on', await measure(apiary({}))],
  ['startTestServer sqlite, controllers on', await measure(apiary({ storage: 'sqlite' }))],
  ['startTestServer memory, controllers, 2 CRDs', await measure(apiary({ crdDirectoryPaths: ['test/testing/fixtures/crds'] }))],
];
console.log(`runs: ${runs} (median, after one warm-up run); start = until ready + one /healthz answered`);
for (const [name, r] of rows) {
  console.log(`${name.padEnd(46)} start ${fmt(r.start, 1).padStart(7)} ms  stop ${fmt(r.stop, 1).padStart(7)} ms  start ratio to ceiling ${fmt(r.start / ceiling.start, 0)}x`);
}
