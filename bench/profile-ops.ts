// One operation of bench/versus-upstream.ts against apiary alone, for
// profiling: starts `apiary serve` (from src through tsx, or dist/ with
// DIST=1) on SQLite or on a throwaway etcd 3.5, with a system:masters token,
// makes the 500 ConfigMaps of a list (and the one of a get), warms up for 3 s,
// then drives the operation with wrk at concurrency 32 for three runs and
// prints req/s and CPU µs per request of apiary's process, its TLS front
// and etcd, apart. With `prof`, apiary runs with --cpu-prof (profiles of the main
// thread and the worker threads land in /tmp/perf/prof).
//
//   node --import tsx bench/profile-ops.ts list|get|create sqlite|etcd [seconds=10] [prof]
//   (APIARY_ARGS: more `serve` flags; APIARY_NODE_FLAGS: Node and V8 flags for apiary's process;
//   PROFILE_USER=edit: requests as a user RBAC decides for, bound to `edit`, as bench/versus-upstream.ts's;
//   PROFILE_ACCEPT_ENCODING=gzip: requests ask for compressed answers, as client-go's do)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { startEtcd, type EtcdCluster } from '../test/helpers/etcd.js';
import { runWrk, type WrkRequest } from './wrk.js';
import { childPids, cpuSeconds, pidWith, threadCpu, threadSched, threadsCpu } from './lib.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const op = process.argv[2] ?? 'list';
const storage = process.argv[3] ?? 'sqlite';
const seconds = Number(process.argv[4] ?? 10);
const prof = process.argv[5] === 'prof';
const TOKEN = 'profile-token-0123456789';
const payload = 'x'.repeat(1024);

const dataDir = mkdtempSync(join(tmpdir(), 'apiary-profile-'));
// PROFILE_USER=edit: the measured requests come from a user bound to `edit`'s two
// aggregated parts in the namespaces (bench/versus-upstream.ts's user), so RBAC decides.
const EDIT_TOKEN = 'profile-edit-token-0123456789';
const asEditUser = process.env['PROFILE_USER'] === 'edit';
writeFileSync(join(dataDir, 'tokens.csv'), `${TOKEN},profile-admin,profile-uid,"system:masters"\n${EDIT_TOKEN},profile-edit,profile-edit-uid\n`);
const storageArgs: string[] = [];
let etcd: EtcdCluster | undefined;
if (storage === 'etcd') {
  etcd = await startEtcd({ binary: join(REPO, 'test/compat/etcd-3.5/bin/etcd') });
  storageArgs.push('--storage', 'etcd', '--etcd-servers', etcd.endpoints[0]!);
}
const entry = process.env['DIST'] ? [join(REPO, 'dist/cli/main.js')] : ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];
const profArgs = prof ? ['--cpu-prof', `--cpu-prof-dir=${process.env['PROF_DIR'] ?? '/tmp/perf/prof'}`] : [];
const serveArgs = ['serve', '--port', '0', '--data-dir', dataDir, '--token-auth-file', join(dataDir, 'tokens.csv'), '--log-level', 'warn', ...storageArgs, ...(process.env['APIARY_ARGS']?.split(' ').filter(Boolean) ?? [])];
// APIARY_NODE_FLAGS: V8 and Node flags for apiary's process (some, such as --single-threaded-gc, NODE_OPTIONS refuses).
const nodeFlags = process.env['APIARY_NODE_FLAGS']?.split(' ').filter(Boolean) ?? [];
const proc = spawnNode([...nodeFlags, ...profArgs, ...entry, ...serveArgs], { stderr: 'inherit' }, 'apiary');
const agent = new Agent({ connect: { rejectUnauthorized: false } });
try {
  const origin = await proc.url;
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<void> => {
    const res = await request(origin + path, { method, dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    await res.body.text();
  };
  for (const ns of ['bench', 'bench-list']) {
    await send('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    for (const role of ['system:aggregate-to-edit', 'system:aggregate-to-view']) {
      await send('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        metadata: { name: `profile-${role.slice('system:aggregate-to-'.length)}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'profile-edit' }],
      });
    }
  }
  await send('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'probe' }, data: { payload } });
  for (let i = 0; i < 500; i += 25) {
    await Promise.all(Array.from({ length: 25 }, (_, j) => send('POST', '/api/v1/namespaces/bench-list/configmaps', { metadata: { name: `listed-${i + j}` }, data: { payload } })));
  }
  // PROFILE_ACCEPT_ENCODING=gzip: as client-go and kubectl ask (answers over 128 KiB then come compressed).
  const acceptEncoding = process.env['PROFILE_ACCEPT_ENCODING'];
  const headers: Record<string, string> = { Authorization: `Bearer ${asEditUser ? EDIT_TOKEN : TOKEN}`, ...(acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {}) };
  const requestFor = (tag: string): WrkRequest => {
    if (op === 'list') return { method: 'GET', path: '/api/v1/namespaces/bench-list/configmaps', headers };
    if (op === 'get') return { method: 'GET', path: '/api/v1/namespaces/bench/configmaps/probe', headers };
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${tag}-{i}` }, data: { payload } });
    return { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body, headers };
  };
  await runWrk(origin, { concurrency: 32, seconds: 3 }, requestFor('warm'));
  console.error(`measuring from ${new Date().toISOString()}`);
  const pid = proc.child.pid!;
  const etcdPid = etcd === undefined ? undefined : pidWith(etcd.dataDirs[0]!);
  const front = (): number => childPids(pid).reduce((sum, p) => sum + cpuSeconds(p), 0);
  const rates: string[] = [];
  const cpus: string[] = [];
  // The API server's main thread alone (its tid is the pid): how busy it is
  // tells whether it is the bound, or the requests wait elsewhere.
  // Its time waiting for a core (runnable) apart from its time asleep (waiting
  // for work: the requests then wait elsewhere), from schedstat.
  const mainThread = (): number => threadCpu(pid, pid);
  const sched = (): { run: number; wait: number } => threadSched(pid, pid);
  const busy: string[] = [];
  const threads: string[] = [];
  for (let r = 0; r < 3; r++) {
    const etcdCpu = (): number => (etcdPid === undefined ? 0 : cpuSeconds(etcdPid));
    const threadsBefore = threadsCpu(pid);
    const before = [cpuSeconds(pid), front(), etcdCpu(), mainThread()];
    const started = performance.now();
    const sched0 = sched();
    const res = await runWrk(origin, { concurrency: 32, seconds }, requestFor(`r${r}`));
    const us = (s: number, b: number): string => (((s - b) * 1e6) / res.requests).toFixed(0);
    const wall = (performance.now() - started) / 1000;
    const sched1 = sched();
    const pct = (x: number): string => `${((100 * x) / wall).toFixed(0)}%`;
    busy.push(`${pct(mainThread() - before[3]!)} (on cpu ${pct(sched1.run - sched0.run)}, runnable ${pct(sched1.wait - sched0.wait)})`);
    const threadsAfter = threadsCpu(pid);
    const perThread = new Map<string, number>();
    for (const [tid, t] of threadsAfter) {
      const name = tid === pid ? 'main' : `${t.name}/${tid}`;
      perThread.set(name, (perThread.get(name) ?? 0) + t.cpu - (threadsBefore.get(tid)?.cpu ?? 0));
    }
    threads.push([...perThread].filter(([, c]) => c > 0).sort((a, b) => b[1] - a[1]).map(([n, c]) => `${n} ${((c * 1e6) / res.requests).toFixed(0)}`).join(', '));
    rates.push(`${(res.requests / seconds).toFixed(0)} (p50 ${res.p50ms.toFixed(1)} ms)`);
    cpus.push(`${us(cpuSeconds(pid), before[0]!)}+${us(front(), before[1]!)}${etcdPid === undefined ? '' : `+${us(etcdCpu(), before[2]!)}`}`);
  }
  const sample = await request(origin + requestFor('size').path, { dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}` } });
  const bytes = (await sample.body.arrayBuffer()).byteLength;
  console.log(`${op} on ${storage}: req/s ${rates.join(' ')}; CPU µs/req (apiary+TLS front[+etcd]) ${cpus.join(' ')}; GET answer ${bytes} bytes; main thread busy ${busy.join(' ')}`);
  for (const t of threads) console.log(`  apiary's threads, CPU µs/req: ${t}`);
} finally {
  await agent.close();
  await proc.stop('SIGTERM');
  await etcd?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
