// Paired A/B of the store's create path, in one process: is a change to the
// registry, the watch caches or the SQLite backend cheaper, on a machine too
// busy for bench/ab.ts to tell a few per cent?
//
// Loads each build's dist/ (registry and SqliteBackend) into this process,
// each on its own temp file with a watcher on every resource (as the
// in-process controllers' informers are), then alternates slices of creates
// (1 KiB ConfigMaps, 32 at a time) between them, the order flipping every
// round. It prints each build's median main-thread CPU per create (schedstat)
// and the median and quartiles of its per-slice ratio to the first build:
// neighbouring slices share the machine's state, so their ratio carries
// less noise than either figure. No HTTP: request parsing, routing and the
// answer are not in it (bench/ab.ts has them).
//
// Usage: [ROUNDS=16] [SLICE=1600] node --import tsx bench/store-ab.ts NAME=path/to/dist ...
//   e.g. git worktree add /tmp/before HEAD~3 && (cd /tmp/before && ln -s $PWD/node_modules && npm run build)
//        node --import tsx bench/store-ab.ts before=/tmp/before/dist after=dist

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './lib.js';

interface Store {
  create(namespace: string, obj: unknown, options: { fieldManager?: string }): Promise<unknown>;
  watch(namespace: string, options: object, sink: { event(e: unknown): void; done(): void }): Promise<unknown>;
  type: { verbs: readonly string[] };
}
interface Registry {
  stores: Store[];
  storeFor(group: string, resource: string): Store | undefined;
  ready: Promise<void>;
  close(): Promise<void>;
}
interface Build {
  name: string;
  registry: Registry;
  backend: { close(): Promise<void> };
  dir: string;
  configmaps: Store;
  made: number;
  cpu: number[];
}

const payload = 'x'.repeat(1024);
const rounds = Number(process.env['ROUNDS'] ?? 16);
const sliceSize = Number(process.env['SLICE'] ?? 1600);

/** CPU µs of this process's main thread (schedstat: ns on a CPU). */
function mainThreadMicros(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e3;
}

async function load(spec: string): Promise<Build> {
  const [name, dist] = spec.split(/=(.*)/s) as [string, string | undefined];
  if (dist === undefined) throw new Error(`give NAME=path/to/dist, not ${spec}`);
  const url = (path: string): string => pathToFileURL(resolve(dist, path)).href;
  const { createRegistry } = (await import(url('registry/index.js'))) as { createRegistry(o: { backend: unknown }): Registry };
  const { SqliteBackend } = (await import(url('storage/sqlite.js'))) as { SqliteBackend: { open(path: string): { close(): Promise<void> } } };
  const dir = mkdtempSync(join(tmpdir(), `store-ab-${name}-`));
  const backend = SqliteBackend.open(join(dir, 'apiary.db'));
  const registry = createRegistry({ backend });
  await registry.ready;
  await registry.storeFor('', 'namespaces')!.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }, {});
  for (const store of registry.stores) {
    if (!store.type.verbs.includes('watch')) continue;
    await store.watch('', {}, { event: () => {}, done: () => {} }).catch(() => undefined);
  }
  return { name, registry, backend, dir, configmaps: registry.storeFor('', 'configmaps')!, made: 0, cpu: [] };
}

/** Main-thread CPU µs per create of `creates` creates, 32 in flight. */
async function slice(b: Build, creates: number): Promise<number> {
  const before = mainThreadMicros();
  for (let i = 0; i < creates; i += 32) {
    await Promise.all(
      Array.from({ length: 32 }, () =>
        b.configmaps.create('bench', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${b.made++}` }, data: { payload } }, { fieldManager: 'bench' }),
      ),
    );
  }
  return (mainThreadMicros() - before) / creates;
}

const builds: Build[] = [];
try {
  for (const spec of process.argv.slice(2)) builds.push(await load(spec));
  if (builds.length < 2) throw new Error('give at least two builds, e.g. before=/tmp/before/dist after=dist');
  for (const b of builds) for (let w = 0; w < 3; w++) await slice(b, 640);
  for (let r = 0; r < rounds; r++) for (const b of r % 2 === 0 ? builds : [...builds].reverse()) b.cpu.push(await slice(b, sliceSize));
  const base = builds[0]!;
  const quartile = (sorted: number[], q: number): number => sorted[Math.floor(q * sorted.length)]!;
  for (const b of builds) {
    const ratios = b.cpu.map((c, i) => c / base.cpu[i]!).sort((x, y) => x - y);
    console.log(
      `${b.name.padEnd(10)} main-thread CPU µs/create ${median(b.cpu).toFixed(1)}  ratio ${median(ratios).toFixed(3)} (q1 ${quartile(ratios, 0.25).toFixed(3)}, q3 ${quartile(ratios, 0.75).toFixed(3)})`,
    );
  }
} finally {
  for (const b of builds) {
    await b.registry.close();
    await b.backend.close();
    rmSync(b.dir, { recursive: true, force: true });
  }
}
// Watch caches' timers would keep the process up.
process.exit(0);
