// Paired A/B of the etcd backend alone: what a create costs apiary's process
// on etcd, apart from HTTP, admission and encoding (whose noise otherwise
// hides a few µs). Each variant is a checkout (a directory holding src/, or
// `.`): its ThreadedEtcdBackend (or, with `:inline`, its EtcdBackend on this
// thread) is loaded from source into this one process, with a watch on its
// own prefix as the watch cache keeps one. Rounds alternate the variants
// (order flipping every pair); a round is --ops creates of a 1 KiB ConfigMap
// value at --concurrency, and ends once the watch has seen them all. Prints,
// per variant, the median CPU µs per create of the whole process (main
// thread plus the etcd client thread) and of the main thread alone, and the
// median per-pair ratio to the first variant.
//
//   git worktree add --detach /tmp/before HEAD~1
//   node --import tsx bench/etcd-backend-ab.ts [--ops 3000] [--concurrency 32] [--rounds 8] before=/tmp/before after=.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startEtcd } from '../test/helpers/etcd.js';
import type { Backend, WatchEvent } from '../src/storage/interface.js';
import { readFileSync } from 'node:fs';
import { fmt, median } from './lib.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ops: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '8' },
  },
});
const ops = Number(args.ops);
/** The main thread's time on a CPU in µs (schedstat: nanoseconds, finer than stat's 10 ms ticks). */
const mainCpuUs = (): number => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);

interface Variant {
  name: string;
  backend: Backend;
  prefix: string;
  seen: number;
  waiting: (() => void) | undefined;
  created: number;
}

const value = (name: string): string =>
  JSON.stringify({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name, namespace: 'bench', uid: crypto.randomUUID(), creationTimestamp: new Date().toISOString() },
    data: { payload: 'x'.repeat(1024) },
  });

async function connect(spec: string, endpoints: string[]): Promise<Variant> {
  const m = /^([\w.-]+)=([^:]+)(:inline)?$/.exec(spec);
  if (!m) throw new Error(`variant ${spec}: want NAME=DIR[:inline]`);
  const dir = resolve(m[2]!);
  let backend: Backend;
  if (m[3]) {
    const mod = (await import(pathToFileURL(`${dir}/src/storage/etcd/backend.ts`).href)) as typeof import('../src/storage/etcd/backend.js');
    backend = await mod.EtcdBackend.connect({ endpoints });
  } else {
    const mod = (await import(pathToFileURL(`${dir}/src/storage/etcd/thread.ts`).href)) as typeof import('../src/storage/etcd/thread.js');
    backend = await mod.ThreadedEtcdBackend.connect({ endpoints });
  }
  const v: Variant = { name: m[1]!, backend, prefix: `/ab-${m[1]}/configmaps/`, seen: 0, waiting: undefined, created: 0 };
  backend.watch(v.prefix, await backend.currentRevision(), {
    onEvents: (events: WatchEvent[]) => {
      v.seen += events.length;
      if (v.seen >= v.created) v.waiting?.();
    },
    onError: (err) => {
      throw err;
    },
  });
  return v;
}

async function round(v: Variant): Promise<{ cpuUs: number; mainUs: number }> {
  const cpu0 = process.cpuUsage();
  const main0 = mainCpuUs();
  let next = 0;
  const base = v.created;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) {
        const name = `c${base + next++}`;
        await v.backend.create(`${v.prefix}bench/${name}`, value(name));
      }
    }),
  );
  v.created += ops;
  if (v.seen < v.created) await new Promise<void>((r) => (v.waiting = r));
  v.waiting = undefined;
  const cpu = process.cpuUsage(cpu0);
  return { cpuUs: (cpu.user + cpu.system) / ops, mainUs: (mainCpuUs() - main0) / ops };
}

const etcd = await startEtcd({ binary: process.env['ETCD_BIN'] ?? 'test/compat/etcd-3.5/bin/etcd' });
const variants: Variant[] = [];
try {
  for (const spec of positionals) variants.push(await connect(spec, etcd.endpoints));
  if (variants.length < 2) throw new Error('give at least two variants, e.g. before=/tmp/before after=.');
  for (const v of variants) await round(v); // warm-up
  const rows = new Map<string, { cpuUs: number; mainUs: number }[]>(variants.map((v) => [v.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of r % 2 === 0 ? variants : [...variants].reverse()) rows.get(v.name)!.push(await round(v));
  }
  const base = rows.get(variants[0]!.name)!;
  console.log(`\ncreates through the etcd backend, ${ops} per round at concurrency ${concurrency}, ${rounds} rounds per variant\n`);
  console.log('| variant | CPU µs/create | main thread µs/create | CPU ratio | main ratio |');
  console.log('|---|---:|---:|---:|---:|');
  for (const v of variants) {
    const r = rows.get(v.name)!;
    const ratio = (pick: (x: { cpuUs: number; mainUs: number }) => number): string => fmt(median(r.map((x, i) => pick(x) / pick(base[i]!))), 3);
    console.log(`| ${v.name} | ${fmt(median(r.map((x) => x.cpuUs)), 1)} | ${fmt(median(r.map((x) => x.mainUs)), 1)} | ${ratio((x) => x.cpuUs)} | ${ratio((x) => x.mainUs)} |`);
  }
} finally {
  for (const v of variants) await v.backend.close();
  await etcd.stop();
}
