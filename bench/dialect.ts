// Figures for the wire dialect (a script, not a test): protobuf vs JSON on
// create and list (requests/s and bytes per object), and the cost of a Table
// list against a plain list, all against one apiary child process in one run.
//
//   npx tsx bench/dialect.ts [--creates N] [--lists N] [--concurrency C]
//
// runLoad in lib.ts sends text bodies without an Accept header, so this script
// drives undici directly with the same closed-loop shape; it reuses lib.ts's
// startApiary, percentile and fmt.

import { Pool } from 'undici';
import { encodeProtobuf } from '../src/api/schema/protobuf.js';
import { fmt, percentile, startApiary } from './lib.js';

const PB = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

interface Spec {
  method: 'GET' | 'POST';
  path: string;
  body?: Uint8Array | string;
  headers: Record<string, string>;
}

interface Measured {
  rps: number;
  p50ms: number;
  p99ms: number;
  /** Mean response (or request, for creates) body bytes. */
  meanBytes: number;
  errors: number;
}

async function load(origin: string, total: number, concurrency: number, next: (i: number) => Spec, countRequestBytes: boolean): Promise<Measured> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let issued = 0;
  let bytes = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + 60_000;
  const worker = async (): Promise<void> => {
    while (issued < total && performance.now() < deadline) {
      const spec = next(issued++);
      const t0 = performance.now();
      const res = await pool.request({ method: spec.method, path: spec.path, body: spec.body, headers: spec.headers });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode >= 300) {
        errors++;
        if (errors === 1) console.error(`  first error: ${res.statusCode} ${body.subarray(0, 200).toString()}`);
      }
      bytes += countRequestBytes && spec.body !== undefined ? Buffer.byteLength(spec.body) : body.length;
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50ms: percentile(latencies, 0.5), p99ms: percentile(latencies, 0.99), meanBytes: bytes / latencies.length, errors };
}

function configMap(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { app: 'bench', tier: 'dialect' } },
    data: { 'config.yaml': 'mode: fast\nlevel: 3\n', owner: 'bench' },
  };
}

async function main(): Promise<void> {
  const creates = arg('creates', 1500);
  const lists = arg('lists', 100);
  const concurrency = arg('concurrency', 16);
  const listSize = 500;
  const server = await startApiary({ storage: 'sqlite' });
  try {
    const { origin } = server;
    for (const ns of ['default', 'json', 'pb']) {
      await fetch(`${origin}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: ns } }) });
    }
    const rows: string[] = [];
    const row = (what: string, m: Measured, perObject: number): void => {
      rows.push(`| ${what} | ${fmt(m.rps)} | ${fmt(m.p50ms, 2)} | ${fmt(m.p99ms, 2)} | ${fmt(perObject)} | ${m.errors} |`);
    };

    // Create: the same objects, bodies and responses in JSON or in protobuf.
    const jsonCreate = await load(origin, creates, concurrency, (i) => ({
      method: 'POST', path: '/api/v1/namespaces/json/configmaps', body: JSON.stringify(configMap(`cm-${i}`)),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    }), true);
    row('create, JSON', jsonCreate, jsonCreate.meanBytes);
    const pbCreate = await load(origin, creates, concurrency, (i) => ({
      method: 'POST', path: '/api/v1/namespaces/pb/configmaps', body: encodeProtobuf(configMap(`cm-${i}`)),
      headers: { 'content-type': PB, accept: PB },
    }), true);
    row('create, protobuf', pbCreate, pbCreate.meanBytes);

    // List: pages of listSize objects, as JSON, protobuf, and a Table.
    const list = (accept: string): Promise<Measured> =>
      load(origin, lists, Math.min(concurrency, 4), () => ({ method: 'GET', path: `/api/v1/namespaces/json/configmaps?limit=${listSize}`, headers: { accept } }), false);
    const jsonList = await list('application/json');
    row(`list ${listSize}, JSON`, jsonList, jsonList.meanBytes / listSize);
    const pbList = await list(PB);
    row(`list ${listSize}, protobuf`, pbList, pbList.meanBytes / listSize);
    const tableList = await list(TABLE);
    row(`list ${listSize}, Table (includeObject=Metadata)`, tableList, tableList.meanBytes / listSize);

    console.log(`\napiary ${creates} creates, ${lists} lists of ${listSize}, concurrency ${concurrency} (sqlite, one run)\n`);
    console.log('| request | req/s | p50 ms | p99 ms | bytes per object | errors |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of rows) console.log(r);
    console.log(`\nTable list costs ${fmt((jsonList.rps / tableList.rps) * 100 - 100)}% more time per request than a plain JSON list.`);
  } finally {
    await server.stop();
  }
}

await main();
