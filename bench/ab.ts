// Paired A/B of apiary builds: is a change faster, on a machine too noisy to
// compare two separate benchmark runs?
//
// Builds each variant (a git revision, or `.` for the working tree), starts
// all of them at once on one storage (one etcd for all, each under its own
// prefix), then alternates two-second bursts of creates (or, with --op get,
// gets of one configmap; with --op update, PUTs of it that change nothing;
// with --op list, lists of a namespace of --listed configmaps, 100 by default)
// against each, driven
// by wrk at concurrency 32 (--concurrency; bench/wrk.ts); a variant is idle while another is
// measured. The order flips every pair. It prints, per variant, the median
// requests/s and apiary CPU per request, and the median of the per-pair ratios
// to the first variant: neighbouring bursts see the same machine, so their
// ratio carries less noise than either figure does. On etcd it also prints
// etcd's CPU per request and the sum (only one variant runs at a time, so
// etcd's CPU during a burst is that variant's).
//
// Needs wrk (apt-get install -y wrk).
// Usage: node --import tsx bench/ab.ts [--storage etcd|memory|sqlite] [--op create|get|update|list] [--concurrency 32] [--pairs 10] [--warmup 5] [--listed 100] NAME=REV[:NODE_FLAG,...] ...
//   e.g. node --import tsx bench/ab.ts before=HEAD~1 after=.
//        node --import tsx bench/ab.ts base=. semi=.:--max-semi-space-size=32

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEtcd } from '../test/helpers/etcd.js';
import { spawnNode, type ApiaryProcess } from '../test/helpers/apiary-process.js';
import { cpuSeconds, fmt, mainThreadSeconds, median, pidWith } from './lib.js';
import { requireWrk, runWrk, type WrkRequest } from './wrk.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    storage: { type: 'string', default: 'etcd' },
    pairs: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    op: { type: 'string', default: 'create' },
    concurrency: { type: 'string', default: '32' },
    listed: { type: 'string', default: '100' },
  },
});

const REPO = fileURLToPath(new URL('..', import.meta.url));
const payload = 'x'.repeat(1024);
const seedBody = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seed' }, data: { payload } });

interface Variant {
  name: string;
  rev: string;
  nodeFlags: string[];
}

function parseVariant(spec: string): Variant {
  const m = /^([\w.-]+)=([^:]+)(?::(.*))?$/.exec(spec);
  if (!m) throw new Error(`variant ${spec}: want NAME=REV[:NODE_FLAG,...]`);
  return { name: m[1]!, rev: m[2]!, nodeFlags: m[3] ? m[3].split(',') : [] };
}

/** Builds `rev` into a scratch git worktree (or the working tree for `.`); returns its dist/cli/main.js and a cleanup. */
function build(rev: string): { main: string; cleanup: () => void } {
  const tsc = (dir: string): void => {
    execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
  };
  if (rev === '.') {
    tsc(REPO);
    return { main: join(REPO, 'dist/cli/main.js'), cleanup: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'apiary-ab-'));
  execFileSync('git', ['-C', REPO, 'worktree', 'add', '--detach', dir, rev], { stdio: 'ignore' });
  // Revisions that track node_modules as a symlink check it out already.
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  tsc(dir);
  return {
    main: join(dir, 'dist/cli/main.js'),
    cleanup: () => {
      execFileSync('git', ['-C', REPO, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}


/** One burst: requests/s, and CPU µs per request of the variant's apiary, of its main thread, and of etcd (0 off etcd). */
interface Row {
  rps: number;
  cpuUs: number;
  mainUs: number;
  etcdUs: number;
}

interface Server extends Variant {
  proc: ApiaryProcess;
  origin: string;
  bursts: number;
  cleanup: () => void;
}

async function main(): Promise<void> {
  requireWrk();
  const variants = positionals.map(parseVariant);
  if (variants.length < 2) throw new Error('give at least two variants, e.g. before=HEAD~1 after=.');
  const storage = args.storage!;
  const etcd = storage === 'etcd' ? await startEtcd() : undefined;
  const servers: Server[] = [];
  try {
    for (const v of variants) {
      const { main, cleanup } = build(v.rev);
      const dataDir = mkdtempSync(join(tmpdir(), 'apiary-ab-data-'));
      const storageArgs = etcd ? ['--etcd-servers', etcd.endpoints[0]!, '--etcd-prefix', `/ab-${v.name}`] : [];
      // Builds from before secure serving do not know --insecure-serving (and serve plain HTTP anyway).
      const insecure = readFileSync(main, 'utf8').includes('insecure-serving') ? ['--insecure-serving'] : [];
      const proc = spawnNode([...v.nodeFlags, main, 'serve', ...insecure, '--port', '0', '--data-dir', dataDir, '--storage', storage, '--log-level', 'warn', ...storageArgs], {
        stderr: 'inherit',
      });
      const removeAll = (): void => {
        cleanup();
        rmSync(dataDir, { recursive: true, force: true });
      };
      const server: Server = { ...v, proc, origin: await proc.url, bursts: 0, cleanup: removeAll };
      servers.push(server);
      await waitReady(server.origin);
      const res = await fetch(`${server.origin}/api/v1/namespaces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: 'bench' } }),
      });
      if (res.status !== 201) throw new Error(`${v.name}: creating the namespace answered ${res.status}`);
      const seed = await fetch(`${server.origin}/api/v1/namespaces/bench/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: seedBody,
      });
      if (seed.status !== 201) throw new Error(`${v.name}: creating the seed configmap answered ${seed.status}`);
      for (let i = 1; args.op === 'list' && i < Number(args.listed); i++) {
        const res = await fetch(`${server.origin}/api/v1/namespaces/bench/configmaps`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `listed-${i}` }, data: { payload } }),
        });
        if (res.status !== 201) throw new Error(`${v.name}: creating a listed configmap answered ${res.status}`);
      }
    }

    const etcdPid = etcd === undefined ? undefined : pidWith(etcd.dataDirs[0]!);
    const etcdCpu = (): number => (etcdPid === undefined ? 0 : cpuSeconds(etcdPid));
    const burst = async (s: Server): Promise<Row> => {
      const pid = s.proc.child.pid!;
      const before = cpuSeconds(pid);
      const mainBefore = mainThreadSeconds(pid);
      const etcdBefore = etcdCpu();
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b${s.bursts++}-{i}` }, data: { payload } });
      const request: WrkRequest =
        args.op === 'get'
          ? { method: 'GET', path: '/api/v1/namespaces/bench/configmaps/seed' }
          : args.op === 'list'
            ? { method: 'GET', path: '/api/v1/namespaces/bench/configmaps' }
          : args.op === 'update'
            ? // The seed as created: an update that changes nothing (as the foundation benchmark's).
              { method: 'PUT', path: '/api/v1/namespaces/bench/configmaps/seed', body: seedBody }
            : { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body };
      const r = await runWrk(s.origin, { concurrency: Number(args.concurrency), seconds: 2 }, request);
      if (r.errors > 0) console.error(`${s.name}: ${r.errors} errors`);
      return {
        rps: r.rps,
        cpuUs: ((cpuSeconds(pid) - before) / r.requests) * 1e6,
        mainUs: ((mainThreadSeconds(pid) - mainBefore) / r.requests) * 1e6,
        etcdUs: ((etcdCpu() - etcdBefore) / r.requests) * 1e6,
      };
    };
    for (const s of servers) for (let i = 0; i < Number(args.warmup); i++) await burst(s);
    const rows = new Map<string, Row[]>(servers.map((s) => [s.name, []]));
    for (let p = 0; p < Number(args.pairs); p++) {
      for (const s of p % 2 === 0 ? servers : [...servers].reverse()) rows.get(s.name)!.push(await burst(s));
    }

    const base = rows.get(servers[0]!.name)!;
    const op = args.op === 'get' || args.op === 'update' || args.op === 'list' ? args.op : 'create';
    console.log(`\n${op}s on ${storage}, concurrency ${args.concurrency}, ${args.pairs} pairs of 2 s bursts; ratios are medians of per-pair ratios to ${servers[0]!.name}\n`);
    // The lowest CPU per request of a variant's bursts is the figure neighbours on a shared machine disturb least (they only add to it).
    const withEtcd = etcd !== undefined;
    const etcdHead = withEtcd ? ` etcd CPU µs/${op} | apiary+etcd µs/${op} | apiary+etcd ratio |` : '';
    console.log(`| variant | ${op}s/s | apiary CPU µs/${op} | lowest CPU µs/${op} | rps ratio | CPU ratio | lowest CPU ratio | main thread µs/${op} | main ratio |${etcdHead}`);
    console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|${withEtcd ? '---:|---:|---:|' : ''}`);
    for (const s of servers) {
      const r = rows.get(s.name)!;
      const ratio = (pick: (x: Row) => number): string => fmt(median(r.map((x, i) => pick(x) / pick(base[i]!))), 3);
      const etcdCells = withEtcd
        ? ` ${fmt(median(r.map((x) => x.etcdUs)))} | ${fmt(median(r.map((x) => x.cpuUs + x.etcdUs)))} | ${ratio((x) => x.cpuUs + x.etcdUs)} |`
        : '';
      const lowest = Math.min(...r.map((x) => x.cpuUs));
      const lowestBase = Math.min(...base.map((x) => x.cpuUs));
      console.log(
        `| ${s.name} (${s.rev}${s.nodeFlags.length ? ' ' + s.nodeFlags.join(' ') : ''}) | ${fmt(median(r.map((x) => x.rps)))} | ${fmt(median(r.map((x) => x.cpuUs)))} | ${fmt(lowest)} | ${ratio((x) => x.rps)} | ${ratio((x) => x.cpuUs)} | ${fmt(lowest / lowestBase, 3)} | ${fmt(median(r.map((x) => x.mainUs)))} | ${ratio((x) => x.mainUs)} |${etcdCells}`,
      );
    }
  } finally {
    for (const s of servers) {
      await s.proc.stop('SIGTERM');
      s.cleanup();
    }
    await etcd?.stop();
  }
}

async function waitReady(origin: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${origin}/readyz`).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${origin} did not become ready`);
}

await main();
