// The foundation benchmark (issue "Foundation"): create, get, update and list
// throughput and latency of apiary on its durable SQLite store, each as a ratio
// of a bare node:http server answering a canned body of the same size (the
// ceiling), measured in one run on this machine; then how a namespace's list
// scales with the size of the whole store, memory at 100,000 configmaps of
// 1 KiB, and restart time with that data.
//
// Usage: npm run bench -- [--concurrency 32] [--rounds 3] [--objects 100000] [--storage sqlite]
// (--objects 10000 for a quick look). Prints medians over the rounds.

import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiary, startCeiling, runLoad, median, fmt, type LoadResult, type RequestSpec, type ChildServer } from './lib.js';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '4000' },
    objects: { type: 'string', default: '100000' },
    storage: { type: 'string', default: 'sqlite' },
  },
});
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);
const perRound = Number(args.requests);
const totalObjects = Number(args.objects);

const payload = 'x'.repeat(1024);
const configMap = (name: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });

async function request(origin: string, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(origin + path, {
    method,
    body,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  return { status: res.status, text: await res.text() };
}

async function ensureNamespace(origin: string, name: string): Promise<void> {
  const res = await request(origin, 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  if (res.status !== 201 && res.status !== 409) throw new Error(`namespace ${name}: ${res.status} ${res.text}`);
}

/** Fills namespaces ns-0…ns-(n-1) with `perNamespace` configmaps each, at full concurrency. */
async function fill(origin: string, prefix: string, namespaces: number, perNamespace: number, from = 0): Promise<LoadResult> {
  for (let n = from; n < namespaces; n++) await ensureNamespace(origin, `${prefix}-${n}`);
  const total = (namespaces - from) * perNamespace;
  return runLoad(origin, { concurrency: 64, total, maxSeconds: 600, expectStatus: [201] }, (i) => {
    const ns = from + Math.floor(i / perNamespace);
    return { method: 'POST', path: `/api/v1/namespaces/${prefix}-${ns}/configmaps`, body: configMap(`cm-${i % perNamespace}`) };
  });
}

interface Phase {
  name: 'create' | 'get' | 'update' | 'list';
  spec: (round: number) => (i: number) => RequestSpec;
  /** Size of the body apiary answers with, for the ceiling's canned response. */
  sampleBody: () => Promise<number>;
  total: number;
}

async function main(): Promise<void> {
  console.log(`apiary foundation benchmark: storage=${args.storage} concurrency=${concurrency} rounds=${rounds} requests/round=${perRound}`);
  // Our own data dir, kept across the restart below and removed at the end.
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-bench-'));
  const apiary = await startApiary({ storage: args.storage, dataDir });
  let ceiling: ChildServer | undefined;
  try {
    const origin = apiary.origin;
    await ensureNamespace(origin, 'bench');
    // A namespace of 100 configmaps for the list phase; the other phases work in "bench".
    await fill(origin, 'listed', 1, 100);
    const seeded = await request(origin, 'POST', '/api/v1/namespaces/bench/configmaps', configMap('seed'));
    const phases: Phase[] = [
      {
        name: 'create',
        total: perRound,
        spec: (r) => (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(`c-${r}-${i}`) }),
        sampleBody: async () => seeded.text.length,
      },
      {
        name: 'get',
        total: perRound * 2,
        spec: (r) => (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/c-${r}-${i % perRound}` }),
        sampleBody: async () => (await request(origin, 'GET', '/api/v1/namespaces/bench/configmaps/seed')).text.length,
      },
      {
        name: 'update',
        total: perRound,
        spec: (r) => (i) => ({ method: 'PUT', path: `/api/v1/namespaces/bench/configmaps/c-${r}-${i}`, body: configMap(`c-${r}-${i}`) }),
        sampleBody: async () => seeded.text.length,
      },
      {
        name: 'list',
        total: Math.max(200, perRound / 10),
        spec: () => () => ({ method: 'GET', path: '/api/v1/namespaces/listed-0/configmaps' }),
        sampleBody: async () => (await request(origin, 'GET', '/api/v1/namespaces/listed-0/configmaps')).text.length,
      },
    ];

    const results = new Map<string, { apiary: LoadResult[]; ceiling: LoadResult[] }>();
    for (let round = 0; round < rounds; round++) {
      for (const phase of phases) {
        const bytes = await phase.sampleBody();
        ceiling = await startCeiling(bytes);
        const c = await runLoad(ceiling.origin, { concurrency, total: phase.total }, phase.spec(round));
        await ceiling.stop();
        ceiling = undefined;
        const a = await runLoad(origin, { concurrency, total: phase.total }, phase.spec(round));
        const entry = results.get(phase.name) ?? { apiary: [], ceiling: [] };
        entry.apiary.push(a);
        entry.ceiling.push(c);
        results.set(phase.name, entry);
      }
    }

    console.log('\n| operation | apiary req/s | ceiling req/s | ratio | apiary p50 ms | apiary p99 ms | errors |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    const ratios: Record<string, number> = {};
    for (const [name, r] of results) {
      const a = median(r.apiary.map((x) => x.rps));
      const c = median(r.ceiling.map((x) => x.rps));
      ratios[name] = a / c;
      const errors = r.apiary.reduce((s, x) => s + x.errors, 0);
      console.log(
        `| ${name} | ${fmt(a)} | ${fmt(c)} | ${fmt((100 * a) / c, 1)}% | ${fmt(median(r.apiary.map((x) => x.p50ms)), 2)} | ${fmt(median(r.apiary.map((x) => x.p99ms)), 2)} | ${errors} |`,
      );
    }
    verdict('create ≥ 40% of ceiling', ratios.create! >= 0.4);
    verdict('get ≥ 60% of ceiling', ratios.get! >= 0.6);

    // List scale: the same 100-configmap namespace, small store vs large store.
    const listOnce = (): Promise<LoadResult> =>
      runLoad(origin, { concurrency: 1, total: 300 }, () => ({ method: 'GET', path: '/api/v1/namespaces/listed-0/configmaps' }));
    const small = median([await listOnce(), await listOnce(), await listOnce()].map((x) => x.p50ms));
    const namespaces = Math.ceil(totalObjects / 100);
    const t0 = performance.now();
    const filled = await fill(origin, 'scale', namespaces, 100);
    const fillSeconds = (performance.now() - t0) / 1000;
    console.log(`\nfilled ${fmt(filled.requests)} configmaps of 1 KiB in ${namespaces} namespaces in ${fmt(fillSeconds, 1)} s (${fmt(filled.rps)} creates/s at concurrency 64, ${filled.errors} errors)`);
    const large = median([await listOnce(), await listOnce(), await listOnce()].map((x) => x.p50ms));
    console.log(`list of one namespace's 100 configmaps: p50 ${fmt(small, 2)} ms with the store holding ~100 objects, ${fmt(large, 2)} ms with ${fmt(filled.requests)} more: ratio ${fmt(large / small, 2)}×`);
    verdict('namespaced list within 2× when the store is 1,000× larger', large / small <= 2);

    const rss = apiary.rss();
    console.log(`server RSS with ${fmt(filled.requests)} configmaps: ${fmt(rss / 2 ** 20)} MiB`);
    verdict('RSS under 1 GiB', rss < 2 ** 30);

    await apiary.stop();
    const restarted = await startApiary({ dataDir, storage: args.storage });
    try {
      const check = await request(restarted.origin, 'GET', '/api/v1/namespaces/scale-0/configmaps/cm-99');
      console.log(`restart with that data: ready in ${fmt(restarted.readyMs / 1000, 2)} s (process start included); RSS ${fmt(restarted.rss() / 2 ** 20)} MiB; a stored object reads back: ${check.status}`);
      verdict('restart ready under 10 s', restarted.readyMs < 10_000 && check.status === 200);
    } finally {
      await restarted.stop();
    }
  } finally {
    if (ceiling) await ceiling.stop();
    await apiary.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function verdict(target: string, ok: boolean): void {
  console.log(`${ok ? 'MET' : 'MISSED'}: ${target}`);
}

await main();
