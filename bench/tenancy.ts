// The tenancy benchmark (issue 31): what hierarchical namespaces cost at
// scale, each figure a ratio to the same operation on a flat namespace (the
// ceiling) measured in the same run of one `apiary serve` (SQLite, HTTPS,
// RBAC, every controller running; the admin's client certificate).
//
// The tree: 1,000 namespaces, depth 10 (the root `org` at depth 0, leaves at
// depth 9), parents set through each namespace's `hierarchy`
// HierarchyConfiguration; 10 RoleBindings at the root (user tenant-<i> bound
// to `edit`). Beside it the flat namespace `flat` with the same 10
// RoleBindings, and `dest`, a second root.
//
//   1. authorization decision: SubjectAccessReviews (tenant-3 may get pods?)
//      in a leaf vs in `flat`, closed-loop load; cost ratio = flat rate / leaf
//      rate (target ≤ 1.5). The leaf's answer is allowed only where RBAC
//      inheritance is in (it is printed).
//   2. subnamespace creation: a SubnamespaceAnchor in a leaf vs in `flat`,
//      one at a time, timed until the new namespace carries its parent's tree
//      label (created and placed); medians, ratio (target ≤ 1.5).
//   3. re-parenting a 100-namespace subtree (`mover`, depth 1–9, one configmap
//      in each) between `org` and `dest`: until every namespace of it carries
//      the new root's tree label and not the old one, until the new root's
//      HRQ counts the subtree's configmaps, and until the old root's no
//      longer does; medians over the moves (target < 1 s).
//   4. quota-charged creates: configmap creates in a leaf charged to an HRQ at
//      the root 9 levels up vs in a flat namespace charged to a ResourceQuota;
//      closed-loop load, alternating rounds; cost ratio = plain rate / HRQ
//      rate (target ≤ 1.3), and the server's CPU per create.
//
// Usage: node --import tsx bench/tenancy.ts [--namespaces 1000] [--depth 10]
//        [--rounds 5] [--requests 2000] [--concurrency 16] [--anchors 20] [--moves 6]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { Pool } from 'undici';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { cpuSeconds, fmt, median, percentile } from './lib.js';

const { values: args } = parseArgs({
  options: {
    namespaces: { type: 'string', default: '1000' },
    depth: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    anchors: { type: 'string', default: '20' },
    moves: { type: 'string', default: '6' },
  },
});
const TOTAL = Number(args.namespaces);
const DEPTH = Number(args.depth);
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const ANCHORS = Number(args.anchors);
const MOVES = Number(args.moves);
const MOVER_SIZE = 100;
const BINDINGS = 10;
const REPO = fileURLToPath(new URL('..', import.meta.url));
const HNC = '/apis/hnc.x-k8s.io/v1alpha2';
const treeLabel = (ns: string): string => `${ns}.tree.hnc.x-k8s.io/depth`;

interface Reply {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- whatever the server answers
}

class Api {
  readonly pool: Pool;
  constructor(
    readonly origin: string,
    readonly tls: { ca: string; cert: string; key: string },
    connections: number,
  ) {
    this.pool = new Pool(origin, { connections, connect: tls });
  }
  async call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Reply> {
    const res = await this.pool.request({
      method,
      path,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.statusCode, json };
  }
  async must(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Reply> {
    const r = await this.call(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    return r;
  }
}

/** Runs `fn` over the items, `width` at a time. */
async function parallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, intervalMs = 5): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A closed loop of `total` requests, `concurrency` in flight: the rate and median latency. */
async function load(api: Api, total: number, concurrency: number, make: (i: number) => { method: 'GET' | 'POST'; path: string; body?: unknown }, expect: number[]): Promise<{ rps: number; p50: number; errors: number; first?: string }> {
  let issued = 0;
  let errors = 0;
  let first: string | undefined;
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < total) {
      const spec = make(issued++);
      const s = performance.now();
      const r = await api.call(spec.method, spec.path, spec.body);
      latencies.push(performance.now() - s);
      if (!expect.includes(r.status)) {
        errors++;
        first ??= `${r.status} ${JSON.stringify(r.json).slice(0, 200)}`;
      }
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p50: percentile(latencies, 0.5), errors, ...(first !== undefined ? { first } : {}) };
}

function namespaceBody(name: string) {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

async function setParent(api: Api, ns: string, parent: string): Promise<void> {
  const path = `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`;
  const current = await api.call('GET', path);
  if (current.status === 404) {
    await api.must('POST', `${HNC}/namespaces/${ns}/hierarchyconfigurations`, {
      apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent },
    });
    return;
  }
  await api.must('PUT', path, { ...current.json, spec: { ...current.json.spec, parent } });
}

/** The tree: levels[d] holds the namespaces at depth d; `mover` is a 100-namespace subtree under the root. */
function planTree(): { levels: string[][]; parentOf: Map<string, string>; mover: string[]; leaves: string[] } {
  const parentOf = new Map<string, string>();
  const levels: string[][] = Array.from({ length: DEPTH }, () => []);
  levels[0]!.push('org');
  // The mover: one namespace at depth 1, the other 99 spread over depths 2..DEPTH-1.
  const mover = ['mover'];
  levels[1]!.push('mover');
  parentOf.set('mover', 'org');
  const moverLevels: string[][] = [['mover']];
  for (let i = 1; i < MOVER_SIZE; i++) {
    // Depths 2..DEPTH-1 in order, so the level above is always filled first.
    const d = 2 + Math.floor(((i - 1) * (DEPTH - 2)) / (MOVER_SIZE - 1));
    const name = `mover-${d}-${i}`;
    const above = moverLevels[d - 2]!;
    (moverLevels[d - 1] ??= []).push(name);
    parentOf.set(name, above[i % above.length]!);
    levels[d]!.push(name);
    mover.push(name);
  }
  // The rest of the 1,000 over depths 1..DEPTH-1, each parented round-robin on the level above.
  const rest = TOTAL - 1 - MOVER_SIZE;
  for (let i = 0; i < rest; i++) {
    const d = 1 + Math.floor((i * (DEPTH - 1)) / rest);
    const name = `t-${d}-${i}`;
    const above = levels[d - 1]!.filter((n) => !n.startsWith('mover'));
    parentOf.set(name, above[i % above.length]!);
    levels[d]!.push(name);
  }
  const leaves = levels[DEPTH - 1]!.filter((n) => !n.startsWith('mover'));
  return { levels, parentOf, mover, leaves };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json')], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-bench-tenancy-'));
  const proc = spawnNode([join(REPO, 'dist/cli/main.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { stderr: 'inherit' }, 'apiary serve');
  const origin = await proc.url;
  const pki = (f: string): string => readFileSync(join(dataDir, 'pki', f), 'utf8');
  const api = new Api(origin, { ca: pki('ca.crt'), cert: pki('admin.crt'), key: pki('admin.key') }, Math.max(32, CONCURRENCY));
  const pid = proc.child.pid!;
  const measured: string[] = [];
  try {
    await until('ready', async () => (await api.call('GET', '/readyz').catch(() => ({ status: 0 }))).status === 200, 60_000, 50);

    // ---- the tree ----
    const t0 = performance.now();
    const plan = planTree();
    const all = plan.levels.flat();
    await parallel([...all, 'flat', 'dest', 'plainq'], 16, (ns) => api.must('POST', '/api/v1/namespaces', namespaceBody(ns)));
    for (let d = 1; d < DEPTH; d++) await parallel(plan.levels[d]!, 16, (ns) => setParent(api, ns, plan.parentOf.get(ns)!));
    for (const ns of ['org', 'flat']) {
      for (let i = 0; i < BINDINGS; i++) {
        await api.must('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
          metadata: { name: `tenant-${i}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `tenant-${i}` }],
        });
      }
    }
    const leaf = plan.leaves[0]!;
    // Placed: the leaf carries the root's tree label (when the tree labels are in).
    let labelled = true;
    await until(`${leaf} labelled under org`, async () => {
      const r = await api.must('GET', `/api/v1/namespaces/${leaf}`);
      return r.json.metadata.labels?.[treeLabel('org')] === String(DEPTH - 1);
    }, 60_000, 50).catch(() => {
      labelled = false;
    });
    console.log(`tenancy benchmark: ${all.length} namespaces in a tree of depth ${DEPTH} (built in ${fmt((performance.now() - t0) / 1000, 1)} s), ${BINDINGS} RoleBindings at the root; HTTPS + RBAC, SQLite`);
    if (!labelled) console.log('  (tree labels did not appear on the leaf within 60 s: the label-based waits below will time out)');

    // ---- 1. authorization decisions ----
    const sar = (ns: string) => ({
      method: 'POST' as const,
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'tenant-3', resourceAttributes: { namespace: ns, verb: 'get', resource: 'pods' } } },
    });
    const leafAllowed = (await api.must('POST', sar(leaf).path, sar(leaf).body)).json.status?.allowed === true;
    const flatAllowed = (await api.must('POST', sar('flat').path, sar('flat').body)).json.status?.allowed === true;
    {
      const rates = { leaf: [] as number[], flat: [] as number[] };
      const ratios: number[] = [];
      await load(api, 500, CONCURRENCY, () => sar(leaf), [201]);
      await load(api, 500, CONCURRENCY, () => sar('flat'), [201]);
      for (let r = 0; r < ROUNDS; r++) {
        for (const which of r % 2 === 0 ? (['flat', 'leaf'] as const) : (['leaf', 'flat'] as const)) {
          const res = await load(api, REQUESTS, CONCURRENCY, () => sar(which === 'leaf' ? leaf : 'flat'), [201]);
          if (res.errors > 0) throw new Error(`SubjectAccessReview: ${res.first}`);
          rates[which].push(res.rps);
        }
        ratios.push(rates.flat[r]! / rates.leaf[r]!);
      }
      const line = `1. authorization decision (SubjectAccessReview, ${CONCURRENCY} concurrent): leaf (depth ${DEPTH - 1}) ${fmt(median(rates.leaf))}/s, allowed=${leafAllowed}; flat ${fmt(median(rates.flat))}/s, allowed=${flatAllowed}; cost ratio ${fmt(median(ratios), 2)}x (target ≤ 1.5x)`;
      console.log(line);
      measured.push(line);
      if (!leafAllowed) console.log('   the leaf decision is a denial: RBAC inheritance is not in this build (the figure is the cost of a denial through 10 levels)');
    }

    // ---- 2. subnamespace creation ----
    {
      const times = { leaf: [] as number[], flat: [] as number[] };
      let placedByLabel = labelled;
      const create = async (parent: string, name: string): Promise<number> => {
        const s = performance.now();
        await api.must('POST', `${HNC}/namespaces/${parent}/subnamespaceanchors`, {
          apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name },
        });
        await until(`subnamespace ${name}`, async () => {
          const r = await api.call('GET', `/api/v1/namespaces/${name}`);
          if (r.status !== 200) return false;
          return !placedByLabel || r.json.metadata.labels?.[treeLabel(parent)] === '1';
        }, 20_000, 2).catch((err: unknown) => {
          if (!placedByLabel) throw err;
          placedByLabel = false;
        });
        return performance.now() - s;
      };
      for (let i = 0; i < 2; i++) {
        await create(leaf, `warm-leaf-${i}`);
        await create('flat', `warm-flat-${i}`);
      }
      for (let i = 0; i < ANCHORS; i++) {
        if (i % 2 === 0) {
          times.leaf.push(await create(leaf, `sub-leaf-${i}`));
          times.flat.push(await create('flat', `sub-flat-${i}`));
        } else {
          times.flat.push(await create('flat', `sub-flat-${i}`));
          times.leaf.push(await create(leaf, `sub-leaf-${i}`));
        }
      }
      const line = `2. subnamespace creation (anchor POST until the namespace ${placedByLabel ? 'carries its parent\'s tree label' : 'exists'}, one at a time, ${ANCHORS} each): in a leaf ${fmt(median(times.leaf), 1)} ms, in flat ${fmt(median(times.flat), 1)} ms; ratio ${fmt(median(times.leaf) / median(times.flat), 2)}x (target ≤ 1.5x)`;
      console.log(line);
      measured.push(line);
    }

    // ---- 3. re-parenting a 100-namespace subtree ----
    {
      await parallel(plan.mover, 16, (ns) => api.must('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'payload' }, data: { k: 'v' } }));
      for (const root of ['org', 'dest']) {
        await api.must('POST', `${HNC}/namespaces/${root}/hierarchicalresourcequotas`, {
          apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchicalResourceQuota', metadata: { name: 'tree' }, spec: { hard: { configmaps: '1000000' } },
        });
      }
      const used = async (root: string): Promise<number> => {
        const r = await api.must('GET', `${HNC}/namespaces/${root}/hierarchicalresourcequotas/tree`);
        return Number(r.json.status?.used?.configmaps ?? NaN);
      };
      // What moves with the subtree: its configmaps (the payloads and each namespace's kube-root-ca.crt).
      const moverSet = new Set(plan.mover);
      const moved = (await api.must('GET', '/api/v1/configmaps')).json.items.filter((c: { metadata: { namespace: string } }) => moverSet.has(c.metadata.namespace)).length as number;
      await until('HRQs measured', async () => (await used('org')) >= moved && (await used('dest')) >= 0, 30_000, 20);
      // Settled: the same figures twice, half a second apart.
      for (let last = ''; ; ) {
        const now = `${await used('org')}/${await used('dest')}`;
        if (now === last) break;
        last = now;
        await new Promise((r) => setTimeout(r, 500));
      }
      const labelTimes: number[] = [];
      const raiseTimes: number[] = [];
      const releaseTimes: number[] = [];
      const writeTimes: number[] = [];
      let labelsOk = labelled;
      for (let m = 0; m < MOVES; m++) {
        const [from, to] = m % 2 === 0 ? ['org', 'dest'] : ['dest', 'org'];
        const fromBefore = await used(from);
        const toBefore = await used(to);
        const s = performance.now();
        await setParent(api, 'mover', to);
        writeTimes.push(performance.now() - s);
        const waits: Promise<void>[] = [
          until('new root HRQ raised', async () => (await used(to)) === toBefore + moved, 30_000, 5).then(() => {
            raiseTimes.push(performance.now() - s);
          }),
          until('old root HRQ released', async () => (await used(from)) === fromBefore - moved, 30_000, 5).then(() => {
            releaseTimes.push(performance.now() - s);
          }),
        ];
        if (labelsOk) {
          waits.push(
            until('tree labels moved', async () => {
              const sel = encodeURIComponent(`${treeLabel(to)},!${treeLabel(from)},${treeLabel('mover')}`);
              const r = await api.must('GET', `/api/v1/namespaces?labelSelector=${sel}`);
              return r.json.items.length === MOVER_SIZE;
            }, 30_000, 5).then(
              () => {
                labelTimes.push(performance.now() - s);
              },
              () => {
                labelsOk = false;
              },
            ),
          );
        }
        await Promise.all(waits);
      }
      const line = `3. re-parenting the ${MOVER_SIZE}-namespace subtree (${MOVES} moves, medians): the HierarchyConfiguration write ${fmt(median(writeTimes), 1)} ms; tree labels of all ${MOVER_SIZE} moved ${labelsOk ? `${fmt(median(labelTimes), 1)} ms` : 'not measured (labels not there)'}; the new root's HRQ counts its ${moved} configmaps after ${fmt(median(raiseTimes), 1)} ms, the old root's releases them after ${fmt(median(releaseTimes), 1)} ms (target < 1 s)`;
      console.log(line);
      measured.push(line);
    }

    // ---- 4. HRQ-charged vs ResourceQuota-charged creates ----
    {
      await api.must('POST', '/api/v1/namespaces/plainq/resourcequotas', { metadata: { name: 'plain' }, spec: { hard: { configmaps: '1000000' } } });
      await until('plain quota status', async () => (await api.must('GET', '/api/v1/namespaces/plainq/resourcequotas/plain')).json.status?.used !== undefined, 30_000, 20);
      const hrqLeaf = plan.leaves[1] ?? leaf;
      const rates = { hrq: [] as number[], plain: [] as number[] };
      const cpu = { hrq: [] as number[], plain: [] as number[] };
      const ratios: number[] = [];
      const phase = async (which: 'hrq' | 'plain', round: number) => {
        const ns = which === 'hrq' ? hrqLeaf : 'plainq';
        const before = cpuSeconds(pid);
        const res = await load(api, REQUESTS, CONCURRENCY * 2, (i) => ({
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/configmaps`,
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r${round}-${i}` }, data: { payload: 'x'.repeat(256) } },
        }), [201]);
        if (res.errors > 0) throw new Error(`create in ${ns}: ${res.first}`);
        if (round >= 0) {
          rates[which].push(res.rps);
          cpu[which].push(((cpuSeconds(pid) - before) / REQUESTS) * 1e6);
        }
      };
      await phase('plain', -1);
      await phase('hrq', -1);
      for (let r = 0; r < ROUNDS; r++) {
        for (const which of r % 2 === 0 ? (['plain', 'hrq'] as const) : (['hrq', 'plain'] as const)) await phase(which, r);
        ratios.push(rates.plain[r]! / rates.hrq[r]!);
      }
      const hrqUsed = (await api.must('GET', `${HNC}/namespaces/org/hierarchicalresourcequotas/tree`)).json.status?.used?.configmaps;
      const line = `4. configmap creates (${CONCURRENCY * 2} concurrent, ${REQUESTS} per phase, ${ROUNDS} rounds): charged to an HRQ 9 levels up ${fmt(median(rates.hrq))}/s (server CPU ${fmt(median(cpu.hrq))} µs/create); charged to a ResourceQuota ${fmt(median(rates.plain))}/s (${fmt(median(cpu.plain))} µs/create); cost ratio ${fmt(median(ratios), 2)}x (target ≤ 1.3x), CPU ratio ${fmt(median(cpu.hrq) / median(cpu.plain), 2)}x; the root HRQ's used configmaps = ${hrqUsed}`;
      console.log(line);
      measured.push(line);
    }
  } finally {
    await api.pool.close();
    await proc.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
