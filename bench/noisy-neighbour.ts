// The noisy neighbour (issue 29): tenant A reads while tenant B is loud.
//
// Tenant A GETs one ConfigMap of its namespace at concurrency 4 (a closed
// loop). Its p99 latency and throughput are measured three ways, each for
// --seconds:
//   - solo:    A alone (the ceiling the other two are compared with);
//   - flood:   B creates small ConfigMaps in its own namespace at concurrency 64;
//   - elsewhere: the same flood sent to a second apiary on the same machine
//              (apiary only; --no-elsewhere skips it): what A loses there is
//              the machine's part of the flood's cost (two cores shared by
//              both servers, their TLS fronts and the load generators),
//              which no fairness inside the server can give back; what A
//              loses beyond it under 'flood' is the server's part;
//   - maximal: B sends maximal bodies back to back (one at a time): a
//              ConfigMap of 100,000 keys, a million list elements, a million
//              owner references, a 10,000-deep merge patch (each near the
//              3 MiB body limit).
// The same run measures apiary (`apiary serve` as shipped: HTTPS, tokens,
// RBAC; sqlite; built with tsc) and kube-apiserver 1.32.4 on etcd 3.5
// (test/compat/differential/reference.ts).
// Printed: medians over --rounds of A's p99 and requests/s, and their ratios
// to solo (targets: p99 within 2x solo, throughput at least 70 % of solo).
//
// A and B are different ordinary users (bearer tokens from the same
// --token-auth-file on both servers), each bound to a Role over configmaps in
// its own namespace only. Neither is in system:masters (exempt from priority
// and fairness): both fall into the global-default priority level, whose
// flows are distinguished by user, so APF's fair queuing separates them.
//
// With upstream's 600 seats alone, B's 64 creates never
// queue (global-default's 49 nominal seats borrow the others' idle ones;
// kube-apiserver behaves the same), and A's requests share the one event loop
// with all of B's in-flight work. Sizing the seats to the loop
// (--max-requests-inflight 8 --max-mutating-requests-inflight 4) made B queue
// but did not help A (its requests waited for one of B's to free a seat). So
// apiary adds a dispatch limit that follows the event loop
// (src/server/flowcontrol/loop-limit.ts): it grows while the loop has idle
// time (I/O waits) and shrinks when a busy loop's timers run late past 2 ms;
// it is shared max-min fairly by the active flows, weighed by each flow's
// loop time per request (loop-cost.ts), so B, past its share, waits in APF's
// fair queues while A (under its share) starts at once. A count cannot go
// below one, and one create at a time still took most of the loop (B 61 %,
// A 22 % of it, profiled), so the flows also share the loop's time
// (loop-share.ts): while A, which has no backlog, wants the loop, B is held to
// its part of a budget of loop time even with nothing in flight. Printed
// with the flood's line: the limit and the loop's delay at the phase's end.
// Profile the server with APIARY_BENCH_CPU_PROF=<dir>.
//
// The load comes from wrk (bench/wrk.ts: C, one thread; A's 4 connections and
// B's 64 cost about a tenth of a core), so that A's figures measure the
// server rather than a generator competing with it for the two cores;
// --client node uses the earlier undici generator (B in a forked process).
// Printed per phase: the cores the server's processes (apiary with its TLS
// front; kube-apiserver with etcd) and the generators used.
//
//   node --import tsx bench/noisy-neighbour.ts [--seconds 5] [--rounds 1] [--only apiary|reference] [--client wrk|node] [--no-elsewhere] [--no-flood]
// APIARY_BENCH_DIST=<dir> runs apiary from that build instead of building dist/ (A/B of two builds in one sitting).

import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { referenceBinariesMissing, startReference } from '../test/compat/differential/reference.js';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { childPids, cpuSeconds, fmt, median, percentile, pidWith } from './lib.js';
import { requireWrk, runWrk } from './wrk.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
    client: { type: 'string', default: 'wrk' },
    'no-elsewhere': { type: 'boolean', default: false },
    'no-flood': { type: 'boolean', default: false },
  },
});
/** wrk (default): both tenants' load from C, cheap on 2 cores; node: undici in Node processes (the earlier sessions' generator). */
const client = values.client === 'node' ? 'node' : 'wrk';
if (client === 'wrk') requireWrk();
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);

interface Target {
  name: string;
  origin: string;
  token: string;
  /** The server's processes (whose CPU is counted per phase). */
  pids?: () => number[];
}

/** Bearer tokens of the run: an admin (setup only) and the two tenants. */
const TOKENS = { admin: randomBytes(16).toString('hex'), a: randomBytes(16).toString('hex'), b: randomBytes(16).toString('hex') };
const TENANT_TOKEN_LINES = [`${TOKENS.a},tenant-a,tenant-a-uid`, `${TOKENS.b},tenant-b,tenant-b-uid`];

function pool(target: Target, connections: number): Pool {
  return new Pool(target.origin, { connections, pipelining: 1, connect: { rejectUnauthorized: false } });
}

function headers(target: Target, contentType?: string): Record<string, string> {
  const h: Record<string, string> = {};
  h['authorization'] = `Bearer ${target.token}`;
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

/** As the admin: the tenants' namespaces, each tenant bound to `edit` in its own; then each tenant's own objects. */
async function prepare(admin: Target): Promise<{ a: Target; b: Target }> {
  const p = pool(admin, 1);
  const must = async (status: Promise<number>, what: string): Promise<void> => {
    const s = await status;
    if (s !== 201) throw new Error(`${admin.name}: ${what}: ${s}`);
  };
  for (const ns of [A, B]) {
    await must(call(p, admin, 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })), `namespace ${ns}`);
    // A Role of its own rather than the `edit` ClusterRole: the reference runs without the aggregation controller that fills `edit`'s rules.
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }] };
    await must(call(p, admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, JSON.stringify(role)), `role in ${ns}`);
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: ns }] };
    await must(call(p, admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, JSON.stringify(binding)), `rolebinding in ${ns}`);
  }
  await p.close();
  const a: Target = { ...admin, token: TOKENS.a };
  const b: Target = { ...admin, token: TOKENS.b };
  // RBAC caches may take a moment to see the bindings.
  for (const [t, ns, name] of [[a, A, 'read-me'], [b, B, 'patch-me']] as const) {
    const tp = pool(t, 1);
    for (let i = 0; ; i++) {
      const s = await call(tp, t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } }));
      if (s === 201) break;
      if (i > 100) throw new Error(`${admin.name}: ${ns} cannot create its configmap: ${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // A tenant may not read the other's namespace (the users are really apart).
    const other = ns === A ? B : A;
    const s = await call(tp, t, 'GET', `/api/v1/namespaces/${other}/configmaps`);
    if (s !== 403) throw new Error(`${admin.name}: ${ns} reads ${other}: ${s}`);
    await tp.close();
  }
  return { a, b };
}

interface Measure {
  p99: number;
  /** A's slowest request: how long one stage of a maximal body can hold the loop. */
  max: number;
  rps: number;
  errors: number;
  /** CPU used during A's measurement, in cores: the server's processes, and A's (+ B's) load generator. */
  serverCores: number;
  clientCores: number;
}

function serverCpu(target: Target): number {
  return (target.pids?.() ?? []).reduce((sum, pid) => sum + (cpuSeconds(pid) || 0), 0);
}

/** Tenant A's closed loop of GETs for `seconds`, with the server's CPU over it. */
async function tenantA(target: Target): Promise<Measure> {
  const cpu0 = serverCpu(target);
  const t0 = performance.now();
  const m = client === 'wrk' ? await tenantAWrk(target) : await tenantANode(target);
  const wall = (performance.now() - t0) / 1000;
  return { ...m, serverCores: (serverCpu(target) - cpu0) / wall, clientCores: m.clientCores / wall };
}

async function tenantAWrk(target: Target): Promise<Measure> {
  const r = await runWrk(target.origin, { concurrency: 4, seconds }, { method: 'GET', path: `/api/v1/namespaces/${A}/configmaps/read-me`, headers: { Authorization: `Bearer ${target.token}` } });
  return { p99: r.p99ms, max: r.maxMs, rps: r.rps, errors: r.errors, serverCores: 0, clientCores: r.cpuSeconds };
}

async function tenantANode(target: Target): Promise<Measure> {
  const cpu0 = process.cpuUsage();
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
  const cpu = process.cpuUsage(cpu0);
  return { p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? NaN, rps: latencies.length / elapsed, errors, serverCores: 0, clientCores: (cpu.user + cpu.system) / 1e6 };
}

/** Tenant B's load until `stop` is set: workers each sending `next()` in a loop. */
async function tenantB(target: Target, concurrency: number, next: (i: number) => { method: 'POST' | 'PATCH'; path: string; body: Buffer; contentType: string }, stop: { done: boolean }): Promise<BResult> {
  const p = pool(target, concurrency);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let sent = 0;
  let rejected = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!stop.done) {
        const r = next(sent++);
        try {
          if ((await call(p, target, r.method, r.path, r.body, r.contentType)) === 429) rejected++;
        } catch {
          // B's failures are B's business; A is measured.
        }
      }
    }),
  );
  await p.close();
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { sent, rejected, cores: (cpu.user + cpu.system) / 1e6 / elapsed, rps: sent / elapsed };
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

type BKind = 'flood' | 'maximal';
/** B's requests, those not answered 2xx (429s, for wrk any non-2xx), the cores its client used and its rate. */
interface BResult {
  sent: number;
  rejected: number;
  cores: number;
  rps: number;
}
interface BJob {
  origin: string;
  token: string;
  kind: BKind;
}

const B_JOB_ENV = 'APIARY_NOISY_NEIGHBOUR_B';

/**
 * Tenant B's load in a process of its own (this file, forked): B's client
 * work (64 connections' TLS, bodies of megabytes) must not slow A's client
 * loop, or A's latencies would measure this process rather than the server.
 */
function startB(b: Target, kind: BKind): { stop(): Promise<BResult> } {
  if (kind === 'flood' && client === 'wrk') return startBWrk(b);
  const job: BJob = { origin: b.origin, token: b.token, kind };
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, [B_JOB_ENV]: JSON.stringify(job) } });
  const result = new Promise<BResult>((resolve, reject) => {
    child.once('message', (m) => resolve(m as BResult));
    child.once('exit', (code) => reject(new Error(`tenant B exited with ${code}`)));
  });
  return {
    stop: async () => {
      child.send('stop');
      return await result;
    },
  };
}

/**
 * B's flood from wrk: 64 connections in one C thread, each creating
 * ConfigMaps named by wrk's counter (bench/wrk.ts). It runs a second before
 * and after A's phase (wrk runs whole seconds).
 */
function startBWrk(b: Target): { stop(): Promise<BResult> } {
  const duration = Math.ceil(seconds) + 2;
  const started = performance.now();
  const run = runWrk(b.origin, { concurrency: 64, seconds: duration }, {
    method: 'POST',
    path: `/api/v1/namespaces/${B}/configmaps`,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `flood-${randomBytes(4).toString('hex')}-{i}` }, data: { k: 'v' } }),
    headers: { Authorization: `Bearer ${b.token}` },
  });
  return {
    stop: async () => {
      const r = await run;
      return { sent: r.requests, rejected: r.errors, cores: r.cpuSeconds / ((performance.now() - started) / 1000), rps: r.rps };
    },
  };
}

async function runB(job: BJob): Promise<void> {
  const target: Target = { name: 'b', origin: job.origin, token: job.token };
  const stop = { done: false };
  process.once('message', () => {
    stop.done = true;
  });
  const small = (i: number) => ({ method: 'POST' as const, path: `/api/v1/namespaces/${B}/configmaps`, body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `flood-${Date.now()}-${i}` }, data: { k: 'v' } })), contentType: 'application/json' });
  const bodies = job.kind === 'maximal' ? maximalBodies() : [];
  const r = job.kind === 'flood' ? await tenantB(target, 64, small, stop) : await tenantB(target, 1, (i) => bodies[i % bodies.length]!, stop);
  process.send!(r, () => process.disconnect());
}

/** apiary's dispatch limit and loop delay (its /metrics, read as the admin) at the end of a phase; '' elsewhere. */
async function loopState(admin: Target): Promise<string> {
  const p = pool(admin, 1);
  try {
    const res = await p.request({ method: 'GET', path: '/metrics', headers: headers(admin) });
    const text = await res.body.text();
    const limit = /^apiary_flowcontrol_dispatch_limit (\S+)$/m.exec(text)?.[1];
    const delay = /^apiary_flowcontrol_event_loop_delay_seconds (\S+)$/m.exec(text)?.[1];
    return limit === undefined ? '' : `, dispatch limit ${limit}, loop delay ${fmt(Number(delay) * 1000, 1)} ms`;
  } finally {
    await p.close();
  }
}

async function withB(admin: Target, a: Target, b: Target, kind: BKind): Promise<Measure & { bSent: number; bRejected: number; bRps: number; state: string }> {
  const bLoad = startB(b, kind);
  // Let B's load build up before A is measured.
  await new Promise((r) => setTimeout(r, 1000));
  const measured = await tenantA(a);
  const state = await loopState(admin);
  const bDone = await bLoad.stop();
  return { ...measured, clientCores: measured.clientCores + bDone.cores, bSent: bDone.sent, bRejected: bDone.rejected, bRps: bDone.rps, state };
}

type Phase = 'solo' | 'flood' | 'elsewhere' | 'maximal';

/** `twin`: a second server of the same kind, where the 'elsewhere' phase sends B's flood. */
async function measure(admin: Target, twin?: Target): Promise<Record<Phase, Measure[]>> {
  const { a, b } = await prepare(admin);
  const twinB = twin !== undefined ? (await prepare(twin)).b : undefined;
  const target = admin;
  const out: Record<Phase, Measure[]> = { solo: [], flood: [], elsewhere: [], maximal: [] };
  for (let round = 0; round < rounds; round++) {
    out.solo.push(await tenantA(a));
    const flood = values['no-flood'] ? undefined : await withB(admin, a, b, 'flood');
    if (flood !== undefined) out.flood.push(flood);
    const elsewhere = twinB !== undefined ? await withB(admin, a, twinB, 'flood') : undefined;
    if (elsewhere !== undefined) out.elsewhere.push(elsewhere);
    const maximal = await withB(admin, a, b, 'maximal');
    out.maximal.push(maximal);
    const solo = out.solo.at(-1)!;
    const cores = (m: Measure): string => `cores: server ${fmt(m.serverCores, 2)}, clients ${fmt(m.clientCores, 2)}`;
    console.error(`  ${target.name} round ${round + 1}: solo p99 ${fmt(solo.p99, 1)} ms, ${fmt(solo.rps)}/s (${cores(solo)})${flood !== undefined ? `; flood p99 ${fmt(flood.p99, 1)} ms, ${fmt(flood.rps)}/s (${cores(flood)}; B ${fmt(flood.bRps)}/s, sent ${flood.bSent}, ${flood.bRejected} not 2xx${flood.state})` : ''}${elsewhere !== undefined ? `; elsewhere p99 ${fmt(elsewhere.p99, 1)} ms, ${fmt(elsewhere.rps)}/s (${cores(elsewhere)}; B ${fmt(elsewhere.bRps)}/s)` : ''}; maximal p99 ${fmt(maximal.p99, 1)} ms (B sent ${maximal.bSent})`);
  }
  return out;
}

/** `apiary serve` as shipped (HTTPS, the token file, RBAC) from tsc's output, on sqlite. */
async function startSecureApiary(build = true): Promise<{ origin: string; pid: number; stop(): Promise<void> }> {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  // APIARY_BENCH_DIST=<dir>: run that build (e.g. a copy of an earlier dist/, for A/B in one sitting) instead of building dist/.
  const dist = process.env.APIARY_BENCH_DIST;
  if (build && dist === undefined) execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(repo, 'tsconfig.build.json')], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-bench-noisy-'));
  const tokens = join(dataDir, 'tokens.csv');
  writeFileSync(tokens, [`${TOKENS.admin},bench-admin,bench-admin-uid,"system:masters"`, ...TENANT_TOKEN_LINES].join('\n') + '\n', { mode: 0o600 });
  const proc = spawnNode(
    [
      // APIARY_BENCH_CPU_PROF=<dir>: profile the server (as bench/lib.ts's startApiary does).
      ...(process.env.APIARY_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.APIARY_BENCH_CPU_PROF] : []),
      join(dist ?? join(repo, 'dist'), 'cli/main.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--storage', 'sqlite', '--token-auth-file', tokens, '--log-level', 'warn', ...(process.env.APIARY_SERVE_ARGS ?? '').split(' ').filter((x) => x !== '')],
    { stderr: 'inherit' },
    'apiary serve',
  );
  const origin = await proc.url;
  return {
    origin,
    pid: proc.child.pid!,
    stop: async () => {
      await proc.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const results: Array<[string, Record<Phase, Measure[]>]> = [];
  if (values.only !== 'reference') {
    const apiary = await startSecureApiary();
    const twin = !values['no-elsewhere'] ? await startSecureApiary(false) : undefined;
    try {
      const target = (server: { origin: string; pid: number }, name: string): Target => ({ name, origin: server.origin, token: TOKENS.admin, pids: () => [server.pid, ...childPids(server.pid)] });
      results.push(['apiary', await measure(target(apiary, 'apiary'), twin !== undefined ? target(twin, 'apiary twin') : undefined)]);
    } finally {
      await twin?.stop();
      await apiary.stop();
    }
  }
  if (values.only !== 'apiary') {
    const missing = referenceBinariesMissing();
    if (missing.length > 0) console.error(`reference skipped: missing ${missing.join(', ')}`);
    else {
      const reference = await startReference({ extraTokens: TENANT_TOKEN_LINES });
      try {
        const etcdPids = (reference.etcdDataDirs ?? []).map((dir) => pidWith(dir)).filter((pid): pid is number => pid !== undefined);
        const pids = (): number[] => [...(reference.apiserverPid !== undefined ? [reference.apiserverPid] : []), ...etcdPids];
        results.push(['kube-apiserver 1.32.4', await measure({ name: 'reference', origin: reference.target.base, token: reference.target.token!, pids })]);
      } finally {
        await reference.stop();
      }
    }
  }

  console.log(`\nnoisy neighbour: tenant A GETs at concurrency 4, ${seconds} s per phase, medians of ${rounds} round(s)`);
  console.log(`A and B's load from ${client === 'wrk' ? 'wrk' : 'Node (undici)'}; cores: CPU used during A's phase by the server's processes / by the load generators (2 cores in all)`);
  console.log('server                 phase     A p99 ms   A max ms   A req/s   p99 / solo   req/s / solo   A errors   server cores   client cores');
  for (const [name, r] of results) {
    const soloP99 = median(r.solo.map((m) => m.p99));
    const soloRps = median(r.solo.map((m) => m.rps));
    for (const phase of ['solo', 'flood', 'elsewhere', 'maximal'] as const) {
      if (r[phase].length === 0) continue;
      const p99 = median(r[phase].map((m) => m.p99));
      const max = Math.max(...r[phase].map((m) => m.max));
      const rps = median(r[phase].map((m) => m.rps));
      const errors = r[phase].reduce((n, m) => n + m.errors, 0);
      const serverCores = median(r[phase].map((m) => m.serverCores));
      const clientCores = median(r[phase].map((m) => m.clientCores));
      console.log(
        `${name.padEnd(22)} ${phase.padEnd(9)} ${fmt(p99, 1).padStart(9)} ${fmt(max, 1).padStart(10)} ${fmt(rps).padStart(9)} ${fmt(p99 / soloP99, 2).padStart(11)}x ${fmt((100 * rps) / soloRps).padStart(12)} % ${String(errors).padStart(9)} ${fmt(serverCores, 2).padStart(14)} ${fmt(clientCores, 2).padStart(14)}`,
      );
    }
  }
}

const bJob = process.env[B_JOB_ENV];
if (bJob === undefined) await main();
else await runB(JSON.parse(bJob) as BJob);
