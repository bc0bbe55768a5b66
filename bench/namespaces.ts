// Namespace scale (issue 30, parts 3 and 4): apiary on SQLite, apiary on etcd 3.5
// and kube-apiserver 1.32.4 on etcd 3.5, one after the other in one run. Each
// kind runs twice side by side, one loaded with SMALL namespaces (100) and one
// with LARGE (10,000; --quick 1,000), and both are measured in alternating
// batches (--rounds), so that the ratio compares sizes, not the shared
// machine's load minutes apart (--sequential: one server loaded with SMALL,
// measured, grown to LARGE, measured again, as before). Every namespace holds
// 10 ConfigMaps and 2 RoleBindings: `bench-edit` binds the ClusterRole
// system:aggregate-to-edit to the user `bench-user` (one user bound in every
// namespace), `bench-view` binds system:aggregate-to-view to `bench-user` and
// `user-<i>` (a user bound in one namespace only).
//
// Measured at both sizes, sequentially (one request in flight, medians of
// --samples requests over random namespaces), as `bench-user` over HTTPS with a
// bearer token so RBAC decides every request:
//   - list: GET a namespace's ConfigMaps (target: LARGE within 1.5x of SMALL);
//   - create: POST a ConfigMap into a namespace (target: within 1.2x);
//   - get: GET one ConfigMap (RBAC for a non-admin user);
//   - SubjectAccessReview (admin asks): bench-user allowed in a random namespace,
//     user-<i> allowed in its own, user-<i> denied in another (target: flat);
//   - RSS of the server process(es) after the load and after a restart, per
//     stored object and per 100,000 objects (part 4: apiary at most half of
//     kube-apiserver+etcd), counting the objects the servers hold;
//   - restart: the API server stopped and started again on the same store
//     (etcd keeps running), until /readyz answers 200 and a list answers;
// and at LARGE size only: DELETE of DELETED namespaces (1,000; --quick 100) at
// once, until the namespace controller has removed them all.
//
// --deletion: only the mass deletion, side by side: each server is loaded with
// --large namespaces (default 1,000; the same content), --deleted of them
// (default all) are DELETEd at once, and the time until the namespace controller
// has removed them all is printed per server, with namespaces per second and
// the ratio to kube-apiserver. The API server is restarted between the load and
// the deletion, as in the full run. kube-controller-manager runs with its
// default client QPS (20) as shipped.
//
// --startup: only the start time, side by side: each server is loaded with
// --large namespaces (default 10,000), then its API server is restarted
// --restarts times (default 3) on that store; per restart, the time until it
// listens (apiary: prints its URL, which waits for the system namespaces), until
// /readyz answers 200 and until a namespaced list answers; medians. With
// --store DIR (SQLite only) the store is kept in DIR and reused by the next run
// (loaded only when DIR holds none), to measure start-up changes quickly.
//
// Needs the reference binaries (`node scripts/run-tests.mjs differential` builds
// them into test/compat/*/bin).
//
//   node --import tsx bench/namespaces.ts [--quick] [--servers sqlite,etcd,kube] [--large 10000] [--samples 300] [--rounds 6] [--sequential] [--concurrency 48] [--json FILE]
//   node --import tsx bench/namespaces.ts --servers '' --include a.json,b.json   (earlier runs' results side by side)
//   node --import tsx bench/namespaces.ts --deletion [--large 1000] [--deleted 1000] [--servers sqlite,etcd,kube]
//   node --import tsx bench/namespaces.ts --startup [--large 10000] [--restarts 3] [--servers sqlite,etcd,kube] [--store DIR]

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { spawnNode, type ApiaryProcess } from '../test/helpers/apiary-process.js';
import { startEtcd, type EtcdCluster } from '../test/helpers/etcd.js';
import { REFERENCE_BINARIES, referenceBinariesMissing, startReference, type ReferenceCluster } from '../test/compat/differential/reference.js';
import { buildOnce, childPids, cpuSeconds, fmt, percentile, pidWith, readRss, waitReadyz } from './lib.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    /** Only the mass deletion (see the header). */
    deletion: { type: 'boolean', default: false },
    /** Only the start time on a filled store (see the header). */
    startup: { type: 'boolean', default: false },
    restarts: { type: 'string', default: '3' },
    /** One server grown from --small to --large namespaces (the measurements minutes apart) instead of two side by side. */
    sequential: { type: 'boolean', default: false },
    /** Paired run: batches per probe, alternating between the two servers. */
    rounds: { type: 'string', default: '6' },
    /** --startup on SQLite: keep the store here and reuse it. */
    store: { type: 'string' },
    servers: { type: 'string', default: 'sqlite,etcd,kube' },
    small: { type: 'string', default: '100' },
    large: { type: 'string' },
    deleted: { type: 'string' },
    samples: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '48' },
    /** Writes the results as JSON here. */
    json: { type: 'string' },
    /** Adds servers measured by an earlier run (its --json files, comma-separated) to the tables. */
    include: { type: 'string' },
  },
});
const SMALL = Number(values.small);
const LARGE = Number(values.large ?? (values.deletion || values.quick ? 1000 : 10_000));
const DELETED = values.deletion
  ? Math.min(Number(values.deleted ?? LARGE), LARGE)
  : Math.min(Number(values.deleted ?? (values.quick ? 100 : 1000)), LARGE - SMALL);
const SAMPLES = Number(values.samples);
const RESTARTS = Number(values.restarts);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const CONFIGMAPS = 10;
/** How long the mass deletion may take before the figure is given as "more than". */
const DELETE_TIMEOUT_MS = 900_000;
const REPO = new URL('..', import.meta.url).pathname;
/** The built apiary to run: APIARY_BENCH_DIST (built by the caller, for an A/B beside a run that uses dist/), else dist/ built now. */
const DIST = process.env.APIARY_BENCH_DIST ?? join(REPO, 'dist');
const TOKEN = 'bench-token-0123456789abcdef';
const USER = 'bench-user';
const PER_NS_USERS = 100; // user-<i> tokens for the first namespaces (the per-namespace user's probes use these)
const DELETE_LABEL = 'bench.apiary.dev/delete';
/** Both servers' etcds run alike: the quota is raised for both (10,000 namespaces' objects and their history). */
const ETCD_ARGS = ['--quota-backend-bytes=8589934592'];
const data = { a: 'x'.repeat(64), b: 'y'.repeat(64), c: 'some-config-value' };

interface Server {
  name: string;
  origin: string;
  agent: Agent;
  /** For requests with a user's bearer token: no client certificate (apiary's admin is one, and it would win). */
  userAgent: Agent;
  adminHeaders: Record<string, string>;
  /** API server process ids (with a TLS front) and the etcd's, read when asked (a restart changes them). */
  apiserverPids: () => number[];
  etcdPids: () => number[];
  /** Controller processes of their own (kube-controller-manager); apiary runs its controllers in the API server process. */
  controllerPids: () => number[];
  /** Stops the API server and starts it on the same store; resolves when /readyz is 200. */
  restart: () => Promise<void>;
  /** The last restart's ms from the start of the new process until it listened (apiary: printed its URL); NaN when not known. */
  lastListenMs: number;
  /** The last restart's ms stopping the old process (0 when not known: counted in the start). */
  lastStopMs: number;
  stop: () => Promise<void>;
}

function userTokens(): string[] {
  return [`${TOKEN},${USER},bench-uid`, ...Array.from({ length: PER_NS_USERS }, (_, i) => `token-user-${i}-0123456789,user-${i},uid-${i}`)];
}
const userToken = (i: number): string => `token-user-${i}-0123456789`;

/** `store`: a data directory to use and keep (SQLite), else a fresh one removed at stop. */
async function startApiaryServer(storage: 'etcd' | 'sqlite', store?: string): Promise<Server> {
  const dataDir = store ?? mkdtempSync(join(tmpdir(), `apiary-nsscale-${storage}-`));
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'tokens.csv'), userTokens().join('\n') + '\n');
  let etcd: EtcdCluster | undefined;
  const storageArgs: string[] = [];
  if (storage === 'etcd') {
    etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd, extraArgs: ETCD_ARGS });
    storageArgs.push('--storage', 'etcd', '--etcd-servers', etcd.endpoints[0]!);
  }
  const launch = (): ApiaryProcess =>
    spawnNode(
      [
        ...(process.env.APIARY_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
        join(DIST, 'cli/main.js'),
        ...['serve', '--port', '0', '--data-dir', dataDir, '--token-auth-file', join(dataDir, 'tokens.csv'), '--log-level', 'warn'],
        ...storageArgs,
      ],
      { stderr: 'inherit', urlTimeoutMs: 300_000 },
      `apiary serve (${storage})`,
    );
  let proc = launch();
  const server: Server = {
    name: storage === 'etcd' ? 'apiary (etcd 3.5)' : 'apiary (SQLite)',
    origin: await proc.url,
    agent: new Agent({
      connect: {
        ca: readFileSync(join(dataDir, 'pki/ca.crt'), 'utf8'),
        cert: readFileSync(join(dataDir, 'pki/admin.crt'), 'utf8'),
        key: readFileSync(join(dataDir, 'pki/admin.key'), 'utf8'),
      },
    }),
    userAgent: new Agent({ connect: { ca: readFileSync(join(dataDir, 'pki/ca.crt'), 'utf8') } }),
    adminHeaders: {},
    apiserverPids: () => [proc.child.pid!, ...childPids(proc.child.pid!)],
    etcdPids: () => {
      const pid = etcd === undefined ? undefined : pidWith(etcd.dataDirs[0]!);
      return pid === undefined ? [] : [pid];
    },
    controllerPids: () => [],
    lastListenMs: NaN,
    lastStopMs: 0,
    restart: async () => {
      const stopAt = performance.now();
      await proc.stop('SIGTERM');
      const t0 = performance.now();
      server.lastStopMs = t0 - stopAt;
      proc = launch();
      server.origin = await proc.url;
      server.lastListenMs = performance.now() - t0;
      await waitReadyz(server.origin, server.agent, server.adminHeaders);
    },
    stop: async () => {
      await server.agent.close();
      await server.userAgent.close();
      await proc.stop('SIGTERM');
      await etcd?.stop();
      if (store === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await waitReadyz(server.origin, server.agent, server.adminHeaders);
  return server;
}

async function startUpstream(): Promise<Server> {
  const cluster: ReferenceCluster = await startReference({ extraTokens: userTokens(), etcdArgs: ETCD_ARGS });
  const etcdDir = cluster.etcdDataDirs![0]!;
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  const server: Server = {
    name: 'kube-apiserver 1.32 (etcd 3.5)',
    origin: cluster.target.base,
    agent,
    userAgent: agent,
    adminHeaders: { authorization: `Bearer ${cluster.target.token}` },
    apiserverPids: () => [cluster.apiserverPid!],
    etcdPids: () => {
      const pid = pidWith(etcdDir);
      return pid === undefined ? [] : [pid];
    },
    controllerPids: () => {
      const pid = pidWith(cluster.kubeconfig!);
      return pid === undefined ? [] : [pid];
    },
    lastListenMs: NaN,
    lastStopMs: 0,
    restart: async () => {
      // The old process's stop is timed from outside: until its pid is gone.
      const old = cluster.apiserverPid!;
      const t0 = performance.now();
      let stopped = NaN;
      const poll = setInterval(() => {
        if (Number.isNaN(stopped) && !existsSync(`/proc/${old}`)) stopped = performance.now() - t0;
      }, 10);
      try {
        await cluster.restartApiserver!();
      } finally {
        clearInterval(poll);
      }
      server.lastStopMs = Number.isNaN(stopped) ? 0 : stopped;
    },
    stop: async () => {
      await agent.close();
      await cluster.stop();
    },
  };
  return server;
}

interface Reply {
  status: number;
  text: string;
}

async function send(s: Server, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> {
  const res = await request(s.origin + path, {
    method: method as 'GET',
    dispatcher: headers === undefined ? s.agent : s.userAgent,
    headers: { ...(headers ?? s.adminHeaders), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.statusCode, text: await res.body.text() };
}


/** A create that tolerates a namespace not yet seen by admission (retried) and an object already there (409). */
async function create(s: Server, path: string, body: unknown): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const r = await send(s, 'POST', path, body);
    if (r.status < 300 || r.status === 409) return;
    if (attempt < 50 && (r.status === 404 || r.status === 429 || r.status >= 500)) {
      await new Promise((done) => setTimeout(done, 100));
      continue;
    }
    throw new Error(`${s.name}: POST ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
  }
}

const nsName = (i: number): string => `ns-${String(i).padStart(5, '0')}`;

/** Namespaces [from, to) with their contents, CONCURRENCY namespaces at a time (each one's objects in parallel). */
async function load(s: Server, from: number, to: number): Promise<number> {
  const t0 = performance.now();
  let next = from;
  const worker = async (): Promise<void> => {
    while (next < to) {
      const i = next++;
      const ns = nsName(i);
      const labels: Record<string, string> = i >= LARGE - DELETED ? { [DELETE_LABEL]: 'yes' } : {};
      await create(s, '/api/v1/namespaces', { metadata: { name: ns, labels } });
      const writes: Array<Promise<void>> = [];
      for (let c = 0; c < CONFIGMAPS; c++) writes.push(create(s, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${c}` }, data }));
      const rb = (name: string, role: string, users: string[]) =>
        create(s, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
        });
      writes.push(rb('bench-edit', 'system:aggregate-to-edit', [USER]), rb('bench-view', 'system:aggregate-to-view', [USER, `user-${i}`]));
      await Promise.all(writes);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
  return (to - from) * (1 + CONFIGMAPS + 2) / ((performance.now() - t0) / 1000);
}

/** How many objects of a resource the server holds (a limit=1 list's remainingItemCount + 1). */
async function count(s: Server, path: string): Promise<number> {
  const r = await send(s, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`);
  const list = JSON.parse(r.text) as { items: unknown[]; metadata: { remainingItemCount?: number } };
  return list.items.length + (list.metadata.remainingItemCount ?? 0);
}

const COUNTED = ['/api/v1/namespaces', '/api/v1/configmaps', '/apis/rbac.authorization.k8s.io/v1/rolebindings', '/api/v1/serviceaccounts', '/api/v1/secrets'];
async function objects(s: Server): Promise<number> {
  let n = 0;
  for (const path of COUNTED) n += await count(s, path);
  return n;
}

interface Probe {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  token?: string;
  /** The status that counts as a success. */
  expect: number;
  check?: (text: string) => boolean;
}

interface Batch {
  latencies: number[];
  cpuSeconds: number;
  errors: number;
  firstError: string;
}

/** Sequential latencies (ms) of probes [from, from + count) after `warm` unmeasured ones (numbered before `from`), and the server CPU they took. */
async function sampleBatch(s: Server, make: (i: number) => Probe, from: number, count: number, warm: number, into: Batch): Promise<void> {
  let cpuBefore = 0;
  for (let i = from - warm; i < from + count; i++) {
    if (i === from) cpuBefore = cpuOf(s);
    const p = make(i);
    const headers = p.token === undefined ? undefined : { authorization: `Bearer ${p.token}` };
    const t0 = performance.now();
    const r = await send(s, p.method, p.path, p.body, headers);
    const ms = performance.now() - t0;
    if (i < from) continue;
    into.latencies.push(ms);
    if (r.status !== p.expect || (p.check !== undefined && !p.check(r.text))) {
      into.errors++;
      if (into.firstError === '') into.firstError = `${p.method} ${p.path}: ${r.status} ${r.text.slice(0, 200)}`;
    }
  }
  into.cpuSeconds += cpuOf(s) - cpuBefore;
}

function sar(user: string, ns: string, verb: string): unknown {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user, resourceAttributes: { namespace: ns, verb, resource: 'configmaps' } },
  };
}
const allowed = (want: boolean) => (text: string): boolean => (JSON.parse(text) as { status?: { allowed?: boolean } }).status?.allowed === want;

/** A deterministic spread of namespaces in [0, n): a multiplicative hash of i. */
const pick = (i: number, n: number): number => (i * 2654435761) % n;

type Measures = Map<string, { p50: number; p99: number; cpuUs: number; errors: number }>;

/** CPU seconds of the API server (and TLS front) and its etcd: per request it is steadier than latency on a shared machine. */
const cpuOf = (s: Server): number => [...s.apiserverPids(), ...s.etcdPids()].reduce((sum, pid) => sum + (Number.isFinite(cpuSeconds(pid)) ? cpuSeconds(pid) : 0), 0);

/** One server at one size, for measure(). */
interface Subject {
  s: Server;
  n: number;
  tag: string;
}

/**
 * Every probe on each subject: SAMPLES requests each, after SAMPLES/5
 * unmeasured ones. With two subjects (the paired run: a server holding SMALL
 * namespaces and one holding LARGE, both up) each probe's requests go in
 * ROUNDS batches alternating between them (which goes first alternates too),
 * so both sizes see the same machine: on a shared machine the load changes
 * within seconds, and sequential runs minutes apart compared it, not the sizes.
 */
async function measure(subjects: Subject[]): Promise<Measures[]> {
  const out: Measures[] = subjects.map(() => new Map());
  const rounds = subjects.length > 1 ? ROUNDS : 1;
  const perRound = Math.ceil(SAMPLES / rounds);
  const run = async (name: string, make: (sub: Subject, i: number) => Probe): Promise<void> => {
    const batches: Batch[] = subjects.map(() => ({ latencies: [], cpuSeconds: 0, errors: 0, firstError: '' }));
    for (let round = 0; round < rounds; round++) {
      const order = subjects.map((_, k) => k);
      if (round % 2 === 1) order.reverse();
      for (const k of order) {
        const sub = subjects[k]!;
        await sampleBatch(sub.s, (i) => make(sub, i), round * perRound + Math.ceil(SAMPLES / 5), perRound, round === 0 ? Math.ceil(SAMPLES / 5) : 0, batches[k]!);
      }
    }
    subjects.forEach((sub, k) => {
      const b = batches[k]!;
      if (b.errors > 0) console.error(`  ${sub.s.name} ${name} at ${sub.n}: ${b.errors} errors, first: ${b.firstError}`);
      b.latencies.sort((x, y) => x - y);
      out[k]!.set(name, { p50: percentile(b.latencies, 0.5), p99: percentile(b.latencies, 0.99), cpuUs: (b.cpuSeconds / b.latencies.length) * 1e6, errors: b.errors });
    });
  };
  await run('list (bench-user)', ({ n }, i) => ({ method: 'GET', path: `/api/v1/namespaces/${nsName(pick(i, n))}/configmaps`, token: TOKEN, expect: 200 }));
  await run('get (bench-user)', ({ n }, i) => ({ method: 'GET', path: `/api/v1/namespaces/${nsName(pick(i, n))}/configmaps/cm-${i % CONFIGMAPS}`, token: TOKEN, expect: 200 }));
  await run('create (bench-user)', ({ n, tag }, i) => ({
    method: 'POST',
    path: `/api/v1/namespaces/${nsName(pick(i, n))}/configmaps`,
    body: { metadata: { name: `probe-${tag}-${i}` }, data },
    token: TOKEN,
    expect: 201,
  }));
  const SAR = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
  await run('SAR allowed, user bound everywhere', ({ n }, i) => ({ method: 'POST', path: SAR, body: sar(USER, nsName(pick(i, n)), 'list'), expect: 201, check: allowed(true) }));
  await run('SAR allowed, user bound in one ns', (_, i) => ({ method: 'POST', path: SAR, body: sar(`user-${i % PER_NS_USERS}`, nsName(i % PER_NS_USERS), 'get'), expect: 201, check: allowed(true) }));
  await run('SAR denied, user bound in one ns', ({ n }, i) => ({ method: 'POST', path: SAR, body: sar(`user-${i % PER_NS_USERS}`, nsName((i % PER_NS_USERS + 1 + pick(i, n - 1)) % n), 'get'), expect: 201, check: allowed(false) }));
  await run('get (user bound in that ns)', (_, i) => ({ method: 'GET', path: `/api/v1/namespaces/${nsName(i % PER_NS_USERS)}/configmaps/cm-0`, token: userToken(i % PER_NS_USERS), expect: 200 }));
  return out;
}

const sumRss = (pids: number[]): number => pids.reduce((sum, pid) => sum + (Number.isFinite(readRss(pid)) ? readRss(pid) : 0), 0);

interface SizeResult {
  namespaces: number;
  objects: number;
  loadRate: number;
  measures: Measures;
  rssApiserver: number;
  rssEtcd: number;
  rssControllers: number;
  rssApiserverRestarted: number;
  restartMs: number;
  firstListMs: number;
  /** Bench namespaces without their `default` ServiceAccount or kube-root-ca.crt once settled (the controllers lost work); absent in older runs. */
  missingDefaults?: number;
}

interface ServerResult {
  name: string;
  small: SizeResult;
  large: SizeResult;
  deleteMs: number;
}

/** The object count once the controllers (service accounts, root CA) have caught up: when it stops moving. */
async function settled(s: Server): Promise<number> {
  let objectCount = await objects(s);
  for (;;) {
    await new Promise((r) => setTimeout(r, 3000));
    const now = await objects(s);
    if (now === objectCount) return objectCount;
    objectCount = now;
  }
}

/** Loads namespaces [from, to) and waits until the controllers have caught up; what the load left. */
async function loadTo(s: Server, from: number, to: number): Promise<Omit<SizeResult, 'measures' | 'rssApiserverRestarted' | 'restartMs' | 'firstListMs'>> {
  const loadRate = await load(s, from, to);
  console.error(`  ${s.name}: ${to} namespaces loaded (${fmt(loadRate)} objects/s)`);
  const objects = await settled(s);
  const missingDefaults = await withoutDefaults(s, to);
  if (missingDefaults > 0) console.error(`  ${s.name}: ${missingDefaults} of ${to} namespaces lack their default ServiceAccount or kube-root-ca.crt`);
  return { namespaces: to, objects, loadRate, rssApiserver: sumRss(s.apiserverPids()), rssEtcd: sumRss(s.etcdPids()), rssControllers: sumRss(s.controllerPids()), missingDefaults };
}

/** How many of the bench's namespaces [0, n) lack the `default` ServiceAccount or the kube-root-ca.crt ConfigMap. */
async function withoutDefaults(s: Server, n: number): Promise<number> {
  const namespacesOf = async (path: string): Promise<Set<string>> => {
    const r = await send(s, 'GET', path);
    return new Set((JSON.parse(r.text) as { items: Array<{ metadata: { namespace: string } }> }).items.map((o) => o.metadata.namespace));
  };
  const accounts = await namespacesOf('/api/v1/serviceaccounts?fieldSelector=metadata.name%3Ddefault');
  const rootCas = await namespacesOf('/api/v1/configmaps?fieldSelector=metadata.name%3Dkube-root-ca.crt');
  let missing = 0;
  for (let i = 0; i < n; i++) if (!accounts.has(nsName(i)) || !rootCas.has(nsName(i))) missing++;
  return missing;
}

/** Restarts the API server on its store: from the new process's start (the old one's stop not counted) until /readyz is 200, then until a list answers, and the RSS 3 s later. */
async function restartOn(s: Server): Promise<Pick<SizeResult, 'rssApiserverRestarted' | 'restartMs' | 'firstListMs'>> {
  const t0 = performance.now();
  await s.restart();
  const restartMs = performance.now() - t0 - s.lastStopMs;
  const firstListMs = await untilFirstList(s);
  await new Promise((r) => setTimeout(r, 3000));
  console.error(`  ${s.name}: restarted (${fmt(restartMs)} ms)`);
  return { restartMs, firstListMs, rssApiserverRestarted: sumRss(s.apiserverPids()) };
}

/**
 * DELETEs the labelled namespaces at once; ms until a list by that label is
 * empty (NaN past DELETE_TIMEOUT_MS), and until half of them were gone. The
 * poll is a list without a limit, which both servers answer from their watch
 * cache, so that it costs the server little beside the deletion it measures (a
 * limit=1 list with a label selector pages through every namespace in storage).
 */
async function deleteMany(s: Server): Promise<{ ms: number; halfMs: number }> {
  const t0 = performance.now();
  let next = LARGE - DELETED;
  const worker = async (): Promise<void> => {
    while (next < LARGE) {
      const r = await send(s, 'DELETE', `/api/v1/namespaces/${nsName(next++)}`);
      if (r.status !== 200 && r.status !== 202) throw new Error(`${s.name}: DELETE namespace answered ${r.status}: ${r.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
  const deadline = t0 + DELETE_TIMEOUT_MS;
  let halfMs = NaN;
  let reported = DELETED;
  while (performance.now() < deadline) {
    const r = await send(s, 'GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent(`${DELETE_LABEL}=yes`)}`);
    const left = (JSON.parse(r.text) as { items: unknown[] }).items.length;
    const ms = performance.now() - t0;
    if (left <= DELETED / 2 && Number.isNaN(halfMs)) halfMs = ms;
    if (left === 0) return { ms, halfMs };
    if (left <= reported - DELETED / 10) {
      console.error(`  ${s.name}: ${left} of ${DELETED} namespaces left after ${fmt(ms / 1000, 1)} s`);
      reported = left;
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  return { ms: NaN, halfMs };
}

/** --deletion: load, settle, delete; nothing else measured. */
async function deletionOnly(start: () => Promise<Server>): Promise<DeletionResult> {
  const s = await start();
  try {
    console.error(`${s.name}: started`);
    const loadRate = await load(s, 0, LARGE);
    console.error(`  ${s.name}: ${LARGE} namespaces loaded (${fmt(loadRate)} objects/s)`);
    const objectCount = await settled(s);
    // As in the full run, the API server is restarted first (with
    // APIARY_BENCH_NODE_ARGS=--cpu-prof the deletion gets a profile of its own).
    await s.restart();
    const { ms, halfMs } = await deleteMany(s);
    console.error(`  ${s.name}: ${DELETED} namespaces deleted in ${fmt(ms)} ms (half in ${fmt(halfMs)} ms)`);
    return { name: s.name, objects: objectCount, deleteMs: ms, halfMs };
  } finally {
    await s.stop();
  }
}

interface StartupResult {
  name: string;
  objects: number;
  listenMs: number[];
  readyMs: number[];
  firstListMs: number[];
}

/** ms until a namespaced list answers 200 (after /readyz). */
async function untilFirstList(s: Server): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const r = await send(s, 'GET', `/api/v1/namespaces/${nsName(0)}/configmaps`);
    if (r.status === 200) return performance.now() - t0;
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** --startup: load (unless the kept store is loaded), settle, restart --restarts times. */
async function startupOnly(start: () => Promise<Server>, loadedMarker?: string): Promise<StartupResult> {
  const s = await start();
  try {
    console.error(`${s.name}: started`);
    if (loadedMarker === undefined || !existsSync(loadedMarker)) {
      const loadRate = await load(s, 0, LARGE);
      console.error(`  ${s.name}: ${LARGE} namespaces loaded (${fmt(loadRate)} objects/s)`);
    }
    const objectCount = await settled(s);
    if (loadedMarker !== undefined) writeFileSync(loadedMarker, `${LARGE}\n`);
    const result: StartupResult = { name: s.name, objects: objectCount, listenMs: [], readyMs: [], firstListMs: [] };
    for (let i = 0; i < RESTARTS; i++) {
      const t0 = performance.now();
      await s.restart();
      result.readyMs.push(performance.now() - t0 - s.lastStopMs);
      result.listenMs.push(s.lastListenMs);
      result.firstListMs.push(await untilFirstList(s));
      console.error(`  ${s.name}: restart ${i + 1}: listening ${fmt(s.lastListenMs)} ms, /readyz ${fmt(result.readyMs.at(-1)!)} ms`);
      // Let the controllers' start-up work finish before the next restart.
      await new Promise((r) => setTimeout(r, 5000));
    }
    return result;
  } finally {
    await s.stop();
  }
}

interface DeletionResult {
  name: string;
  objects: number;
  deleteMs: number;
  halfMs: number;
}

/** --sequential: one server, loaded with SMALL namespaces and measured, then grown to LARGE and measured again. */
async function benchServerSequential(start: () => Promise<Server>): Promise<ServerResult> {
  const s = await start();
  try {
    console.error(`${s.name}: started`);
    const smallLoaded = await loadTo(s, 0, SMALL);
    const [smallMeasures] = await measure([{ s, n: SMALL, tag: `n${SMALL}` }]);
    const small = { ...smallLoaded, measures: smallMeasures!, ...(await restartOn(s)) };
    const largeLoaded = await loadTo(s, SMALL, LARGE);
    const [largeMeasures] = await measure([{ s, n: LARGE, tag: `n${LARGE}` }]);
    const large = { ...largeLoaded, measures: largeMeasures!, ...(await restartOn(s)) };
    const deleteMs = (await deleteMany(s)).ms;
    console.error(`  ${s.name}: ${DELETED} namespaces deleted in ${fmt(deleteMs)} ms`);
    return { name: s.name, small, large, deleteMs };
  } finally {
    await s.stop();
  }
}

/** The default: two servers of the kind, one loaded with SMALL namespaces and one with LARGE, measured side by side (see measure). */
async function benchServerPaired(start: () => Promise<Server>): Promise<ServerResult> {
  const sSmall = await start();
  let smallStopped: Promise<void> | undefined;
  const stopSmall = (): Promise<void> => (smallStopped ??= sSmall.stop());
  try {
    const sLarge = await start();
    try {
      console.error(`${sSmall.name}: started twice`);
      const smallLoaded = await loadTo(sSmall, 0, SMALL);
      const largeLoaded = await loadTo(sLarge, 0, LARGE);
      // The small one's controllers caught up long ago; the large one's were waited for by loadTo.
      const [smallMeasures, largeMeasures] = await measure([
        { s: sSmall, n: SMALL, tag: `n${SMALL}` },
        { s: sLarge, n: LARGE, tag: `n${LARGE}` },
      ]);
      console.error(`  ${sSmall.name}: measured at ${SMALL} and ${LARGE}`);
      const small = { ...smallLoaded, measures: smallMeasures!, ...(await restartOn(sSmall)) };
      await stopSmall();
      const large = { ...largeLoaded, measures: largeMeasures!, ...(await restartOn(sLarge)) };
      const deleteMs = (await deleteMany(sLarge)).ms;
      console.error(`  ${sLarge.name}: ${DELETED} namespaces deleted in ${fmt(deleteMs)} ms`);
      return { name: sLarge.name, small, large, deleteMs };
    } finally {
      await sLarge.stop();
    }
  } finally {
    await stopSmall();
  }
}

const missing = referenceBinariesMissing();
if (missing.length > 0) throw new Error(`reference binaries missing (node scripts/run-tests.mjs differential builds them): ${missing.join(', ')}`);
const SERVERS = values.servers!.split(',').filter((x) => x !== '');
if (SERVERS.some((x) => x !== 'kube') && process.env.APIARY_BENCH_DIST === undefined) buildOnce();

const starter = (which: string): (() => Promise<Server>) => {
  if (which === 'sqlite') return () => startApiaryServer(which, values.startup ? values.store : undefined);
  if (which === 'etcd') return () => startApiaryServer(which);
  if (which === 'kube') return startUpstream;
  throw new Error(`unknown server ${which} (sqlite, etcd, kube)`);
};

if (values.startup) {
  const starts: StartupResult[] = [];
  for (const which of SERVERS) {
    const marker = which === 'sqlite' && values.store !== undefined ? join(values.store, `nsscale-loaded-${LARGE}`) : undefined;
    starts.push(await startupOnly(starter(which), marker));
  }
  const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 0.5);
  const kubeStart = starts.find((r) => r.name.startsWith('kube'));
  console.log(`\n## Restart on a store of ${LARGE} namespaces (10 ConfigMaps + 2 RoleBindings each), medians of ${RESTARTS}\n`);
  console.log(`| figure | ${starts.map((r) => r.name).join(' | ')} |`);
  console.log(`|---|${starts.map(() => '---:').join('|')}|`);
  const srow = (label: string, f: (r: StartupResult) => string): void => console.log(`| ${label} | ${starts.map(f).join(' | ')} |`);
  srow('objects held (ns, cm, rb, sa, secrets)', (r) => fmt(r.objects));
  srow('until listening (ms; apiary: URL printed)', (r) => (r.listenMs.every(Number.isNaN) ? '–' : fmt(median(r.listenMs))));
  srow('until /readyz 200 (ms)', (r) => fmt(median(r.readyMs)));
  srow('  each restart (ms)', (r) => r.readyMs.map((ms) => fmt(ms)).join(', '));
  srow('then first namespaced list (ms)', (r) => fmt(median(r.firstListMs)));
  if (kubeStart !== undefined) srow('  /readyz × kube-apiserver', (r) => fmt(median(r.readyMs) / median(kubeStart.readyMs), 2));
  process.exit(0);
}

if (values.deletion) {
  const deletions: DeletionResult[] = [];
  for (const which of SERVERS) deletions.push(await deletionOnly(starter(which)));
  const kubeDeletion = deletions.find((r) => r.name.startsWith('kube'));
  const secs = (ms: number): string => (Number.isNaN(ms) ? `> ${DELETE_TIMEOUT_MS / 1000}` : fmt(ms / 1000, 1));
  console.log(`\n## Deleting ${DELETED} namespaces at once (of ${LARGE}; 10 ConfigMaps + 2 RoleBindings each), until the namespace controller has removed them all\n`);
  console.log(`| figure | ${deletions.map((r) => r.name).join(' | ')} |`);
  console.log(`|---|${deletions.map(() => '---:').join('|')}|`);
  const drow = (label: string, f: (r: DeletionResult) => string): void => console.log(`| ${label} | ${deletions.map(f).join(' | ')} |`);
  drow('objects held before (ns, cm, rb, sa, secrets)', (r) => fmt(r.objects));
  drow('all gone (s)', (r) => secs(r.deleteMs));
  drow('half gone (s)', (r) => secs(r.halfMs));
  drow('second half ÷ first half (1 = linear)', (r) => fmt((r.deleteMs - r.halfMs) / r.halfMs, 2));
  drow('namespaces per second', (r) => fmt(DELETED / (r.deleteMs / 1000), 1));
  if (kubeDeletion !== undefined) drow('  time × kube-apiserver', (r) => fmt(r.deleteMs / kubeDeletion.deleteMs, 2));
  process.exit(0);
}

const results: ServerResult[] = [];
for (const which of SERVERS) results.push(await (values.sequential ? benchServerSequential : benchServerPaired)(starter(which)));
if (values.json !== undefined) {
  const plain = results.map((r) => ({ ...r, small: { ...r.small, measures: [...r.small.measures] }, large: { ...r.large, measures: [...r.large.measures] } }));
  writeFileSync(values.json, JSON.stringify({ at: new Date().toISOString(), small: SMALL, large: LARGE, deleted: DELETED, samples: SAMPLES, results: plain }, null, 1));
}
for (const file of (values.include ?? '').split(',').filter((x) => x !== '')) {
  const earlier = JSON.parse(readFileSync(file, 'utf8')) as { at: string; large: number; results: Array<Omit<ServerResult, 'small' | 'large'> & Record<'small' | 'large', Omit<SizeResult, 'measures'> & { measures: Array<[string, { p50: number; p99: number; cpuUs: number; errors: number }]> }>> };
  if (earlier.large !== LARGE) throw new Error(`${file} measured ${earlier.large} namespaces, not ${LARGE}`);
  for (const r of earlier.results) {
    results.push({ ...r, name: `${r.name} [run of ${earlier.at.slice(0, 16)}]`, small: { ...r.small, measures: new Map(r.small.measures) }, large: { ...r.large, measures: new Map(r.large.measures) } });
  }
}

const MiB = 1024 * 1024;
const kube = results.find((r) => r.name.startsWith('kube'));
console.log(`\n## ${LARGE} namespaces vs ${SMALL} (10 ConfigMaps + 2 RoleBindings each); HTTPS, token, RBAC; ${SAMPLES} sequential requests per figure, medians (p99)\n`);
console.log('Per server: median latency in ms at each size (p99), its ratio, and server CPU per request in µs (API server with its TLS front and etcd) with its ratio.\n');
console.log(`| figure | ${results.map((r) => `${r.name}: ms ${SMALL} → ${LARGE} ns | × | CPU µs | × `).join(' | ')} | target |`);
console.log(`|---|${results.map(() => '---:|---:|---:|---:').join('|')}|---|`);
const targets: Record<string, string> = { 'list (bench-user)': '≤ 1.5x', 'create (bench-user)': '≤ 1.2x' };
for (const name of results[0]!.small.measures.keys()) {
  const cells = results.map((r) => {
    const a = r.small.measures.get(name)!;
    const b = r.large.measures.get(name)!;
    return `${fmt(a.p50, 2)} → ${fmt(b.p50, 2)} (p99 ${fmt(a.p99, 1)} → ${fmt(b.p99, 1)}) | ${fmt(b.p50 / a.p50, 2)} | ${fmt(a.cpuUs)} → ${fmt(b.cpuUs)} | ${fmt(b.cpuUs / a.cpuUs, 2)}`;
  });
  console.log(`| ${name} | ${cells.join(' | ')} | ${targets[name] ?? 'flat'} |`);
}
console.log(`\n## Memory, start and deletion at ${LARGE} namespaces\n`);
console.log(`| figure | ${results.map((r) => r.name).join(' | ')} |`);
console.log(`|---|${results.map(() => '---:').join('|')}|`);
const row = (label: string, f: (r: ServerResult) => string): void => console.log(`| ${label} | ${results.map(f).join(' | ')} |`);
row('objects held (ns, cm, rb, sa, secrets)', (r) => `${fmt(r.small.objects)} → ${fmt(r.large.objects)}`);
row('load rate (objects/s, parallel creates)', (r) => fmt(r.large.loadRate));
row('namespaces lacking their default ServiceAccount or kube-root-ca.crt once settled', (r) => (r.large.missingDefaults === undefined ? '–' : `${fmt(r.small.missingDefaults ?? 0)} → ${fmt(r.large.missingDefaults)}`));
row('RSS after load: API server (MiB)', (r) => `${fmt(r.small.rssApiserver / MiB)} → ${fmt(r.large.rssApiserver / MiB)}`);
row('RSS after load: etcd (MiB)', (r) => (r.large.rssEtcd === 0 ? '–' : `${fmt(r.small.rssEtcd / MiB)} → ${fmt(r.large.rssEtcd / MiB)}`));
row('RSS after load: controller manager (MiB; apiary: in the API server)', (r) => (r.large.rssControllers === 0 ? '–' : `${fmt(r.small.rssControllers / MiB)} → ${fmt(r.large.rssControllers / MiB)}`));
row('RSS after restart: API server (MiB)', (r) => `${fmt(r.small.rssApiserverRestarted / MiB)} → ${fmt(r.large.rssApiserverRestarted / MiB)}`);
const perObject = (r: ServerResult): number => (r.large.rssApiserverRestarted + r.large.rssEtcd) / r.large.objects;
row('RSS (API server after restart + etcd) per object (KiB)', (r) => fmt(perObject(r) / 1024, 1));
const per100k = (r: ServerResult): number =>
  ((r.large.rssApiserverRestarted + r.large.rssEtcd - r.small.rssApiserverRestarted - r.small.rssEtcd) / (r.large.objects - r.small.objects)) * 100_000;
row('RSS growth per 100,000 objects (MiB)', (r) => fmt(per100k(r) / MiB));
if (kube !== undefined) row('  × kube-apiserver+etcd (target ≤ 0.5)', (r) => fmt(per100k(r) / per100k(kube), 2));
row('restart until /readyz (ms)', (r) => `${fmt(r.small.restartMs)} → ${fmt(r.large.restartMs)}`);
row('  then first list (ms)', (r) => `${fmt(r.small.firstListMs)} → ${fmt(r.large.firstListMs)}`);
// JSON keeps a timed-out NaN as null.
const deleted = (r: ServerResult): number => (r.deleteMs === null || Number.isNaN(r.deleteMs) ? NaN : r.deleteMs);
row(`delete ${DELETED} namespaces at once until gone (s)`, (r) => (Number.isNaN(deleted(r)) ? `> ${DELETE_TIMEOUT_MS / 1000} (not all gone)` : fmt(deleted(r) / 1000, 1)));
if (kube !== undefined) row('  × kube-apiserver', (r) => (Number.isNaN(deleted(kube)) ? (Number.isNaN(deleted(r)) ? '–' : `< ${fmt(deleted(r) / DELETE_TIMEOUT_MS, 2)}`) : fmt(deleted(r) / deleted(kube), 2)));

// One line per target of issue 30 part 3 (and part 4's memory), per server.
console.log(`\n## Verdicts (${LARGE} ÷ ${SMALL} namespaces, median latency; CPU per request in brackets)\n`);
const ratio = (r: ServerResult, name: string, field: 'p50' | 'cpuUs'): number => r.large.measures.get(name)![field] / r.small.measures.get(name)![field];
const verdict = (label: string, f: (r: ServerResult) => string): void => console.log(`- ${label}: ${results.map((r) => `${r.name} ${f(r)}`).join('; ')}`);
const within = (limit: number, names: string[]) => (r: ServerResult): string => {
  const worst = names.reduce((w, n) => (ratio(r, n, 'p50') > ratio(r, w, 'p50') ? n : w), names[0]!);
  const x = ratio(r, worst, 'p50');
  return `${fmt(x, 2)}x (${fmt(ratio(r, worst, 'cpuUs'), 2)}x)${names.length > 1 ? ` at worst, ${worst}` : ''}: ${x <= limit ? 'met' : 'MISSED'}`;
};
verdict('namespaced list within 1.5x', within(1.5, ['list (bench-user)']));
verdict('create within 1.2x', within(1.2, ['create (bench-user)']));
const RBAC_FIGURES = [...results[0]!.small.measures.keys()].filter((n) => n.startsWith('SAR') || n.includes('bound in that ns'));
// Flat: no RBAC figure more than 1.25x slower with 100 times the namespaces and bindings (the noise of one shared machine).
verdict('RBAC decisions flat (within 1.25x)', within(1.25, RBAC_FIGURES));
if (kube !== undefined) {
  verdict('memory per 100,000 objects at most half of kube-apiserver+etcd', (r) => (r === kube ? `${fmt(per100k(r) / MiB)} MiB` : `${fmt(per100k(r) / per100k(kube), 2)}x: ${per100k(r) / per100k(kube) <= 0.5 ? 'met' : 'MISSED'}`));
} else verdict('memory per 100,000 objects (no kube-apiserver in this run to compare)', (r) => `${fmt(per100k(r) / MiB)} MiB`);
verdict(`start on the store of ${LARGE} namespaces (no target; × the start at ${SMALL}${kube !== undefined ? ', × kube-apiserver' : ''})`, (r) =>
  `${fmt(r.large.restartMs / 1000, 1)} s (${fmt(r.large.restartMs / r.small.restartMs, 1)}x${kube !== undefined ? `, ${fmt(r.large.restartMs / kube.large.restartMs, 2)}x` : ''})`);
verdict(`deleting ${DELETED} namespaces at once (no target${kube !== undefined ? '; × kube-apiserver' : ''})`, (r) =>
  Number.isNaN(deleted(r)) ? 'not done in time' : `${fmt(deleted(r) / 1000, 1)} s${kube !== undefined && !Number.isNaN(deleted(kube)) ? ` (${fmt(deleted(r) / deleted(kube), 2)}x)` : ''}`);
