// Server-side apply against plain update, in the same run on the same server:
// a 1 KiB configmap and a deployment with three containers, each written as
//   update   PUT of the whole object with one value changed (no resourceVersion),
//   apply    PATCH application/apply-patch+yaml with the same value changed,
//   re-apply the same configuration applied again (a no-op: nothing is written).
// Phases alternate in rounds (every phase sees the same machine state as the
// others in its round); it prints the median rate of each, apply's ratio to
// update, and how much managedFields add to the stored size of a typical
// deployment (applied by kubectl, status written by a controller).
//
// Usage: node --import tsx bench/apply.ts [--storage sqlite|memory] [--rounds 3] [--seconds 2] [--concurrency 16]
// Besides rates it prints the server's CPU per request (from /proc), which a busy machine disturbs less.

import { parseArgs } from 'node:util';
import { cpuSeconds, fmt, median, runLoad, startApiary, type RequestSpec } from './lib.js';
import { encodeStoredValue } from '../src/storage/managed-fields-codec.js';
import type { KubeObject } from '../src/machinery/meta.js';

const { values: args } = parseArgs({
  options: {
    storage: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '16' },
    objects: { type: 'string', default: '200' },
  },
});
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const OBJECTS = Number(args.objects);
const NS = 'bench';
const filler = 'x'.repeat(1000);

function configMap(i: number, value: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: NS }, data: { payload: filler, value } };
}

function deployment(i: number, image: string): Record<string, unknown> {
  const labels = { app: `web-${i}` };
  const container = (name: string, img: string, port: number): Record<string, unknown> => ({
    name,
    image: img,
    ports: [{ containerPort: port, protocol: 'TCP' }],
    env: [{ name: 'MODE', value: 'fast' }],
    resources: { requests: { cpu: '100m', memory: '64Mi' } },
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${i}`, namespace: NS, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [container('app', image, 8080), container('proxy', 'envoy:1.30', 9901), container('logs', 'fluent-bit:3', 2020)] },
      },
    },
  };
}

interface Kind {
  name: string;
  path: (i: number) => string;
  body: (i: number, value: string) => Record<string, unknown>;
}

const kinds: Kind[] = [
  { name: 'configmap 1 KiB', path: (i) => `/api/v1/namespaces/${NS}/configmaps/cm-${i}`, body: configMap },
  { name: 'deployment, 3 containers', path: (i) => `/apis/apps/v1/namespaces/${NS}/deployments/web-${i}`, body: deployment },
];

type Op = 'update' | 'apply' | 're-apply';

const OPS: Op[] = ['update', 'apply', 're-apply'];

function spec(kind: Kind, op: Op, n: number): RequestSpec {
  const i = n % OBJECTS;
  if (op === 'update') return { method: 'PUT', path: `${kind.path(i)}?fieldManager=bench`, body: JSON.stringify(kind.body(i, `v${n}`)) };
  // JSON is YAML: the apply body is the same document.
  const value = op === 'apply' ? `v${n}` : 'steady';
  return { method: 'PATCH', path: `${kind.path(i)}?fieldManager=bench-apply&force=true`, body: JSON.stringify(kind.body(i, value)), contentType: 'application/apply-patch+yaml' };
}

async function main(): Promise<void> {
  const server = await startApiary({ storage: args.storage });
  try {
    const origin = server.origin;
    const post = async (path: string, body: unknown, contentType = 'application/json', method = 'POST'): Promise<Response> =>
      fetch(origin + path, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const kind of kinds) {
      for (let i = 0; i < OBJECTS; i++) {
        const res = await post(`${kind.path(i)}?fieldManager=bench-apply`, kind.body(i, 'steady'), 'application/apply-patch+yaml', 'PATCH');
        if (res.status !== 201) throw new Error(`seed ${kind.name} ${i}: ${res.status} ${await res.text()}`);
      }
    }
    const rates = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const pid = server.process.pid!;
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        // Re-apply first in each round: it must find the steady configuration (the other phases change it).
        for (const op of ['re-apply', 'update', 'apply'] as Op[]) {
          if (op === 're-apply') {
            // Bring every object back to the steady configuration, unmeasured.
            await runLoad(origin, { concurrency: CONCURRENCY, total: OBJECTS }, (n) => spec(kind, 're-apply', n));
          }
          const before = cpuSeconds(pid);
          const result = await runLoad(origin, { concurrency: CONCURRENCY, total: 1_000_000, maxSeconds: SECONDS }, (n) => spec(kind, op, n));
          if (result.errors > 0) throw new Error(`${kind.name} ${op}: ${result.errors} errors`);
          const key = `${kind.name}\t${op}`;
          rates.set(key, [...(rates.get(key) ?? []), result.rps]);
          cpu.set(key, [...(cpu.get(key) ?? []), ((cpuSeconds(pid) - before) / result.requests) * 1e6]);
        }
      }
    }

    console.log(`\nstorage ${args.storage}, concurrency ${CONCURRENCY}, ${OBJECTS} objects per kind, ${ROUNDS} rounds of ${SECONDS} s phases (median rates)\n`);
    console.log('| object | update req/s | apply req/s | apply / update | re-apply req/s | re-apply / update | server CPU µs: update / apply / re-apply | apply throughput by CPU |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const kind of kinds) {
      const m = (op: Op): number => median(rates.get(`${kind.name}\t${op}`)!);
      const c = (op: Op): number => median(cpu.get(`${kind.name}\t${op}`)!);
      const update = m('update');
      console.log(
        `| ${kind.name} | ${fmt(update)} | ${fmt(m('apply'))} | ${fmt((100 * m('apply')) / update, 1)}% | ${fmt(m('re-apply'))} | ${fmt((100 * m('re-apply')) / update, 1)}% | ${fmt(c('update'))} / ${fmt(c('apply'))} / ${fmt(c('re-apply'))} | ${fmt((100 * c('update')) / c('apply'), 1)}% |`,
      );
    }

    // A typical deployment: applied by kubectl, scaled once, status written by a controller.
    const d = deployment(0, 'nginx:1.25');
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/typical`;
    (d['metadata'] as Record<string, unknown>)['name'] = 'typical';
    await post(`${path}?fieldManager=kubectl`, d, 'application/apply-patch+yaml', 'PATCH');
    await post(`${path}/scale?fieldManager=kubectl`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'typical' }, spec: { replicas: 3 } }, 'application/json', 'PUT');
    const status = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'typical' },
      status: {
        observedGeneration: 2,
        replicas: 3,
        updatedReplicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        conditions: [
          { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "typical-5d4b" has successfully progressed.', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    };
    await post(`${path}/status?fieldManager=kube-controller-manager`, status, 'application/merge-patch+json', 'PATCH');
    const read = (await (await fetch(origin + path)).json()) as KubeObject;
    delete read.metadata.resourceVersion;
    const asJson = JSON.stringify(read).length;
    const stored = encodeStoredValue(read).length;
    const { managedFields: _m, ...meta } = read.metadata;
    const without = JSON.stringify({ ...read, metadata: meta }).length;
    const over = (n: number): string => `+${fmt((100 * (n - without)) / without, 1)}%`;
    console.log(
      `\nmanagedFields of a typical deployment (3 containers; kubectl apply, kubectl scale, controller status): ${fmt(without)} bytes without them; ` +
        `${fmt(asJson)} as JSON (what clients read), ${over(asJson)}; ${fmt(stored)} in the stored form, ${over(stored)} (bench/managed-fields-size.ts reads it from SQLite)`,
    );
  } finally {
    await server.stop();
  }
}

await main();
