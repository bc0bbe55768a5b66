// Custom resources against configmaps in the same run: `apiary serve` (built,
// SQLite, durable writes), a CRD whose schema has 20 properties and one CEL
// rule (x-kubernetes-validations, as issue 18 asks), and 1 KiB
// objects of both kinds. Each round drives create, get and list (limit=100)
// of configmaps and of custom resources with wrk, back to back, alternating
// which goes first; the ratio is the median of the rounds' custom resource /
// configmap ratios (target >= 70%). Also timed: CRD created -> first custom
// resource created (target <= 1 s).
//
//   node --import tsx bench/crd.ts
//   ROUNDS=5 SECONDS=2 node --import tsx bench/crd.ts

import { fmt, median, startApiary } from './lib.js';
import { requireWrk, runWrk, type WrkResult } from './wrk.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 2);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const NS = 'bench';

const properties: Record<string, unknown> = {};
for (let i = 0; i < 20; i++) {
  properties[`field${i}`] = i % 4 === 0 ? { type: 'integer', minimum: 0 } : { type: 'string', maxLength: 128 };
}
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'samples.bench.example.com' },
  spec: {
    group: 'bench.example.com',
    scope: 'Namespaced',
    names: { plural: 'samples', singular: 'sample', kind: 'Sample' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['field1'],
                properties,
                'x-kubernetes-validations': [{ rule: 'self.field1.size() > 0', message: 'field1 must not be empty' }],
              },
            },
          },
        },
        additionalPrinterColumns: [{ name: 'Field1', type: 'string', jsonPath: '.spec.field1' }],
      },
    ],
  },
};

/** 20 values, about 1 KiB of JSON in all: the same payload for both kinds. */
function payload(): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (let i = 0; i < 20; i++) out[`field${i}`] = i % 4 === 0 ? i : `value-${i}-${'x'.repeat(36)}`;
  return out;
}
const data = payload();
const cmData = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, String(v)]));

const cmBody = (round: number): string => JSON.stringify({ metadata: { name: `cm-${round}-{i}` }, data: cmData });
const crBody = (round: number): string =>
  JSON.stringify({ apiVersion: 'bench.example.com/v1', kind: 'Sample', metadata: { name: `cr-${round}-{i}` }, spec: data });

interface Pair {
  cm: WrkResult;
  cr: WrkResult;
}

async function main(): Promise<void> {
  requireWrk();
  const server = await startApiary();
  try {
    const origin = server.origin;
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(origin + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await post('/api/v1/namespaces', { metadata: { name: NS } });
    console.log(`one configmap: ${JSON.stringify({ metadata: { name: 'cm-1-1' }, data: cmData }).length} bytes; one custom resource: ${crBody(1).length} bytes`);

    // CRD established -> first custom resource served.
    const t0 = performance.now();
    const created = await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (created.status !== 201) throw new Error(`CRD create: ${created.status} ${await created.text()}`);
    let firstMs = NaN;
    for (;;) {
      const res = await post(`/apis/bench.example.com/v1/namespaces/${NS}/samples`, { apiVersion: 'bench.example.com/v1', kind: 'Sample', metadata: { name: 'first' }, spec: data });
      await res.text();
      if (res.status === 201) {
        firstMs = performance.now() - t0;
        break;
      }
      if (performance.now() - t0 > 10_000) throw new Error(`no custom resource served 10 s after the CRD: ${res.status}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    console.log(`CRD created -> first custom resource created: ${fmt(firstMs, 1)} ms (target <= 1000 ms)`);

    // Warm-up: V8 compiles both paths before anything is measured.
    const options = { concurrency: CONCURRENCY, seconds: SECONDS };
    await runWrk(origin, options, { method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: cmBody(0) });
    await runWrk(origin, options, { method: 'POST', path: `/apis/bench.example.com/v1/namespaces/${NS}/samples`, body: crBody(0) });

    const rows: Record<'create' | 'get' | 'list', Pair[]> = { create: [], get: [], list: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const cmFirst = round % 2 === 1;
      const phase = async (cm: () => Promise<WrkResult>, cr: () => Promise<WrkResult>): Promise<Pair> => {
        if (cmFirst) {
          const a = await cm();
          return { cm: a, cr: await cr() };
        }
        const b = await cr();
        return { cm: await cm(), cr: b };
      };
      const create = await phase(
        () => runWrk(origin, options, { method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: cmBody(round) }),
        () => runWrk(origin, options, { method: 'POST', path: `/apis/bench.example.com/v1/namespaces/${NS}/samples`, body: crBody(round) }),
      );
      rows.create.push(create);
      rows.get.push(
        await phase(
          () => runWrk(origin, options, { method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps/cm-${round}-{i}`, modulo: create.cm.requests - create.cm.errors }),
          () => runWrk(origin, options, { method: 'GET', path: `/apis/bench.example.com/v1/namespaces/${NS}/samples/cr-${round}-{i}`, modulo: create.cr.requests - create.cr.errors }),
        ),
      );
      rows.list.push(
        await phase(
          () => runWrk(origin, options, { method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps?limit=100` }),
          () => runWrk(origin, options, { method: 'GET', path: `/apis/bench.example.com/v1/namespaces/${NS}/samples?limit=100` }),
        ),
      );
    }

    console.log('');
    console.log(`| operation | configmaps req/s | custom resources req/s | ratio (median of ${ROUNDS} rounds) | CR p50 ms | CR p99 ms | errors |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const op of ['create', 'get', 'list'] as const) {
      const pairs = rows[op];
      const ratio = median(pairs.map((p) => p.cr.rps / p.cm.rps));
      const errors = pairs.reduce((n, p) => n + p.cm.errors + p.cr.errors, 0);
      console.log(
        `| ${op} | ${fmt(median(pairs.map((p) => p.cm.rps)))} | ${fmt(median(pairs.map((p) => p.cr.rps)))} | ${fmt(ratio * 100, 1)}% | ${fmt(median(pairs.map((p) => p.cr.p50ms)), 2)} | ${fmt(median(pairs.map((p) => p.cr.p99ms)), 2)} | ${errors} |`,
      );
    }
  } finally {
    await server.stop();
  }
}

await main();
