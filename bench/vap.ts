// ValidatingAdmissionPolicy cost, in one run of `apiary serve` (built, SQLite,
// durable writes): configmap creates in a namespace a policy of 3 CEL
// expressions (all passing) is bound to, against creates in a namespace no
// binding selects (the policy is not evaluated there: no admission beyond the
// built-in chain), with wrk, back to back, alternating which goes first. The
// ratio is the median of the rounds' policy / no-policy ratios (target >= 80%).
//
//   node --import tsx bench/vap.ts
//   ROUNDS=9 SECONDS=2 node --import tsx bench/vap.ts   (default 7 rounds of 2 s)

import { fmt, median, startApiary } from './lib.js';
import { requireWrk, runWrk, type WrkResult } from './wrk.js';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const SECONDS = Number(process.env.SECONDS ?? 2);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const AR = '/apis/admissionregistration.k8s.io/v1';

const policy = {
  metadata: { name: 'bench-policy' },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
    validations: [
      { expression: '!has(object.data) || size(object.data) <= 32', message: 'at most 32 keys' },
      { expression: "object.metadata.name.startsWith('cm-')", message: 'names start with cm-' },
      { expression: "!has(object.metadata.labels) || !('forbidden' in object.metadata.labels)", message: 'no forbidden label' },
    ],
  },
};
const binding = {
  metadata: { name: 'bench-binding' },
  spec: { policyName: 'bench-policy', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { policy: 'on' } } } },
};

const data: Record<string, string> = {};
for (let i = 0; i < 8; i++) data[`key${i}`] = `value-${i}-${'x'.repeat(40)}`;
const body = (round: number): string => JSON.stringify({ metadata: { name: `cm-${round}-{i}` }, data });

async function main(): Promise<void> {
  requireWrk();
  const server = await startApiary();
  try {
    const origin = server.origin;
    const post = async (path: string, b: unknown): Promise<Response> => {
      const res = await fetch(origin + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return res;
    };
    await post('/api/v1/namespaces', { metadata: { name: 'with-policy', labels: { policy: 'on' } } });
    await post('/api/v1/namespaces', { metadata: { name: 'without' } });
    await post(`${AR}/validatingadmissionpolicies`, policy);
    await post(`${AR}/validatingadmissionpolicybindings`, binding);
    // the binding is in effect: a ConfigMap the policy refuses is refused
    for (const t0 = Date.now(); ; ) {
      const res = await fetch(`${origin}/api/v1/namespaces/with-policy/configmaps?dryRun=All`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'x' } }) });
      await res.text();
      if (res.status === 422) break;
      if (Date.now() - t0 > 5000) throw new Error('the binding never took effect');
      await new Promise((r) => setTimeout(r, 10));
    }
    const options = { concurrency: CONCURRENCY, seconds: SECONDS };
    const create = (ns: string, round: number): Promise<WrkResult> => runWrk(origin, options, { method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: body(round) });
    await create('without', 0);
    await create('with-policy', 0);
    const rows: { plain: WrkResult; vap: WrkResult }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      if (round % 2 === 1) {
        const plain = await create('without', round);
        rows.push({ plain, vap: await create('with-policy', round) });
      } else {
        const vap = await create('with-policy', round);
        rows.push({ plain: await create('without', round), vap });
      }
    }
    const ratio = median(rows.map((r) => r.vap.rps / r.plain.rps));
    const errors = rows.reduce((n, r) => n + r.plain.errors + r.vap.errors, 0);
    console.log('');
    console.log(`| creates | no policy req/s | one VAP (3 expressions) req/s | ratio (median of ${ROUNDS} rounds) | VAP p50 ms | VAP p99 ms | errors |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| configmaps | ${fmt(median(rows.map((r) => r.plain.rps)))} | ${fmt(median(rows.map((r) => r.vap.rps)))} | ${fmt(ratio * 100, 1)}% | ${fmt(median(rows.map((r) => r.vap.p50ms)), 2)} | ${fmt(median(rows.map((r) => r.vap.p99ms)), 2)} | ${errors} |`,
    );
    console.log(`target: >= 80% -> ${ratio >= 0.8 ? 'met' : 'NOT met'}`);
  } finally {
    await server.stop();
  }
}

await main();
