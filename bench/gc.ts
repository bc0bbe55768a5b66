// Garbage collection of DEPENDENTS configmaps (10,000 by default) of one owner
// configmap: on `apiary serve` (sqlite, its own collector in-process) and on
// a kube-apiserver 1.32 + etcd 3.5 + kube-controller-manager (its garbage
// collector) started as the differential test starts it, one after the other
// in one run. The dependents are created (32 in flight), the owner is deleted
// with propagationPolicy=Background, and we time DELETE → every dependent
// gone, with the server processes' CPU seconds over that interval and their
// peak RSS. Prints a markdown table.
//
//   node --import tsx bench/gc.ts
//   DEPENDENTS=2000 SIDES=apiary node --import tsx bench/gc.ts
//
// The reference needs the binaries the differential pass builds
// (test/compat/kubernetes/bin, test/compat/etcd-3.5/bin).

import { readFileSync, readdirSync } from 'node:fs';
import { Pool } from 'undici';
import { cpuSeconds, startApiary } from './lib.js';
import { startReference } from '../test/compat/differential/reference.js';

const DEPENDENTS = Number(process.env.DEPENDENTS ?? 10_000);
const SIDES = (process.env.SIDES ?? 'apiary,reference').split(',');

interface Side {
  origin: string;
  token?: string;
  /** Server processes to measure: name → pid. */
  pids(): Map<string, number>;
  stop(): Promise<void>;
}


function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Our child processes by command name (the reference's are spawned detached, still our children). */
function childrenNamed(names: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && names.some((n) => comm.startsWith(n.slice(0, 15)))) out.set(comm, Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

async function startSide(name: string): Promise<Side> {
  if (name === 'apiary') {
    const server = await startApiary();
    return { origin: server.origin, pids: () => new Map([['apiary', server.process.pid!]]), stop: () => server.stop() };
  }
  const ref = await startReference();
  return {
    origin: ref.target.base,
    token: ref.target.token,
    pids: () => childrenNamed(['kube-apiserver', 'kube-controller-manager', 'etcd']),
    stop: () => ref.stop(),
  };
}

async function run(sideName: string): Promise<Record<string, string>> {
  const side = await startSide(sideName);
  const pool = new Pool(side.origin, { connections: 32, connect: { rejectUnauthorized: false } });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (side.token) headers.authorization = `Bearer ${side.token}`;
  const call = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await pool.request({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.body.text();
    return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  try {
    const ns = 'gc-bench';
    await call('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const owner = await call('POST', base, { metadata: { name: 'owner' } });
    const uid = (owner.json['metadata'] as { uid: string }).uid;
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid };
    const t0 = performance.now();
    let next = 0;
    let failures = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < DEPENDENTS) {
          const i = next++;
          const r = await call('POST', base, { metadata: { name: `dep-${i}`, labels: { bench: 'gc' }, ownerReferences: [ownerRef] }, data: { i: String(i) } });
          if (r.status !== 201) failures++;
        }
      }),
    );
    const createSeconds = (performance.now() - t0) / 1000;
    // Let the collector's informers catch up before the clock starts.
    await new Promise((r) => setTimeout(r, 2000));

    const pids = side.pids();
    const cpuBefore = new Map([...pids].map(([n, p]) => [n, cpuSeconds(p)]));
    const peak = new Map([...pids].map(([n, p]) => [n, rss(p)]));
    const started = performance.now();
    const del = await call('DELETE', `${base}/owner`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    if (del.status !== 200) throw new Error(`DELETE owner: ${del.status}`);
    let remaining = DEPENDENTS;
    const deadline = started + 600_000;
    while (remaining > 0) {
      await new Promise((r) => setTimeout(r, 250));
      for (const [n, p] of pids) peak.set(n, Math.max(peak.get(n) ?? 0, rss(p)));
      const list = await call('GET', `${base}?labelSelector=bench%3Dgc&limit=1`);
      const items = (list.json['items'] as unknown[] | undefined) ?? [];
      const meta = list.json['metadata'] as { remainingItemCount?: number } | undefined;
      remaining = items.length + (meta?.remainingItemCount ?? 0);
      if (performance.now() > deadline) throw new Error(`${remaining} dependents left after 600 s`);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = [...pids].map(([n, p]) => `${n} ${(cpuSeconds(p) - (cpuBefore.get(n) ?? 0)).toFixed(1)}`).join(', ');
    const mem = [...pids].map(([n]) => `${n} ${((peak.get(n) ?? 0) / 2 ** 20).toFixed(0)}`).join(', ');
    return {
      side: sideName,
      create: `${createSeconds.toFixed(1)} s${failures > 0 ? ` (${failures} failed)` : ''}`,
      collect: `${seconds.toFixed(1)} s`,
      rate: `${(DEPENDENTS / seconds).toFixed(0)}/s`,
      cpu: `${cpu} s`,
      rss: `${mem} MiB`,
    };
  } finally {
    await pool.close();
    await side.stop();
  }
}

async function main(): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (const s of SIDES) rows.push(await run(s));
  console.log(`\nGC of ${DEPENDENTS} dependent configmaps of one owner (DELETE owner → all collected)\n`);
  console.log('| server | create dependents | collect all | rate | server CPU during collection | peak RSS |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r['side']} | ${r['create']} | ${r['collect']} | ${r['rate']} | ${r['cpu']} | ${r['rss']} |`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
