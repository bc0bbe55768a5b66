// apiary beside kube-apiserver 1.32 in one run, as a user meets them: HTTPS,
// a bearer token, RBAC deciding for a user bound to `edit` (its two aggregated
// parts) in the namespaces it uses (issue 30's measure). Three servers:
//   - apiary on its own etcd 3.5 (`serve --storage etcd`);
//   - apiary on its embedded SQLite store (`serve`, durable writes);
//   - kube-apiserver 1.32.4 on its own etcd 3.5, with the kube-controller-manager
//     of the differential pass beside it (test/compat/differential/reference.ts).
// Operations, driven by wrk at concurrency 32: creates of 1 KiB ConfigMaps,
// gets of one, and lists of a namespace holding 500 of them. Rounds rotate
// which server goes first; the table gives median rates, the median of the
// per-round ratios to kube-apiserver, and CPU per request of each server with
// its etcd (from /proc: the apiserver process, its TLS front and its etcd).
// On a machine shared with other work compare ratios and CPU, not rates.
//
// Needs wrk and the reference binaries (`node scripts/run-tests.mjs differential`
// builds them into test/compat/*/bin).
//
// Each burst starts once the whole machine is quiet (--settle off: at once), so
// what one server does after its burst (a collection, kube-controller-manager
// catching up on the objects made) is not charged to the next one's.
//
// --accept-encoding gzip: every measured request asks for compressed answers, as
// client-go and kubectl do (wrk does not by itself); both servers then gzip
// answers over 128 KiB (the lists). The payload (`x` repeated) compresses far
// better than real objects, so this shows the cost of compressing, not its gain.
//
//   node --import tsx bench/versus-upstream.ts [--seconds 3] [--rounds 3] [--warmup 3000] [--warmup-seconds 10] [--ops create,get,list] [--servers etcd,sqlite] [--settle off] [--accept-encoding gzip]

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { startEtcd, type EtcdCluster } from '../test/helpers/etcd.js';
import { REFERENCE_BINARIES, referenceBinariesMissing, startReference } from '../test/compat/differential/reference.js';
import { childPids, cpuSeconds, fmt, median, pidWith, waitForQuietMachine } from './lib.js';
import { requireWrk, runWrk, type WrkRequest } from './wrk.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    ops: { type: 'string', default: 'create,get,list' },
    servers: { type: 'string', default: 'etcd,sqlite' },
    settle: { type: 'string', default: 'on' },
    warmup: { type: 'string', default: '3000' },
    'warmup-seconds': { type: 'string', default: '10' },
    'accept-encoding': { type: 'string' },
  },
});
const acceptEncoding: Record<string, string> = values['accept-encoding'] === undefined ? {} : { 'Accept-Encoding': values['accept-encoding'] };
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const warmupSeconds = Number(values['warmup-seconds']);
const OPS = values.ops!.split(',') as Array<'create' | 'get' | 'list'>;
const REPO = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-token-0123456789abcdef';
const USER = 'bench-user';
const NS = 'bench';
const LIST_NS = 'bench-list';
const LISTED = 500;
const payload = 'x'.repeat(1024);

interface Server {
  name: string;
  origin: string;
  /** Setup requests: an admin's credentials. */
  admin: Agent;
  adminHeaders: Record<string, string>;
  /** The processes whose CPU counts: apiserver (and its TLS front, found when read) and etcd. */
  pids: () => number[];
  /** Its etcd's process, also counted in pids() (its CPU is printed apart too). */
  etcdPid: number | undefined;
  stop: () => Promise<void>;
}

requireWrk();
const missing = referenceBinariesMissing();
if (missing.length > 0) throw new Error(`reference binaries missing (node scripts/run-tests.mjs differential builds them): ${missing.join(', ')}`);
execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json')], { stdio: 'inherit' });

async function startApiaryServer(storage: 'etcd' | 'sqlite'): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), `apiary-versus-${storage}-`));
  writeFileSync(join(dataDir, 'tokens.csv'), `${TOKEN},${USER},bench-uid\n`);
  let etcd: EtcdCluster | undefined;
  const storageArgs: string[] = [];
  if (storage === 'etcd') {
    etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
    storageArgs.push('--storage', 'etcd', '--etcd-servers', etcd.endpoints[0]!);
  }
  const proc = spawnNode(
    [join(REPO, 'dist/cli/main.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--token-auth-file', join(dataDir, 'tokens.csv'), '--log-level', 'warn', ...storageArgs],
    { stderr: 'inherit' },
    `apiary serve (${storage})`,
  );
  const origin = await proc.url;
  const admin = new Agent({
    connect: {
      ca: readFileSync(join(dataDir, 'pki/ca.crt'), 'utf8'),
      cert: readFileSync(join(dataDir, 'pki/admin.crt'), 'utf8'),
      key: readFileSync(join(dataDir, 'pki/admin.key'), 'utf8'),
    },
  });
  const etcdPid = etcd === undefined ? undefined : pidWith(etcd.dataDirs[0]!);
  const pid = proc.child.pid!;
  return {
    name: `apiary (${storage === 'etcd' ? 'etcd 3.5' : 'SQLite'})`,
    origin,
    admin,
    adminHeaders: {},
    pids: () => [pid, ...childPids(pid), ...(etcdPid === undefined ? [] : [etcdPid])],
    etcdPid,
    stop: async () => {
      await admin.close();
      await proc.stop('SIGTERM');
      await etcd?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startUpstream(): Promise<Server> {
  const cluster = await startReference({ extraTokens: [`${TOKEN},${USER},bench-uid`] });
  const admin = new Agent({ connect: { rejectUnauthorized: false } });
  const etcdPid = pidWith(cluster.etcdDataDirs![0]!);
  const pid = cluster.apiserverPid!;
  return {
    name: 'kube-apiserver 1.32 (etcd 3.5)',
    origin: cluster.target.base,
    admin,
    adminHeaders: { authorization: `Bearer ${cluster.target.token}` },
    pids: () => [pid, ...(etcdPid === undefined ? [] : [etcdPid])],
    etcdPid,
    stop: async () => {
      await admin.close();
      await cluster.stop();
    },
  };
}

async function send(s: Server, method: 'POST' | 'GET', path: string, body?: unknown): Promise<number> {
  const res = await request(s.origin + path, {
    method,
    dispatcher: s.admin,
    headers: { ...s.adminHeaders, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300 && res.statusCode !== 409) throw new Error(`${s.name}: ${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return res.statusCode;
}

/** The namespaces, the user's `edit` bindings, the object to get and the 500 to list. */
async function setUp(s: Server): Promise<void> {
  for (const ns of [NS, LIST_NS]) {
    await send(s, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    // `edit` is aggregated: kube-apiserver's has rules only once kube-controller-manager's
    // clusterrole-aggregation controller fills them (the reference runs without it). Its two
    // parts are bootstrap roles with their rules written out, the same on both servers.
    for (const role of ['system:aggregate-to-edit', 'system:aggregate-to-view']) {
      await send(s, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        metadata: { name: `bench-${role.slice('system:aggregate-to-'.length)}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
      });
    }
  }
  await send(s, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'probe' }, data: { payload } });
  for (let i = 0; i < LISTED; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, j) => send(s, 'POST', `/api/v1/namespaces/${LIST_NS}/configmaps`, { metadata: { name: `listed-${i + j}` }, data: { payload } })),
    );
  }
}

function requestFor(op: 'create' | 'get' | 'list', tag: string): WrkRequest {
  const headers = { Authorization: `Bearer ${TOKEN}`, ...acceptEncoding };
  if (op === 'get') return { method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps/probe`, headers };
  if (op === 'list') return { method: 'GET', path: `/api/v1/namespaces/${LIST_NS}/configmaps`, headers };
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${tag}-{i}` }, data: { payload } });
  return { method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body, headers };
}

const cpuOf = (s: Server): number => s.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
const etcdCpuOf = (s: Server): number => (s.etcdPid === undefined ? 0 : cpuSeconds(s.etcdPid));

const servers: Server[] = [];
try {
  for (const storage of values.servers!.split(',').filter((x) => x !== '')) servers.push(await startApiaryServer(storage as 'etcd' | 'sqlite'));
  servers.push(await startUpstream());
  const upstream = servers[servers.length - 1]!;
  for (const s of servers) await setUp(s);
  // The user's access on each (RBAC bindings reach an authorizer's cache a moment after they are written).
  for (const s of servers) {
    for (let attempt = 0; ; attempt++) {
      const res = await request(`${s.origin}/api/v1/namespaces/${NS}/configmaps/probe`, { dispatcher: s.admin, headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await res.body.text();
      if (res.statusCode === 200) break;
      if (attempt === 50) throw new Error(`${s.name}: the bench user's GET answered ${res.statusCode}: ${text.slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  // The lists compared hold the same items: print each server's answer size (kube-apiserver's managedFields and timestamps are alike).
  for (const s of servers) {
    const res = await request(`${s.origin}/api/v1/namespaces/${LIST_NS}/configmaps`, { dispatcher: s.admin, headers: { authorization: `Bearer ${TOKEN}`, ...acceptEncoding } });
    const body = Buffer.from(await res.body.arrayBuffer());
    const text = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString();
    const items = (JSON.parse(text) as { items: unknown[] }).items.length;
    console.log(`${s.name}: a list answers ${body.length} bytes, ${items} items, content-encoding ${res.headers['content-encoding'] ?? 'none'}`);
  }
  // Warm-up, not measured: V8 compiles apiary's hot paths after some thousands of
  // requests, so each server gets --warmup requests of each operation (by count: on a
  // loaded machine a timed warm-up alone leaves the JIT cold), and for at least
  // --warmup-seconds: a young apiary process runs its first seconds of load slower
  // (creates on SQLite: 1,200-2,900/s in the first second after start, 5,500-6,600
  // later, bench/README.md), which 2 s of warm-up left in the measured rounds.
  for (const s of servers) {
    for (const op of OPS) {
      let sent = 0;
      const started = performance.now();
      for (let burst = 0; sent < warmup || performance.now() - started < warmupSeconds * 1000; burst++) {
        sent += (await runWrk(s.origin, { concurrency: 32, seconds: 2 }, requestFor(op, `warm${servers.indexOf(s)}b${burst}`))).requests;
      }
    }
  }

  type Row = { rate: number[]; cpuUs: number[]; etcdUs: number[]; ratio: number[]; cpuRatio: number[]; errors: number; others: number[] };
  const rows = new Map<string, Row>();
  const row = (op: string, s: Server): Row => {
    const key = `${op}\u0000${s.name}`;
    let r = rows.get(key);
    if (r === undefined) rows.set(key, (r = { rate: [], cpuUs: [], etcdUs: [], ratio: [], cpuRatio: [], errors: 0, others: [] }));
    return r;
  };
  const settled: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const op of OPS) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
      const got = new Map<Server, { rps: number; cpuUs: number }>();
      for (const s of order) {
        // The other servers' leftovers (a collection after their burst, kube-controller-manager catching up) stay out of this one's burst.
        if (values.settle !== 'off') settled.push(await waitForQuietMachine());
        const before = cpuOf(s);
        const etcdBefore = etcdCpuOf(s);
        // The idle servers' own work during this burst (their collections, controllers, etcd): it competes for the same cores.
        const bystanders = (): number => servers.reduce((sum, o) => (o === s ? sum : sum + cpuOf(o)), 0);
        const othersBefore = bystanders();
        const burstStarted = performance.now();
        const r = await runWrk(s.origin, { concurrency: 32, seconds }, requestFor(op, `r${round}s${servers.indexOf(s)}`));
        const othersCores = (bystanders() - othersBefore) / ((performance.now() - burstStarted) / 1000);
        // A phase in which no request completed (a starved machine) has no CPU per request.
        if (r.requests === 0) console.error(`${s.name}: no ${op} completed in ${seconds} s (round ${round + 1})`);
        const cpuUs = r.requests === 0 ? NaN : ((cpuOf(s) - before) / r.requests) * 1e6;
        got.set(s, { rps: r.rps, cpuUs });
        const x = row(op, s);
        x.rate.push(r.rps);
        x.cpuUs.push(cpuUs);
        x.etcdUs.push(r.requests === 0 ? NaN : ((etcdCpuOf(s) - etcdBefore) / r.requests) * 1e6);
        x.errors += r.errors;
        x.others.push(othersCores);
      }
      const base = got.get(upstream)!;
      for (const s of servers) {
        row(op, s).ratio.push(got.get(s)!.rps / base.rps);
        row(op, s).cpuRatio.push(got.get(s)!.cpuUs / base.cpuUs);
      }
    }
  }
  console.log(`\nconcurrency 32, ${rounds} rounds of ${seconds} s per operation and server; HTTPS, bearer token, RBAC (user bound to edit); lists of ${LISTED} ConfigMaps of 1 KiB`);
  console.log('CPU: the apiserver process with its TLS front and its etcd; ratios are medians of per-round ratios to kube-apiserver');
  if (values.settle !== 'off') {
    const sorted = [...settled].sort((x, y) => x - y);
    console.log(`each burst began once the machine was quiet (under 0.15 cores busy for 300 ms; --settle off: at once): waited median ${fmt(median(sorted))} ms, longest ${fmt(sorted[sorted.length - 1] ?? 0)} ms`);
  }
  console.log('');
  console.log('| operation | server | req/s | × kube-apiserver | CPU µs/req (with etcd) | of which etcd | CPU × kube-apiserver | errors | the other servers meanwhile, cores (median / most) |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const op of OPS) {
    for (const s of servers) {
      const r = row(op, s);
      const known = (xs: number[]): number[] => xs.filter((x) => Number.isFinite(x));
      console.log(
        `| ${op} | ${s.name} | ${fmt(median(r.rate))} | ${fmt(median(r.ratio), 2)} | ${fmt(median(known(r.cpuUs)))} | ${fmt(median(known(r.etcdUs)))} | ${fmt(median(known(r.cpuRatio)), 2)} | ${r.errors} | ${fmt(median(r.others), 2)} / ${fmt(Math.max(...r.others), 2)} |`,
      );
    }
  }
} finally {
  for (const s of servers) await s.stop();
}
