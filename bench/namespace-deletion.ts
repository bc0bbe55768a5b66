// Namespace deletion at scale: `apiary serve` on the embedded store (sqlite),
// a namespace holding CONFIGMAPS configmaps and SECRETS secrets (10,000 and
// 1,000 by default) is deleted; we time DELETE → namespace gone (target
// < 10 s) while another client keeps making requests in other namespaces
// (get, list, create; target p99 < 100 ms). Prints a markdown table.
//
//   node --import tsx bench/namespace-deletion.ts
//   CONFIGMAPS=1000 SECRETS=100 GRACE=5s node --import tsx bench/namespace-deletion.ts
//
// GRACE is the namespace controller's wait before it empties a namespace
// (--namespace-deletion-grace-period, 5 s as upstream); it is part of the
// measured time.

import { Pool } from 'undici';
import { fmt, percentile, runLoad, startApiary } from './lib.js';

const CONFIGMAPS = Number(process.env.CONFIGMAPS ?? 10_000);
const SECRETS = Number(process.env.SECRETS ?? 1_000);
const GRACE = process.env.GRACE ?? '5s';

const json = (o: unknown): string => JSON.stringify(o);

async function main(): Promise<void> {
  const server = await startApiary({ extraArgs: ['--namespace-deletion-grace-period', GRACE] });
  try {
    const origin = server.origin;
    for (const name of ['bulk', 'other']) {
      await fetch(`${origin}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ metadata: { name } }) });
    }
    const fill = await runLoad(origin, { concurrency: 32, total: CONFIGMAPS + SECRETS, maxSeconds: 600 }, (i) =>
      i < CONFIGMAPS
        ? { method: 'POST', path: '/api/v1/namespaces/bulk/configmaps', body: json({ metadata: { name: `cm-${i}` }, data: { i: String(i) } }) }
        : { method: 'POST', path: '/api/v1/namespaces/bulk/secrets', body: json({ metadata: { name: `s-${i}` }, stringData: { i: String(i) } }) },
    );
    for (let i = 0; i < 50; i++) {
      await fetch(`${origin}/api/v1/namespaces/other/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ metadata: { name: `seed-${i}` } }) });
    }

    // The other client: a closed loop of get / list / create in "other", concurrency 4.
    const pool = new Pool(origin, { connections: 4 });
    const latencies: number[] = [];
    let errors = 0;
    let running = true;
    let n = 0;
    const other = async (): Promise<void> => {
      while (running) {
        const i = n++;
        const spec =
          i % 3 === 0
            ? { method: 'GET' as const, path: `/api/v1/namespaces/other/configmaps/seed-${i % 50}` }
            : i % 3 === 1
              ? { method: 'GET' as const, path: '/api/v1/namespaces/other/configmaps?limit=50' }
              : { method: 'POST' as const, path: '/api/v1/namespaces/other/configmaps', body: json({ metadata: { name: `o-${i}` } }), headers: { 'content-type': 'application/json' } };
        const t0 = performance.now();
        try {
          const res = await pool.request(spec);
          await res.body.text();
          if (res.statusCode >= 300) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    };
    const others = Array.from({ length: 4 }, () => other());

    const t0 = performance.now();
    const del = await fetch(`${origin}/api/v1/namespaces/bulk`, { method: 'DELETE' });
    if (del.status !== 200) throw new Error(`DELETE answered ${del.status}`);
    let goneMs = NaN;
    const deadline = t0 + 300_000;
    while (performance.now() < deadline) {
      const res = await fetch(`${origin}/api/v1/namespaces/bulk`);
      await res.text();
      if (res.status === 404) {
        goneMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    running = false;
    await Promise.all(others);
    await pool.close();
    latencies.sort((a, b) => a - b);

    console.log(`\n## Namespace deletion (sqlite, ${CONFIGMAPS} configmaps + ${SECRETS} secrets, grace ${GRACE})\n`);
    console.log('| measure | value | target |');
    console.log('| --- | ---: | ---: |');
    console.log(`| fill rate (creates/s, concurrency 32) | ${fmt(fill.rps)} | |`);
    console.log(`| DELETE → gone (s) | ${fmt(goneMs / 1000, 2)} | < 10 |`);
    console.log(`| DELETE → gone minus grace (s) | ${fmt((goneMs - parseGrace(GRACE)) / 1000, 2)} | |`);
    console.log(`| other namespace: requests | ${latencies.length} (${errors} errors) | |`);
    console.log(`| other namespace: p50 (ms) | ${fmt(percentile(latencies, 0.5), 1)} | |`);
    console.log(`| other namespace: p99 (ms) | ${fmt(percentile(latencies, 0.99), 1)} | < 100 |`);
  } finally {
    await server.stop();
  }
}

function parseGrace(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text);
  if (!m) return 0;
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

await main();
