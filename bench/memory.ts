// Memory per stored object (issue 30, part 4): apiary on SQLite, apiary on etcd
// 3.5 and kube-apiserver 1.32.4 on etcd 3.5, one after the other in one run.
// Each server gets NAMESPACES namespaces, settles, and its RSS is read; then
// OBJECTS objects spread over those namespaces are created (--kinds, round
// robin: ConfigMaps of 1 KiB data by default; Secrets, RoleBindings),
// the server settles again and the RSS is read again. The growth per 100,000
// objects is printed per process (API server, its TLS front, etcd, and
// kube-controller-manager for the reference, whose controllers apiary runs
// in its API server) and for API server + etcd (the issue's figure; target:
// apiary at most half of kube-apiserver + etcd).
//
// apiary runs with a probe (bench/memory-probe.cjs, preloaded with --expose-gc
// into the main thread and the etcd client thread): the plain RSS is read
// first, then a full GC is forced in every thread and the RSS read again
// ("after a full GC") with V8's heap figures per thread. The API server's RSS
// is split by mapping (smaps): malloc's brk heap (the main thread's arena),
// its other arenas (other threads'), other anonymous memory (V8's heaps,
// malloc's large blocks), files. With --heap-summary a heap
// snapshot is summarised by constructor too (self size per object, top rows),
// to show where the bytes go per object; the snapshot generator's own memory
// then stays in the process, so RSS figures of such a run are not comparable.
// Go's RSS is read after the same settling time (Go returns freed memory lazily too).
//
//   node --import tsx bench/memory.ts [--servers sqlite,etcd,kube] [--objects 100000] [--namespaces 20] [--kinds configmaps,secrets,rolebindings] [--heap-summary] [--top 25]

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { spawnNode, type ApiaryProcess } from '../test/helpers/apiary-process.js';
import { startEtcd, type EtcdCluster } from '../test/helpers/etcd.js';
import { REFERENCE_BINARIES, referenceBinariesMissing, startReference, type ReferenceCluster } from '../test/compat/differential/reference.js';
import { readEtcdStore, type EtcdStore } from './etcd-store.js';
import { buildOnce, childPids, fmt, pidWith, readRss, waitReadyz } from './lib.js';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'sqlite,etcd,kube' },
    /**
     * Objects created. The issue's unit is RSS per 100,000 objects, so that many by default: with
     * fewer, what a burst of writes leaves behind whatever it wrote (V8's grown new space, malloc's
     * arenas, the TLS front's buffers for 32 connections; some 30-40 MiB for apiary, the Go heap's
     * slack for the reference) is scaled up with the objects (x3.3 at 30,000).
     */
    objects: { type: 'string', default: '100000' },
    namespaces: { type: 'string', default: '20' },
    /** The kinds created, round robin: configmaps (1 KiB data), secrets (the same data, base64), rolebindings (one subject). */
    kinds: { type: 'string', default: 'configmaps' },
    concurrency: { type: 'string', default: '32' },
    /** Also summarise a heap snapshot by constructor (its generator's memory then stays in the RSS figures). */
    'heap-summary': { type: 'boolean', default: false },
    /** Rows of the heap summary. */
    top: { type: 'string', default: '25' },
    /**
     * Seconds to wait for the servers to settle before reading RSS: long enough for apiary's
     * quiet-time collection and its follow-up (10 quiet seconds each, src/storage/startup-gc.ts),
     * as for Go's background scavenger.
     */
    settle: { type: 'string', default: '25' },
  },
});
const OBJECTS = Number(values.objects);
const NAMESPACES = Number(values.namespaces);
const CONCURRENCY = Number(values.concurrency);
const TOP = Number(values.top);
const HEAP_SUMMARY = values['heap-summary'];
const SETTLE_MS = Number(values.settle) * 1000;
const REPO = new URL('..', import.meta.url).pathname;
const MiB = 1024 * 1024;
/** 1 KiB of data per ConfigMap. */
const DATA = { a: 'x'.repeat(512), b: 'y'.repeat(500), c: 'some-config-value' };
const KINDS = values.kinds.split(',').map((k) => k.trim());
const base64 = (data: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
/** The path and body of the i-th object. */
function objectFor(i: number): { path: string; body: unknown } {
  const ns = nsName(i % NAMESPACES);
  const metadata = { name: `obj-${i}`, labels: { app: 'memory-bench' } };
  switch (KINDS[i % KINDS.length]) {
    case 'secrets':
      return { path: `/api/v1/namespaces/${ns}/secrets`, body: { metadata, data: base64(DATA) } };
    case 'rolebindings':
      return {
        path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
        body: { metadata, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` }] },
      };
    default:
      return { path: `/api/v1/namespaces/${ns}/configmaps`, body: { metadata, data: DATA } };
  }
}

interface Proc {
  role: string;
  pid: () => number | undefined;
}

interface Server {
  name: string;
  origin: string;
  agent: Agent;
  headers: Record<string, string>;
  procs: Proc[];
  /** The etcd's client URL (etcd servers): what it stores is read before and after the load. */
  etcdEndpoint?: string;
  /** Stops the API server and starts it again on the same store (etcd keeps running); resolves once /readyz is 200. */
  restart: () => Promise<void>;
  /** apiary only: forces a full GC and returns process.memoryUsage() and V8's heap statistics. */
  gc?: () => Promise<Probe>;
  /** apiary only: writes a heap snapshot and returns its path. */
  snapshot?: () => Promise<string>;
  stop: () => Promise<void>;
}

async function startApiaryServer(storage: 'etcd' | 'sqlite'): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), `apiary-memory-${storage}-`));
  const snapDir = join(dataDir, 'snapshots');
  mkdirSync(snapDir);
  let etcd: EtcdCluster | undefined;
  const storageArgs: string[] = [];
  if (storage === 'etcd') {
    // The same flags as the reference's etcd (test/compat/differential/reference.ts): both servers' stores run alike.
    etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
    storageArgs.push('--storage', 'etcd', '--etcd-servers', etcd.endpoints[0]!);
  }
  const probe = join(snapDir, 'probe.json');
  process.env.APIARY_MEMORY_PROBE = probe;
  const launch = (): ApiaryProcess => spawnNode(
    [
      '--expose-gc',
      '--require',
      join(REPO, 'bench/memory-probe.cjs'),
      ...(process.env.APIARY_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
      join(REPO, 'dist/cli/main.js'),
      ...['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
      ...storageArgs,
      ...(process.env.APIARY_SERVE_ARGS ?? '').split(' ').filter((a) => a !== ''),
    ],
    { stderr: 'inherit', urlTimeoutMs: 300_000 },
    `apiary serve (${storage})`,
  );
  let proc = launch();
  const origin = await proc.url;
  let pid = proc.child.pid!;
  const agent = new Agent({
    connect: {
      ca: readFileSync(join(dataDir, 'pki/ca.crt'), 'utf8'),
      cert: readFileSync(join(dataDir, 'pki/admin.crt'), 'utf8'),
      key: readFileSync(join(dataDir, 'pki/admin.key'), 'utf8'),
    },
  });
  const server: Server = {
    name: storage === 'etcd' ? 'apiary (etcd 3.5)' : 'apiary (SQLite)',
    origin,
    agent,
    headers: {},
    ...(etcd === undefined ? {} : { etcdEndpoint: etcd.endpoints[0]! }),
    procs: [
      { role: 'API server', pid: () => pid },
      { role: 'TLS front', pid: () => childPids(pid)[0] },
      ...(etcd === undefined ? [] : [{ role: 'etcd', pid: () => pidWith(etcd!.dataDirs[0]!) }]),
    ],
    gc: async () => {
      rmSync(probe, { force: true });
      process.kill(pid, 'SIGUSR2');
      return JSON.parse(await waitFile(probe)) as Probe;
    },
    snapshot: async () => {
      rmSync(`${probe}.snapshot`, { force: true });
      process.kill(pid, 'SIGTTIN');
      return waitFile(`${probe}.snapshot`, 600_000);
    },
    restart: async () => {
      await proc.stop('SIGTERM');
      proc = launch();
      server.origin = await proc.url;
      pid = proc.child.pid!;
      await waitReadyz(server.origin, server.agent, server.headers);
    },
    stop: async () => {
      await agent.close();
      await proc.stop('SIGTERM');
      await etcd?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await waitReadyz(server.origin, server.agent, server.headers);
  return server;
}

interface ProbeFigures {
  memory: NodeJS.MemoryUsage;
  heap: { total_heap_size: number; used_heap_size: number; malloced_memory: number; external_memory: number };
  spaces: Array<{ space_name: string; space_size: number; space_used_size: number }>;
}

/** The figures after the probe's full GC, and (newer probes) the same just before it. */
interface Probe extends ProbeFigures {
  before?: ProbeFigures;
  /** The same per worker thread (the etcd client's). */
  threads?: Array<ProbeFigures & { threadId: number; before?: ProbeFigures }>;
}

/** The text of a file written (renamed into place) by the probe. */
async function waitFile(path: string, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      if (Date.now() > deadline) throw new Error(`${path} not written in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function startUpstream(): Promise<Server> {
  const cluster: ReferenceCluster = await startReference({});
  const etcdDir = cluster.etcdDataDirs![0]!;
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  return {
    name: 'kube-apiserver 1.32 (etcd 3.5)',
    origin: cluster.target.base,
    agent,
    headers: { authorization: `Bearer ${cluster.target.token}` },
    etcdEndpoint: cluster.etcdEndpoints![0]!,
    procs: [
      { role: 'API server', pid: () => cluster.apiserverPid },
      { role: 'etcd', pid: () => pidWith(etcdDir) },
      { role: 'kube-controller-manager', pid: () => pidWith(cluster.kubeconfig!) },
    ],
    restart: () => cluster.restartApiserver!(),
    stop: async () => {
      await agent.close();
      await cluster.stop();
    },
  };
}

async function create(s: Server, path: string, body: unknown): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await request(s.origin + path, {
      method: 'POST',
      dispatcher: s.agent,
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode < 300 || res.statusCode === 409) return;
    if (attempt < 50 && (res.statusCode === 404 || res.statusCode === 429 || res.statusCode >= 500)) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    throw new Error(`${s.name}: POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  }
}

const nsName = (i: number): string => `mem-${String(i).padStart(4, '0')}`;

async function loadConfigMaps(s: Server): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < OBJECTS) {
      const i = next++;
      const { path, body } = objectFor(i);
      await create(s, path, body);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
}

type Rss = Map<string, number>;

/** glibc's non-main malloc arenas are mappings of HEAP_MAX_SIZE (64 MiB on 64-bit) at an address aligned to it. */
const ARENA = 64 * MiB;

/**
 * Resident bytes of a process by kind of mapping, from /proc/PID/smaps:
 * malloc's brk heap (the main arena), malloc's other arenas (64 MiB aligned
 * reservations: one per thread that mallocs, at most 8 per core), other
 * anonymous mappings (V8's heaps, malloc's large blocks), files.
 */
function smaps(pid: number): { brk: number; arenas: number; anon: number; file: number } {
  const out = { brk: 0, arenas: 0, anon: 0, file: 0 };
  const maps: Array<{ start: number; end: number; perms: string; name: string; rss: number }> = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head !== null) {
      maps.push({ start: parseInt(head[1]!, 16), end: parseInt(head[2]!, 16), perms: head[3]!, name: head[4]!, rss: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null && maps.length > 0) maps[maps.length - 1]!.rss += Number(rss[1]) * 1024;
  }
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i]!;
    if (m.name === '[heap]') out.brk += m.rss;
    else if (m.name !== '' && !m.name.startsWith('[')) out.file += m.rss;
    else {
      // An arena: rw-p from an aligned start, then (unless full) its ---p rest, 64 MiB in all.
      const next = maps[i + 1];
      const span = next !== undefined && next.start === m.end && next.perms === '---p' && next.name === '' ? next.end - m.start : m.end - m.start;
      if (m.name === '' && m.perms === 'rw-p' && m.start % ARENA === 0 && span === ARENA) out.arenas += m.rss;
      else out.anon += m.rss;
    }
  }
  return out;
}

function readAll(s: Server): Rss {
  const out: Rss = new Map();
  for (const p of s.procs) {
    const pid = p.pid();
    const rss = pid === undefined ? NaN : readRss(pid);
    out.set(p.role, Number.isFinite(rss) ? rss : 0);
    if (p.role === 'API server' && s.gc !== undefined && pid !== undefined) {
      const m = smaps(pid);
      out.set('  of which malloc brk heap', m.brk);
      out.set('  of which malloc arenas', m.arenas);
      out.set('  of which other anonymous mappings', m.anon);
      out.set('  of which files', m.file);
    }
    if (p.role === 'etcd' && pid !== undefined) {
      // bbolt reads its database through a mapping: what a read touched stays resident (file pages), beside the Go heap.
      const m = smaps(pid);
      out.set('  etcd: its database, mapped', m.file);
      out.set('  etcd: anonymous (Go heap, raft log)', m.brk + m.arenas + m.anon);
    }
  }
  return out;
}

/** A heap snapshot's self sizes summed by node type and name (constructor for objects), largest first. */
function summarise(path: string): { total: number; rows: Array<{ what: string; count: number; bytes: number }> } {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const stride = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const sums = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const size = snap.nodes[i + sizeAt]!;
    total += size;
    let name = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden' || type === 'array' ? snap.strings[snap.nodes[i + nameAt]!]! : '';
    if (type === 'array' || type === 'hidden') name = name.replace(/\d+/g, 'N');
    if (name.length > 60) name = name.slice(0, 57) + '...';
    const key = `${type}${name === '' ? '' : ` ${name}`}`;
    const row = sums.get(key) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += size;
    sums.set(key, row);
  }
  const rows = [...sums.entries()].map(([what, r]) => ({ what, ...r })).sort((a, b) => b.bytes - a.bytes);
  return { total, rows };
}

interface Result {
  name: string;
  before: Rss;
  after: Rss;
  beforeGc?: Rss;
  afterGc?: Rss;
  probeBefore?: Probe;
  probeAfter?: Probe;
  heapBefore?: ReturnType<typeof summarise>;
  heapAfter?: ReturnType<typeof summarise>;
  /** After a restart on the same store (kube-controller-manager keeps running). */
  restarted: Rss;
  restartedGc?: Rss;
  probeRestarted?: Probe;
  /** What the etcd stored before and after the load, and after the restart. */
  storeBefore?: EtcdStore;
  storeAfter?: EtcdStore;
  storeRestarted?: EtcdStore;
}

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
}

/** RSS as it is, then (apiary) after a full GC with V8's figures, then (--heap-summary) a heap snapshot's summary. */
async function readState(s: Server): Promise<{ rss: Rss; gcRss?: Rss; probe?: Probe; heap?: ReturnType<typeof summarise> }> {
  const rss = readAll(s);
  if (s.gc === undefined) return { rss };
  const probe = await s.gc();
  const gcRss = readAll(s);
  if (!HEAP_SUMMARY || s.snapshot === undefined) return { rss, gcRss, probe };
  const file = await s.snapshot();
  const heap = summarise(file);
  rmSync(file);
  return { rss, gcRss, probe, heap };
}

async function run(s: Server): Promise<Result> {
  console.error(`  ${s.name}: started`);
  for (let i = 0; i < NAMESPACES; i++) await create(s, '/api/v1/namespaces', { metadata: { name: nsName(i) } });
  await settle();
  const b = await readState(s);
  const storeBefore = s.etcdEndpoint === undefined ? undefined : await readEtcdStore(s.etcdEndpoint);
  const t0 = performance.now();
  await loadConfigMaps(s);
  console.error(`  ${s.name}: ${OBJECTS} objects (${KINDS.join(', ')}) in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  await settle();
  const a = await readState(s);
  const storeAfter = s.etcdEndpoint === undefined ? undefined : await readEtcdStore(s.etcdEndpoint);
  await s.restart();
  await settle();
  const restarted = readAll(s);
  const probeRestarted = s.gc === undefined ? undefined : await s.gc();
  const restartedGc = s.gc === undefined ? undefined : readAll(s);
  const storeRestarted = s.etcdEndpoint === undefined ? undefined : await readEtcdStore(s.etcdEndpoint);
  return {
    storeBefore,
    storeAfter,
    storeRestarted,
    name: s.name,
    before: b.rss,
    after: a.rss,
    beforeGc: b.gcRss,
    afterGc: a.gcRss,
    probeBefore: b.probe,
    probeAfter: a.probe,
    heapBefore: b.heap,
    heapAfter: a.heap,
    restarted,
    restartedGc,
    probeRestarted,
  };
}

const selected = values.servers.split(',').map((s) => s.trim());
if (selected.some((s) => s !== 'sqlite')) {
  const missing = referenceBinariesMissing();
  if (missing.length > 0) throw new Error(`reference binaries missing (node scripts/run-tests.mjs differential builds them): ${missing.join(', ')}`);
}
buildOnce();
const results: Result[] = [];
for (const which of selected) {
  const s = which === 'kube' ? await startUpstream() : await startApiaryServer(which === 'etcd' ? 'etcd' : 'sqlite');
  try {
    results.push(await run(s));
  } finally {
    await s.stop();
  }
}

const per100k = (bytes: number): string => fmt(((bytes / OBJECTS) * 100_000) / MiB);
const growth = (a: Rss, b: Rss, role: string): number => (b.get(role) ?? 0) - (a.get(role) ?? 0);
const API = ['API server', 'TLS front', 'etcd'];
const MiBs = (rss: Rss): string => [...rss].map(([k, v]) => `${k.trim()} ${fmt(v / MiB)}`).join(', ');

console.log(`\n## RSS growth per 100,000 objects (${KINDS.join(', ')}, round robin; ${fmt(OBJECTS)} created in ${NAMESPACES} namespaces), MiB\n`);
console.log(`load: ${readFileSync('/proc/loadavg', 'utf8').trim()}\n`);
console.log(`| process | ${results.map((r) => r.name).join(' | ')} |`);
console.log(`|---|${results.map(() => '---:').join('|')}|`);
const roles = [...new Set(results.flatMap((r) => [...r.after.keys()]))];
for (const role of roles) console.log(`| ${role} | ${results.map((r) => (r.after.has(role) ? per100k(growth(r.before, r.after, role)) : '–')).join(' | ')} |`);
const apiTotal = (r: Result, a: Rss, b: Rss): number => API.reduce((sum, role) => sum + growth(a, b, role), 0);
console.log(`| **API server + TLS front + etcd** | ${results.map((r) => `**${per100k(apiTotal(r, r.before, r.after))}**`).join(' | ')} |`);
console.log(`| the same, apiary after a full GC | ${results.map((r) => (r.beforeGc && r.afterGc ? per100k(apiTotal(r, r.beforeGc, r.afterGc)) : '–')).join(' | ')} |`);
console.log(`| **the same, API server restarted on the store** | ${results.map((r) => `**${per100k(apiTotal(r, r.before, r.restarted))}**`).join(' | ')} |`);
console.log(`| the same, restarted, apiary after a full GC | ${results.map((r) => (r.beforeGc && r.restartedGc ? per100k(apiTotal(r, r.beforeGc, r.restartedGc)) : '–')).join(' | ')} |`);
const kube = results.find((r) => r.name.startsWith('kube'));
if (kube !== undefined) {
  const ref = apiTotal(kube, kube.before, kube.after);
  const refRestarted = apiTotal(kube, kube.before, kube.restarted);
  console.log(`| ratio to kube-apiserver + etcd (target ≤ 0.5) | ${results.map((r) => fmt(apiTotal(r, r.before, r.after) / ref, 2)).join(' | ')} |`);
  console.log(`| the same, restarted | ${results.map((r) => fmt(apiTotal(r, r.before, r.restarted) / refRestarted, 2)).join(' | ')} |`);
}
for (const r of results) {
  console.log(`\n${r.name}, RSS (MiB):`);
  console.log(`- before the load: ${MiBs(r.before)}`);
  if (r.beforeGc) console.log(`- before, after a full GC: ${MiBs(r.beforeGc)}`);
  console.log(`- after the load: ${MiBs(r.after)}`);
  if (r.afterGc) console.log(`- after, after a full GC: ${MiBs(r.afterGc)}`);
  console.log(`- restarted: ${MiBs(r.restarted)}`);
  if (r.restartedGc) console.log(`- restarted, after a full GC: ${MiBs(r.restartedGc)}`);
}

for (const r of results) {
  if (r.probeBefore === undefined || r.probeAfter === undefined) continue;
  const [pb, pa] = [r.probeBefore, r.probeAfter];
  console.log(`\n## ${r.name}: V8 after a full GC, before → after the load (MiB; per 100,000 objects)\n`);
  const line = (what: string, x: number, y: number): void => console.log(`- ${what}: ${fmt(x / MiB)} → ${fmt(y / MiB)} (${per100k(y - x)})`);
  line('heap used', pb.heap.used_heap_size, pa.heap.used_heap_size);
  line('heap committed', pb.heap.total_heap_size, pa.heap.total_heap_size);
  line('external (Buffers, ...)', pb.memory.external, pa.memory.external);
  line('malloced by V8', pb.heap.malloced_memory, pa.heap.malloced_memory);
  if (pa.before !== undefined && pb.before !== undefined) {
    line('heap used, before the forced GC', pb.before.heap.used_heap_size, pa.before.heap.used_heap_size);
    line('heap committed, before the forced GC', pb.before.heap.total_heap_size, pa.before.heap.total_heap_size);
  }
  if (r.probeRestarted !== undefined) {
    line('heap used, restarted', pb.heap.used_heap_size, r.probeRestarted.heap.used_heap_size);
    line('heap committed, restarted', pb.heap.total_heap_size, r.probeRestarted.heap.total_heap_size);
    line('external, restarted', pb.memory.external, r.probeRestarted.memory.external);
    const unforced = r.probeRestarted.before;
    if (unforced !== undefined) {
      line('heap used, restarted, before the forced GC', pb.heap.used_heap_size, unforced.heap.used_heap_size);
      line('heap committed, restarted, before the forced GC', pb.heap.total_heap_size, unforced.heap.total_heap_size);
    }
  }
  const threadLine = (what: string, p: Probe | undefined): void => {
    for (const t of p?.threads ?? []) {
      const unforced = t.before === undefined ? '' : ` (before the forced GC: used ${fmt(t.before.heap.used_heap_size / MiB)}, committed ${fmt(t.before.heap.total_heap_size / MiB)})`;
      console.log(`- worker thread ${t.threadId}, ${what}: heap used ${fmt(t.heap.used_heap_size / MiB)}, committed ${fmt(t.heap.total_heap_size / MiB)}, external ${fmt(t.memory.external / MiB)}, malloced by V8 ${fmt(t.heap.malloced_memory / MiB)}${unforced}`);
    }
  };
  threadLine('before the load', pb);
  threadLine('after the load', pa);
  threadLine('restarted', r.probeRestarted);
  for (const space of pa.spaces) {
    const old = pb.spaces.find((x) => x.space_name === space.space_name);
    const unforced = pa.before?.spaces.find((x) => x.space_name === space.space_name);
    const beforeGc = unforced === undefined ? '' : ` (before the forced GC: used ${fmt(unforced.space_used_size / MiB)}, committed ${fmt(unforced.space_size / MiB)})`;
    console.log(`  - ${space.space_name}: used ${fmt((old?.space_used_size ?? 0) / MiB)} → ${fmt(space.space_used_size / MiB)}, committed ${fmt((old?.space_size ?? 0) / MiB)} → ${fmt(space.space_size / MiB)}${beforeGc}`);
  }
}

for (const r of results) {
  if (r.heapBefore === undefined || r.heapAfter === undefined) continue;
  const before = new Map(r.heapBefore.rows.map((row) => [row.what, row]));
  console.log(`\n## ${r.name}: V8 heap growth by constructor (self size), per object\n`);
  console.log(`heap (live, after GC): ${fmt(r.heapBefore.total / MiB)} → ${fmt(r.heapAfter.total / MiB)} MiB, ${fmt((r.heapAfter.total - r.heapBefore.total) / OBJECTS)} bytes per object\n`);
  console.log('| what | count per object | bytes per object |');
  console.log('|---|---:|---:|');
  const diffs = r.heapAfter.rows
    .map((row) => ({ what: row.what, count: row.count - (before.get(row.what)?.count ?? 0), bytes: row.bytes - (before.get(row.what)?.bytes ?? 0) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, TOP);
  for (const d of diffs) console.log(`| ${d.what.replace(/\|/g, '\\|')} | ${fmt(d.count / OBJECTS, 2)} | ${fmt(d.bytes / OBJECTS)} |`);
}

const stores = results.filter((r) => r.storeBefore !== undefined && r.storeAfter !== undefined);
if (stores.length > 0) {
  console.log(`\n## What each etcd stores: growth over the load (per object created), and after the restart\n`);
  console.log(`| | ${stores.map((r) => r.name).join(' | ')} |`);
  console.log(`|---|${stores.map(() => '---:').join('|')}|`);
  const row = (what: string, f: (r: Result) => string): void => console.log(`| ${what} | ${stores.map(f).join(' | ')} |`);
  const per = (x: number): string => fmt(x / OBJECTS, 2);
  row('revisions per object', (r) => per(r.storeAfter!.revision - r.storeBefore!.revision));
  row('raft entries per object', (r) => per(r.storeAfter!.raftIndex - r.storeBefore!.raftIndex));
  row('revisions per object during the restart', (r) => per((r.storeRestarted?.revision ?? NaN) - r.storeAfter!.revision));
  row('database size, MiB per 100,000', (r) => per100k(r.storeAfter!.dbSize - r.storeBefore!.dbSize));
  row('database in use, MiB per 100,000', (r) => per100k(r.storeAfter!.dbSizeInUse - r.storeBefore!.dbSizeInUse));
  row('leases after the load', (r) => String(r.storeAfter!.leases));
  const prefixes = [...new Set(stores.flatMap((r) => [...r.storeAfter!.prefixes.keys()]))];
  const grown = (r: Result, p: string): { keys: number; bytes: number } => {
    const [x, y] = [r.storeBefore!.prefixes.get(p) ?? { keys: 0, bytes: 0 }, r.storeAfter!.prefixes.get(p) ?? { keys: 0, bytes: 0 }];
    return { keys: y.keys - x.keys, bytes: y.bytes - x.bytes };
  };
  for (const p of prefixes) {
    if (!stores.some((r) => grown(r, p).keys !== 0)) continue;
    row(`${p}: keys added, mean value bytes`, (r) => {
      const g = grown(r, p);
      return g.keys === 0 ? '–' : `${g.keys}, ${fmt(g.bytes / g.keys)}`;
    });
  }
}
