// A 100,000-key ConfigMap create never holds the event loop in one long block
// (issue 29, part 2). event-loop.test.ts holds a small GET's slowest answer to
// 100 ms while maximal requests run; this holds the longest single block of
// the loop during a maximal create to a few slices, which is what a small
// request's p99 under a noisy neighbour depends on (bench/noisy-neighbour.ts).
//
// The server runs in this process so that the loop's blocks are measured
// directly: a 1 ms timer notes each turn of the loop, and a block is the time
// between two turns. What counts is the main thread's own CPU time in it
// (Linux's per-thread schedstat), less the garbage collector's pauses in it
// (perf_hooks' gc entries): on CI's 2 shared cores the OS may take the core
// away from this thread for tens of milliseconds, and collections of a heap
// holding several 100,000-key objects pause it for as long; neither is a
// block of the server's own making, and both show in wall-clock time only or
// in gc entries. The figure held to BLOCK_MS is the median over CREATES
// creates of each create's longest block. Measured before the key lists of
// large maps were kept (machinery/wide-keys.ts) and ConfigMap validation ran
// in steps: 30-52 ms per create (Object.keys of the data map once per JSON
// walk, validation in one go), at a load of 6 on 2 cores; after: 9-12 ms
// (the data map's dictionary growing; slices of work are 2 ms).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

let server: TestServer;
const agent = new http.Agent({ keepAlive: true });

before(async () => {
  server = await startTestServer({ storage: 'memory' });
  await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'blocks' } } });
});
after(async () => {
  agent.destroy();
  await server?.stop();
});

/** Slices of work are 2 ms (json-slices.ts); a large dictionary's growth (all its keys rehashed) about 10. */
const BLOCK_MS = 25;
const CREATES = 5;
/** The main thread's CPU time so far (ms), or undefined where Linux's schedstat is not there. */
function threadCpuMs(): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

function send(body: Buffer): Promise<number> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/api/v1/namespaces/blocks/configmaps', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The longest block of the loop (ms of this thread's CPU time, less collections) while `during` runs. */
async function longestBlock(during: () => Promise<void>): Promise<number> {
  const pauses: Array<[number, number]> = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
  });
  gc.observe({ entryTypes: ['gc'] });
  const blocks: Array<[number, number, number]> = [];
  let last = performance.now();
  let lastCpu = threadCpuMs()!;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs()!;
    blocks.push([last, now, cpu - lastCpu]);
    last = now;
    lastCpu = cpu;
  }, 1);
  try {
    await during();
  } finally {
    clearInterval(timer);
  }
  // The observer's entries come after the fact.
  await new Promise((r) => setTimeout(r, 50));
  gc.disconnect();
  let longest = 0;
  for (const [from, to, cpu] of blocks) {
    let collecting = 0;
    for (const [start, end] of pauses) collecting += Math.max(0, Math.min(to, end) - Math.max(from, start));
    longest = Math.max(longest, cpu - collecting);
  }
  return longest;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('a 100,000-key create holds the event loop for no long block', { timeout: 180_000, skip: threadCpuMs() === undefined ? 'needs Linux per-thread CPU times' : false }, async () => {
  const keys: string[] = [];
  for (let i = 0; i < 100_000; i++) keys.push(`"k${i}":"v"`);
  const body = Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"keys-"},"data":{${keys.join(',')}}}`);
  // Warm-up (module loading, JIT, the decode worker's start), not measured.
  assert.equal(await send(body), 201);
  const blocks: number[] = [];
  for (let i = 0; i < CREATES; i++) {
    blocks.push(
      await longestBlock(async () => {
        assert.equal(await send(body), 201);
      }),
    );
  }
  const shown = blocks.map((b) => b.toFixed(1)).join(', ');
  console.log(`# a create's longest block of the loop (CPU ms, collections excluded): ${shown}; median ${median(blocks).toFixed(1)} ms (bound ${BLOCK_MS} ms)`);
  assert.ok(median(blocks) < BLOCK_MS, `a create's longest block of the loop: median ${median(blocks).toFixed(1)} ms over ${CREATES} creates (${shown}), bound ${BLOCK_MS} ms`);
});
