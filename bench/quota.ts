// The quota benchmark (issue 20): configmap create throughput in a namespace
// with 3 ResourceQuotas and a LimitRange, as a ratio of the same creates in a
// namespace with none, in one run of one apiary (`apiary serve`, SQLite, the
// resource quota controller running). Each round runs both phases back to
// back, in alternating order, so both see the same machine state; the ratio
// is the median of the rounds' ratios. The server's CPU time per create (from
// /proc) is reported too: on a machine shared with noisy neighbours its ratio
// is the steadier figure of what quota costs the server.
//
// The quotas: two count configmaps (`count/configmaps` and the legacy
// `configmaps`, so every create is charged to two quotas and both are
// compare-and-swapped), one does not (pods, requests.cpu). The LimitRange
// applies to pods only, so for configmaps it costs a lookup.
//
// Usage: node --import tsx bench/quota.ts [--concurrency 32] [--rounds 9] [--requests 3000]

import { parseArgs } from 'node:util';
import { cpuSeconds, startApiary, runLoad, median, fmt, type LoadResult } from './lib.js';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '9' },
    requests: { type: 'string', default: '3000' },
  },
});
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);
const perRound = Number(args.requests);

const payload = 'x'.repeat(1024);


async function post(origin: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(origin + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}

async function waitQuotaStatus(origin: string, ns: string, name: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const q = (await (await fetch(`${origin}/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json()) as { status?: { used?: unknown } };
    if (q.status?.used !== undefined) return;
    if (Date.now() > deadline) throw new Error(`quota ${ns}/${name} has no status after 20 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const apiary = await startApiary();
  try {
    const origin = apiary.origin;
    await post(origin, '/api/v1/namespaces', { metadata: { name: 'plain' } });
    await post(origin, '/api/v1/namespaces', { metadata: { name: 'limited' } });
    const quotas: [string, Record<string, string>][] = [
      ['objects', { 'count/configmaps': '1000000', 'count/secrets': '1000' }],
      ['legacy', { configmaps: '1000000', services: '100' }],
      ['compute', { pods: '100', 'requests.cpu': '10' }],
    ];
    for (const [name, hard] of quotas) await post(origin, '/api/v1/namespaces/limited/resourcequotas', { metadata: { name }, spec: { hard } });
    await post(origin, '/api/v1/namespaces/limited/limitranges', {
      metadata: { name: 'defaults' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, max: { cpu: '2' } }] },
    });
    for (const [name] of quotas) await waitQuotaStatus(origin, 'limited', name);

    const plain: LoadResult[] = [];
    const limited: LoadResult[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const cpu: Record<string, number[]> = { plain: [], limited: [] };
    const pid = apiary.process.pid!;
    const phase = async (ns: string, round: number): Promise<LoadResult> => {
      const before = cpuSeconds(pid);
      const result = await runLoad(origin, { concurrency, total: perRound, maxSeconds: 60, expectStatus: [201] }, (i) => ({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r${round}-${i}` }, data: { payload } }),
      }));
      cpu[ns]!.push(((cpuSeconds(pid) - before) / perRound) * 1e6);
      return result;
    };
    // A warm-up round in each, not counted.
    await phase('plain', -1);
    await phase('limited', -1);
    cpu['plain'] = [];
    cpu['limited'] = [];
    for (let r = 0; r < rounds; r++) {
      for (const ns of r % 2 === 0 ? ['plain', 'limited'] : ['limited', 'plain']) (ns === 'plain' ? plain : limited).push(await phase(ns, r));
      ratios.push(limited[r]!.rps / plain[r]!.rps);
      cpuRatios.push(cpu['plain']![r]! / cpu['limited']![r]!);
    }
    const errors = [...plain, ...limited].reduce((n, x) => n + x.errors, 0);
    const p = median(plain.map((x) => x.rps));
    const l = median(limited.map((x) => x.rps));
    const used = (await (await fetch(`${origin}/api/v1/namespaces/limited/resourcequotas/objects`)).json()) as { status?: { used?: Record<string, string> } };
    const pct = (xs: number[]): string => xs.map((x) => `${fmt(100 * x)}%`).join(' ');
    console.log(`configmap creates, ${concurrency} concurrent, ${perRound} per phase, median of ${rounds} rounds (SQLite)`);
    console.log(`  no quota:                    ${fmt(p)} req/s  p50 ${fmt(median(plain.map((x) => x.p50ms)), 1)} ms  p99 ${fmt(median(plain.map((x) => x.p99ms)), 1)} ms  server CPU ${fmt(median(cpu['plain']!))} µs/create`);
    console.log(`  3 quotas + LimitRange:       ${fmt(l)} req/s  p50 ${fmt(median(limited.map((x) => x.p50ms)), 1)} ms  p99 ${fmt(median(limited.map((x) => x.p99ms)), 1)} ms  server CPU ${fmt(median(cpu['limited']!))} µs/create`);
    console.log(`  ratio: ${fmt(100 * median(ratios))} % (target ≥ 75 %), errors: ${errors}; per round: ${pct(ratios)}`);
    console.log(`  server CPU ratio (no quota / quota'd): ${fmt(100 * median(cpuRatios))} %; per round: ${pct(cpuRatios)}`);
    console.log(`  quota 'objects' status.used count/configmaps = ${used.status?.used?.['count/configmaps']} (expected ${(rounds + 1) * perRound}, printed as a quantity)`);
  } finally {
    await apiary.stop();
  }
}

await main();
