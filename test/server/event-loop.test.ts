// No request holds the event loop (issue 29, part 2): while one client sends
// maximal requests back to back — a ConfigMap of 100,000 keys, a million
// list elements, a million owner references, 10,000-deep nesting, each a
// body near the 3 MiB limit — another client's small GETs keep being served.
//
// The server runs in a process of its own (`apiary serve --storage memory`),
// so its stalls cannot stall the test's clients. The small GETs are sent on a
// fixed schedule (every 25 ms, not waiting for the previous one): a stall
// delays every GET sent during it and shows in the percentiles. Each maximal
// request is also checked for its answer.
// Bounds allow for a 2-core machine shared with other work (a ratio, and a
// median): before the fixes the 100,000-key create alone held the loop for
// 8–22 s (quadratic field lookups) and every GET sent meanwhile waited for
// it, and a million owner references ended in a 500 (stack overflow).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiary, type ApiaryProcess } from '../helpers/apiary-process.js';
import { request } from '../helpers/http.js';

let server: ApiaryProcess & { origin: string };
let dataDir: string;
const NS = '/api/v1/namespaces/noisy';
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-event-loop-'));
  server = await startApiary(['serve', '--port', '0', '--data-dir', dataDir, '--storage', 'memory', '--controllers=false', '--log-level', 'warn']);
  await request(server.origin, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'noisy' } } });
  await request(server.origin, 'POST', `${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' }, data: { a: 'b' } } });
});
after(async () => {
  agent.destroy();
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Sends a request and reads its status; the body is drained, not kept (the client must not be the one stalling). */
function send(method: string, path: string, body?: Buffer, contentType = 'application/json'): Promise<number> {
  const url = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (body !== undefined) Object.assign(headers, { 'content-type': contentType, 'content-length': body.length });
    const req = http.request({ host: url.hostname, port: url.port, path, method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function maximalBodies(): Array<{ title: string; method: string; path: string; body: Buffer; contentType?: string; expect: number }> {
  const keys: string[] = [];
  for (let i = 0; i < 100_000; i++) keys.push(`"k${i}":"v"`);
  const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
  return [
    { title: '100,000 data keys', method: 'POST', path: `${NS}/configmaps`, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"keys-"},"data":{${keys.join(',')}}}`), expect: 201 },
    { title: '1,000,000 list elements', method: 'POST', path: `${NS}/configmaps`, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"list-"},"x":[${new Array(1_000_000).fill('0').join(',')}]}`), expect: 201 },
    { title: '1,000,000 owner references', method: 'POST', path: `${NS}/configmaps`, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"own-","ownerReferences":[${new Array(1_000_000).fill('{}').join(',')}]}}`), expect: 422 },
    { title: '10,000-deep merge patch', method: 'PATCH', path: `${NS}/configmaps/small`, body: Buffer.from(`{"metadata":{"annotations":${deep}}}`), contentType: 'application/merge-patch+json', expect: 400 },
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

test('small GETs are served while maximal requests arrive back to back', { timeout: 240_000 }, async () => {
  const bodies = maximalBodies();
  // Warm up every path once (module loading, JIT), not measured.
  for (const b of bodies) assert.equal(await send(b.method, b.path, b.body, b.contentType), b.expect, b.title);

  const report: string[] = [];
  for (const b of bodies) {
    const latencies: number[] = [];
    const pending: Array<Promise<void>> = [];
    let answeredDuring = 0;
    let done = false;
    const timer = setInterval(() => {
      pending.push(
        (async () => {
          const start = performance.now();
          assert.equal(await send('GET', `${NS}/configmaps/small`), 200);
          latencies.push(performance.now() - start);
          if (!done) answeredDuring++;
        })(),
      );
    }, 25);
    const start = performance.now();
    const status = await send(b.method, b.path, b.body, b.contentType);
    done = true;
    const ms = performance.now() - start;
    clearInterval(timer);
    await Promise.all(pending);
    assert.equal(status, b.expect, b.title);
    const sorted = [...latencies].sort((x, y) => x - y);
    report.push(`${b.title}: ${Math.round(ms)} ms, ${answeredDuring}/${sorted.length} GETs answered during it, p50 ${Math.round(percentile(sorted, 50))} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms`);
    // The loop was not held: most GETs sent while the maximal request was in
    // flight were answered before it was (one synchronous block would answer
    // none of those sent after its body arrived). A ratio, not a time: it
    // holds on a loaded machine as on an idle one.
    if (sorted.length >= 8) {
      assert.ok(answeredDuring >= sorted.length * 0.4, `${b.title}: only ${answeredDuring} of ${sorted.length} GETs answered while it ran`);
      // Large requests pause between stages for twice the stage's length:
      // most GETs arrive in a pause and are answered at once. (The slowest
      // waits for one stage, which on a loaded 2-core machine can take a second.)
      assert.ok(percentile(sorted, 50) < 100, `${b.title}: median GET latency ${Math.round(percentile(sorted, 50))} ms`);
    }
  }
  for (const line of report) console.log(`# ${line}`);
});
