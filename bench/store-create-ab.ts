// Paired A/B of creates through the watch-cached object store on the memory
// backend, in one process (each variant's src/ loaded from its checkout):
// the storage layer's own CPU per create, apart from HTTP and etcd.
//
//   node --import tsx bench/store-create-ab.ts [--ops 20000] [--rounds 8] before=/tmp/before after=.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, median } from './lib.js';
import type { KubeObject } from '../src/machinery/meta.js';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { ops: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '8' } } });
const ops = Number(args.ops);
const rounds = Number(args.rounds);

interface Variant {
  name: string;
  create(i: number): Promise<unknown>;
  drained(): Promise<void>;
}

async function load(spec: string): Promise<Variant> {
  const [name, dir] = spec.split('=') as [string, string];
  const root = pathToFileURL(resolve(dir)).href;
  const { MemoryBackend } = (await import(`${root}/src/storage/memory.ts`)) as typeof import('../src/storage/memory.js');
  const { CachedObjectStore } = (await import(`${root}/src/storage/cacher/cacher.ts`)) as typeof import('../src/storage/cacher/cacher.js');
  const store = new CachedObjectStore({ backend: new MemoryBackend(), resource: { group: '', resource: 'configmaps' }, namespaced: true });
  await store.start(); // the watch below is then the cache's, as the API server's are
  let seen = 0;
  let waiting: (() => void) | undefined;
  let created = 0;
  // A watcher, as informers keep one: events are decoded and handed out.
  await store.watch('', { resourceVersion: '0' }, { onEvent: () => { seen++; if (seen >= created) waiting?.(); }, onError: () => {} } as never);
  return {
    name,
    create: async (i) => {
      created++;
      const obj = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: `${name}-${i}`,
          namespace: 'bench',
          uid: crypto.randomUUID(),
          creationTimestamp: '2026-11-28T20:00:00Z',
          managedFields: [{ manager: 'wrk', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T20:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:payload': {} } } }],
        },
        data: { payload: 'x'.repeat(1024) },
      } as KubeObject;
      return store.create('bench', obj.metadata.name!, obj);
    },
    drained: () => (seen >= created ? Promise.resolve() : new Promise<void>((r) => (waiting = r))),
  };
}

const variants = await Promise.all(positionals.map(load));
let n = 0;
const round = async (v: Variant): Promise<number> => {
  const cpu0 = process.cpuUsage();
  const batch: Promise<unknown>[] = [];
  for (let i = 0; i < ops; i++) {
    batch.push(v.create(n++));
    if (batch.length === 32) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  await v.drained();
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / ops;
};
for (const v of variants) await round(v);
const rows = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (let r = 0; r < rounds; r++) for (const v of r % 2 === 0 ? variants : [...variants].reverse()) rows.get(v.name)!.push(await round(v));
const base = rows.get(variants[0]!.name)!;
console.log('| variant | CPU µs/create | ratio |');
console.log('|---|---:|---:|');
for (const v of variants) {
  const r = rows.get(v.name)!;
  console.log(`| ${v.name} | ${fmt(median(r), 2)} | ${fmt(median(r.map((x, i) => x / base[i]!)), 3)} |`);
}
