// No request holds the event loop (issue 29, part 2): a small GET's latency
// while another client sends maximal requests back to back.
//
// For each maximal body (a ConfigMap of 100,000 keys created, updated,
// merge-patched and applied, a million list elements, a million owner
// references, a 10,000-deep merge patch: each near the 3 MiB body limit) a heavy client sends it again and again, one at a time,
// for --seconds, while a probe GETs one small ConfigMap every --interval ms
// (an open loop: a stall delays every GET sent during it, none is skipped).
// Printed per server and body: the heavy requests answered (and their status
// codes), the probe's p50, p99 and slowest GET. The ceiling, measured in the
// same run, is the probe alone ("idle"); the target is a slowest GET under
// 100 ms.
//
// Servers: apiary (`apiary serve` built with tsc, sqlite, plain HTTP) and
// kube-apiserver 1.32.4 on etcd 3.5 (test/compat/differential/reference.ts),
// one after the other on the same machine. The heavy client runs in a forked
// process, so that building and sending its bodies does not delay the probe.
//
//   node --import tsx bench/event-loop.ts [--seconds 10] [--interval 10] [--only apiary|reference] [--cases keys,update,merge,apply,list,owners,deep]

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { referenceBinariesMissing, startReference } from '../test/compat/differential/reference.js';
import { fmt, percentile, startApiary } from './lib.js';

interface Target {
  name: string;
  origin: string;
  token?: string;
}

const NS = 'event-loop';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const HEAVY_JOB_ENV = 'APIARY_EVENT_LOOP_HEAVY';
const SETTLE_MS = 10_000;

type CaseName = 'keys' | 'list' | 'owners' | 'deep' | 'update' | 'merge' | 'apply';
const CASE_TITLES: Record<CaseName, string> = {
  keys: '100,000 data keys',
  list: '1,000,000 list elements',
  owners: '1,000,000 owner refs',
  deep: '10,000-deep merge patch',
  update: 'update of 100,000 keys',
  merge: 'merge patch 100,000 keys',
  apply: 'apply of 100,000 keys',
};

interface MaximalBody {
  method: 'POST' | 'PATCH' | 'PUT';
  path: string;
  body: Buffer;
  /** Sent every other time instead of `body`, so that each write changes the object. */
  alternate?: Buffer;
  contentType: string;
  /** A small ConfigMap of this name is created first: the object the case writes. */
  setup?: string;
}

/** The 100,000 data keys, each set to `value`. */
function dataKeys(value: string): string {
  const keys: string[] = [];
  for (let i = 0; i < 100_000; i++) keys.push(`"k${i}":"${value}"`);
  return keys.join(',');
}

function maximalBody(name: CaseName): MaximalBody {
  const configMap = (name: string, data: string): Buffer => Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{${data}}}`);
  switch (name) {
    case 'keys':
      return { method: 'POST', path: CM, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"keys-"},"data":{${dataKeys('v')}}}`), contentType: 'application/json' };
    case 'update':
      return { method: 'PUT', path: `${CM}/put`, body: configMap('put', dataKeys('v')), alternate: configMap('put', dataKeys('w')), contentType: 'application/json', setup: 'put' };
    case 'merge':
      return { method: 'PATCH', path: `${CM}/merge`, body: Buffer.from(`{"data":{${dataKeys('v')}}}`), alternate: Buffer.from(`{"data":{${dataKeys('w')}}}`), contentType: 'application/merge-patch+json', setup: 'merge' };
    case 'apply':
      // Forced: the object is stored without managedFields (too large with them, on both servers), so each apply takes its fields back.
      return { method: 'PATCH', path: `${CM}/apply?fieldManager=heavy&force=true`, body: configMap('apply', dataKeys('v')), alternate: configMap('apply', dataKeys('w')), contentType: 'application/apply-patch+yaml' };
    case 'list':
      return { method: 'POST', path: CM, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"list-"},"x":[${new Array(1_000_000).fill('0').join(',')}]}`), contentType: 'application/json' };
    case 'owners':
      return { method: 'POST', path: CM, body: Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"own-","ownerReferences":[${new Array(1_000_000).fill('{}').join(',')}]}}`), contentType: 'application/json' };
    case 'deep': {
      const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
      return { method: 'PATCH', path: `${CM}/small`, body: Buffer.from(`{"metadata":{"annotations":${deep}}}`), contentType: 'application/merge-patch+json' };
    }
  }
}

function pool(target: Target, connections: number): Pool {
  return new Pool(target.origin, { connections, pipelining: 1, connect: { rejectUnauthorized: false } });
}

async function call(p: Pool, target: Target, method: string, path: string, body?: Buffer | string, contentType = 'application/json'): Promise<number> {
  const headers: Record<string, string> = {};
  if (target.token !== undefined) headers['authorization'] = `Bearer ${target.token}`;
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await p.request({ method: method as 'GET', path, body, headers });
  await res.body.dump();
  return res.statusCode;
}

/** The heavy client (this file, forked): sends the case's body back to back until told to stop. */
async function runHeavy(job: { target: Target; name: CaseName }): Promise<void> {
  const stop = { done: false };
  process.once('message', () => {
    stop.done = true;
  });
  const p = pool(job.target, 1);
  const b = maximalBody(job.name);
  const statuses: Record<string, number> = {};
  if (b.setup !== undefined) await call(p, job.target, 'POST', CM, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: b.setup }, data: { a: 'b' } }));
  process.send!('ready');
  for (let sent = 0; !stop.done; sent++) {
    let s = 'error';
    try {
      s = String(await call(p, job.target, b.method, b.path, b.alternate !== undefined && sent % 2 === 1 ? b.alternate : b.body, b.contentType));
    } catch {
      // counted as an error
    }
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  await p.close();
  process.send!(statuses, () => process.disconnect());
}

function startHeavy(target: Target, name: CaseName): Promise<{ stop(): Promise<Record<string, number>> }> {
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, [HEAVY_JOB_ENV]: JSON.stringify({ target, name }) } });
  const messages: unknown[] = [];
  let wake: (() => void) | undefined;
  child.on('message', (m) => {
    messages.push(m);
    wake?.();
  });
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) {
      if (child.exitCode !== null) throw new Error(`heavy client exited with ${child.exitCode}`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 200);
      });
    }
    return messages.shift();
  };
  return next().then(() => ({
    stop: async () => {
      child.send('stop');
      return (await next()) as Record<string, number>;
    },
  }));
}

interface Probe {
  count: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

/** GETs of the small ConfigMap every `interval` ms for `seconds`, each timed from when it was due. */
async function probe(target: Target, seconds: number, interval: number): Promise<Probe> {
  const p = pool(target, 32);
  const latencies: number[] = [];
  let errors = 0;
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  for (let i = 0; ; i++) {
    const due = start + i * interval;
    if (due > start + seconds * 1000) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      call(p, target, 'GET', `${CM}/small`).then(
        (s) => {
          if (s !== 200) errors++;
          latencies.push(performance.now() - due);
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(pending);
  await p.close();
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, errors, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? NaN };
}

interface Row {
  server: string;
  body: string;
  heavy: string;
  probe: Probe;
}

async function measure(target: Target, cases: CaseName[], seconds: number, interval: number): Promise<Row[]> {
  const admin = pool(target, 1);
  const created = await call(admin, target, 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
  const small = await call(admin, target, 'POST', CM, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' }, data: { a: 'b' } }));
  await admin.close();
  if (created !== 201 || small !== 201) throw new Error(`${target.name}: setup answered ${created}, ${small}`);
  const rows: Row[] = [];
  // A freshly started server is still busy with its own start (kube-apiserver's post-start hooks): let it settle.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  await probe(target, 2, interval); // warm-up: connections open, code paths compiled
  rows.push({ server: target.name, body: 'idle (ceiling)', heavy: '-', probe: await probe(target, seconds, interval) });
  for (const name of cases) {
    const heavy = await startHeavy(target, name);
    // Let the first maximal request get going before the probe starts.
    await new Promise((r) => setTimeout(r, 500));
    const measured = await probe(target, seconds, interval);
    const statuses = await heavy.stop();
    const heavyText = Object.entries(statuses)
      .map(([s, n]) => `${n}x${s}`)
      .join(' ');
    rows.push({ server: target.name, body: CASE_TITLES[name], heavy: heavyText, probe: measured });
    console.error(`  ${target.name}: ${CASE_TITLES[name]}: heavy ${heavyText}; probe p50 ${fmt(measured.p50, 1)} p99 ${fmt(measured.p99, 1)} max ${fmt(measured.max, 1)} ms`);
  }
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      interval: { type: 'string', default: '10' },
      only: { type: 'string' },
      cases: { type: 'string', default: 'keys,update,merge,apply,list,owners,deep' },
    },
  });
  const seconds = Number(values.seconds);
  const interval = Number(values.interval);
  const cases = values.cases.split(',').filter((c): c is CaseName => c in CASE_TITLES);
  const rows: Row[] = [];
  if (values.only !== 'reference') {
    const apiary = await startApiary({ storage: 'sqlite', extraArgs: ['--controllers=false'] });
    try {
      rows.push(...(await measure({ name: 'apiary', origin: apiary.origin }, cases, seconds, interval)));
    } finally {
      await apiary.stop();
    }
  }
  if (values.only !== 'apiary') {
    const missing = referenceBinariesMissing();
    if (missing.length > 0) console.error(`reference skipped: missing ${missing.join(', ')}`);
    else {
      const reference = await startReference();
      try {
        rows.push(...(await measure({ name: 'kube-apiserver 1.32.4', origin: reference.target.base, token: reference.target.token! }, cases, seconds, interval)));
      } finally {
        await reference.stop();
      }
    }
  }
  console.log(`\nevent loop: a small GET every ${interval} ms for ${seconds} s while one client sends a maximal body back to back (target: slowest < 100 ms)`);
  console.log('server                 heavy body                 heavy answers      GETs   p50 ms   p99 ms   max ms  max / 100 ms');
  for (const r of rows) {
    const q = r.probe;
    console.log(
      `${r.server.padEnd(22)} ${r.body.padEnd(26)} ${r.heavy.padEnd(16)} ${String(q.count).padStart(6)} ${fmt(q.p50, 1).padStart(8)} ${fmt(q.p99, 1).padStart(8)} ${fmt(q.max, 1).padStart(8)} ${fmt(q.max / 100, 2).padStart(12)}x${q.errors > 0 ? `  (${q.errors} errors)` : ''}`,
    );
  }
}

const heavyJob = process.env[HEAVY_JOB_ENV];
if (heavyJob !== undefined) await runHeavy(JSON.parse(heavyJob) as { target: Target; name: CaseName });
else await main();
