// Re-parenting a subtree (issue 31's figure: a 100-namespace subtree moves in
// under 1 s). `apiary serve` on sqlite; a subtree of SUBTREE namespaces (x and
// its descendants, DEPTH levels) hangs under root-a; each round sets x's
// `spec.parent` to the other root and times PUT → every namespace of the
// subtree carries the new root's tree label and none the old one's (lists by
// label selector, polled). Also counts the lists that saw a namespace with
// labels of both trees (must be 0). Prints the median and its ratio to the
// 1 s ceiling.
//
//   node --import tsx bench/hierarchy-reparent.ts
//   SUBTREE=100 DEPTH=10 ROUNDS=7 node --import tsx bench/hierarchy-reparent.ts

import { fmt, median, startApiary } from './lib.js';

const SUBTREE = Number(process.env.SUBTREE ?? 100);
const DEPTH = Number(process.env.DEPTH ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CEILING_MS = 1000;
const HNC = '/apis/hnc.x-k8s.io/v1alpha2';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire objects, read field by field

async function call(origin: string, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(origin + path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.json()) as Json;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function setParent(origin: string, ns: string, parent: string): Promise<void> {
  const existing = await fetch(`${origin}${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`);
  if (existing.status === 404) {
    await call(origin, 'POST', `${HNC}/namespaces/${ns}/hierarchyconfigurations`, { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent } });
    return;
  }
  const hc = (await existing.json()) as Json;
  await call(origin, 'PUT', `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`, { ...hc, spec: { ...hc.spec, parent } });
}

async function names(origin: string, selector: string): Promise<Json[]> {
  return (await call(origin, 'GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent(selector)}`)).items as Json[];
}

async function main(): Promise<void> {
  const server = await startApiary();
  try {
    const origin = server.origin;
    for (const ns of ['root-a', 'root-b']) await call(origin, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    // x, then SUBTREE-1 namespaces spread over DEPTH-1 levels below it.
    const subtree = ['x'];
    const parents: Record<string, string> = { x: 'root-a' };
    const perLevel = Math.ceil((SUBTREE - 1) / Math.max(1, DEPTH - 1));
    let level = ['x'];
    while (subtree.length < SUBTREE) {
      const next: string[] = [];
      for (let i = 0; i < perLevel && subtree.length < SUBTREE; i++) {
        const name = `x-${subtree.length}`;
        parents[name] = level[i % level.length]!;
        subtree.push(name);
        next.push(name);
      }
      level = next;
    }
    for (const ns of subtree) await call(origin, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    for (const ns of subtree) await setParent(origin, ns, parents[ns]!);
    const settle = async (root: string, other: string): Promise<{ ms: number; mixed: number }> => {
      const t0 = performance.now();
      let mixed = 0;
      for (;;) {
        const [inNew, inOld] = await Promise.all([names(origin, `${root}.tree.hnc.x-k8s.io/depth`), names(origin, `${other}.tree.hnc.x-k8s.io/depth`)]);
        mixed += inNew.filter((n) => n.metadata.labels?.[`${other}.tree.hnc.x-k8s.io/depth`] !== undefined).length;
        // The old root, left without children, leaves the hierarchy (and its label) too.
        if (inNew.length === SUBTREE + 1 && inOld.length === 0) return { ms: performance.now() - t0, mixed };
        if (performance.now() - t0 > 30_000) throw new Error(`not settled after 30 s: ${inNew.length} under ${root}, ${inOld.length} under ${other}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await settle('root-a', 'root-b');
    const times: number[] = [];
    let mixedTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const [to, from] = round % 2 === 0 ? ['root-b', 'root-a'] : ['root-a', 'root-b'];
      const t0 = performance.now();
      await setParent(origin, 'x', to);
      const { mixed } = await settle(to, from);
      times.push(performance.now() - t0);
      mixedTotal += mixed;
    }
    const m = median(times);
    console.log(`| subtree | depth | rounds | median ms | min ms | max ms | ceiling ms | ratio | lists with two trees |`);
    console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
    console.log(
      `| ${SUBTREE} | ${DEPTH} | ${ROUNDS} | ${fmt(m)} | ${fmt(Math.min(...times))} | ${fmt(Math.max(...times))} | ${CEILING_MS} | ${fmt((m / CEILING_MS) * 100, 1)}% | ${mixedTotal} |`,
    );
  } finally {
    await server.stop();
  }
}

await main();
