// The noisy neighbour (issue 29): tenant A reads while tenant B is loud.
//
// Tenant A GETs one ConfigMap of its namespace at concurrency 4 (a closed
// loop). Its p99 latency and throughput are measured three ways, each for
// --seconds:
//   - solo:    A alone (the ceiling the other two are compared with);
//   - flood:   B creates small ConfigMaps in its own namespace at concurrency 64;
//   - maximal: B sends maximal bodies back to back (one at a time): a
//              ConfigMap of 100,000 keys, a million list elements, a million
//              owner references, a 10,000-deep merge patch (each near the
//              3 MiB body limit).
// The same run measures apiary (`apiary serve`, sqlite, built with tsc) and
// kube-apiserver 1.32.4 on etcd 3.5 (test/compat/differential/reference.ts).
// Printed: medians over --rounds of A's p99 and requests/s, and their ratios
// to solo (targets: p99 within 2x solo, throughput at least 70 % of solo).
//
// Both tenants are the same user here (apiary without authentication, the
// reference's system:masters token): what keeps one user's flood from
// another's requests is API Priority and Fairness, built on its own branch;
// the maximal-body part measures the event loop, which needs no user.
//
//   node --import tsx bench/noisy-neighbour.ts [--seconds 5] [--rounds 1] [--only apiary|reference]

import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { referenceBinariesMissing, startReference } from '../test/compat/differential/reference.js';
import { fmt, median, percentile, startApiary } from './lib.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);

interface Target {
  name: string;
  origin: string;
  token?: string;
}

function pool(target: Target, connections: number): Pool {
  return new Pool(target.origin, { connections, pipelining: 1, connect: { rejectUnauthorized: false } });
}

function headers(target: Target, contentType?: string): Record<string, string> {
  const h: Record<string, string> = {};
  if (target.token !== undefined) h['authorization'] = `Bearer ${target.token}`;
  if (contentType !== undefined) h['content-type'] = contentType;
  return h;
}

async function call(p: Pool, target: Target, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: string | Buffer, contentType = 'application/json'): Promise<number> {
  const res = await p.request({ method, path, body, headers: headers(target, body === undefined ? undefined : contentType) });
  await res.body.dump();
  return res.statusCode;
}

const A = 'tenant-a';
const B = 'tenant-b';

async function prepare(target: Target): Promise<void> {
  const p = pool(target, 1);
  for (const ns of [A, B]) await call(p, target, 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  await call(p, target, 'POST', `/api/v1/namespaces/${A}/configmaps`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'read-me' }, data: { a: 'b' } }));
  await call(p, target, 'POST', `/api/v1/namespaces/${B}/configmaps`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patch-me' }, data: { a: 'b' } }));
  await p.close();
}

interface Measure {
  p99: number;
  rps: number;
  errors: number;
}

/** Tenant A's closed loop of GETs for `seconds`. */
async function tenantA(target: Target): Promise<Measure> {
  const p = pool(target, 4);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          if ((await call(p, target, 'GET', `/api/v1/namespaces/${A}/configmaps/read-me`)) !== 200) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await p.close();
  latencies.sort((x, y) => x - y);
  return { p99: percentile(latencies, 0.99), rps: latencies.length / elapsed, errors };
}

/** Tenant B's load until `stop` is set: workers each sending `next()` in a loop. */
async function tenantB(target: Target, concurrency: number, next: (i: number) => { method: 'POST' | 'PATCH'; path: string; body: Buffer; contentType: string }, stop: { done: boolean }): Promise<number> {
  const p = pool(target, concurrency);
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!stop.done) {
        const r = next(sent++);
        try {
          await call(p, target, r.method, r.path, r.body, r.contentType);
        } catch {
          // B's failures are B's business; A is measured.
        }
      }
    }),
  );
  await p.close();
  return sent;
}

function maximalBodies(): Array<{ method: 'POST' | 'PATCH'; path: string; body: Buffer; contentType: string }> {
  const keys: string[] = [];
  for (let i = 0; i < 100_000; i++) keys.push(`"k${i}":"v"`);
  const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
  const cm = `/api/v1/namespaces/${B}/configmaps`;
  return [
    { method: 'POST', path: cm, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"keys-"},"data":{${keys.join(',')}}}`), contentType: 'application/json' },
    { method: 'POST', path: cm, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"list-"},"x":[${new Array(1_000_000).fill('0').join(',')}]}`), contentType: 'application/json' },
    { method: 'POST', path: cm, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"own-","ownerReferences":[${new Array(1_000_000).fill('{}').join(',')}]}}`), contentType: 'application/json' },
    { method: 'PATCH', path: `${cm}/patch-me`, body: Buffer.from(`{"metadata":{"annotations":${deep}}}`), contentType: 'application/merge-patch+json' },
  ];
}

async function withB(target: Target, concurrency: number, next: Parameters<typeof tenantB>[2]): Promise<Measure & { bSent: number }> {
  const stop = { done: false };
  const b = tenantB(target, concurrency, next, stop);
  // Let B's load build up before A is measured.
  await new Promise((r) => setTimeout(r, 500));
  const a = await tenantA(target);
  stop.done = true;
  return { ...a, bSent: await b };
}

async function measure(target: Target): Promise<Record<'solo' | 'flood' | 'maximal', Measure[]>> {
  await prepare(target);
  const out: Record<'solo' | 'flood' | 'maximal', Measure[]> = { solo: [], flood: [], maximal: [] };
  const small = (i: number) => ({ method: 'POST' as const, path: `/api/v1/namespaces/${B}/configmaps`, body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `flood-${Date.now()}-${i}` }, data: { k: 'v' } })), contentType: 'application/json' });
  const bodies = maximalBodies();
  for (let round = 0; round < rounds; round++) {
    out.solo.push(await tenantA(target));
    const flood = await withB(target, 64, small);
    out.flood.push(flood);
    const maximal = await withB(target, 1, (i) => bodies[i % bodies.length]!);
    out.maximal.push(maximal);
    console.error(`  ${target.name} round ${round + 1}: solo p99 ${fmt(out.solo.at(-1)!.p99, 1)} ms; flood p99 ${fmt(flood.p99, 1)} ms (B sent ${flood.bSent}); maximal p99 ${fmt(maximal.p99, 1)} ms (B sent ${maximal.bSent})`);
  }
  return out;
}

const results: Array<[string, Record<'solo' | 'flood' | 'maximal', Measure[]>]> = [];
if (values.only !== 'reference') {
  const apiary = await startApiary({ storage: 'sqlite' });
  try {
    results.push(['apiary', await measure({ name: 'apiary', origin: apiary.origin })]);
  } finally {
    await apiary.stop();
  }
}
if (values.only !== 'apiary') {
  const missing = referenceBinariesMissing();
  if (missing.length > 0) console.error(`reference skipped: missing ${missing.join(', ')}`);
  else {
    const reference = await startReference();
    try {
      results.push(['kube-apiserver 1.32.4', await measure({ name: 'reference', origin: reference.target.base, token: reference.target.token! })]);
    } finally {
      await reference.stop();
    }
  }
}

console.log(`\nnoisy neighbour: tenant A GETs at concurrency 4, ${seconds} s per phase, medians of ${rounds} round(s)`);
console.log('server                 phase     A p99 ms   A req/s   p99 / solo   req/s / solo   A errors');
for (const [name, r] of results) {
  const soloP99 = median(r.solo.map((m) => m.p99));
  const soloRps = median(r.solo.map((m) => m.rps));
  for (const phase of ['solo', 'flood', 'maximal'] as const) {
    const p99 = median(r[phase].map((m) => m.p99));
    const rps = median(r[phase].map((m) => m.rps));
    const errors = r[phase].reduce((n, m) => n + m.errors, 0);
    console.log(
      `${name.padEnd(22)} ${phase.padEnd(9)} ${fmt(p99, 1).padStart(9)} ${fmt(rps).padStart(9)} ${fmt(p99 / soloP99, 2).padStart(11)}x ${fmt((100 * rps) / soloRps).padStart(12)} % ${String(errors).padStart(9)}`,
    );
  }
}
