// How much managedFields add to what is stored, and what their stored form
// costs per write and per read.
//
// A typical deployment (three containers with ports, env and resources) is
// applied by kubectl, scaled through /scale, and its status written by a
// controller, on a real server with SQLite. The stored value is read back
// from the SQLite file after the server stopped and compared with the same
// object as plain JSON with and without its managedFields. Then the encoding
// of that object (src/storage/managed-fields-codec.ts) is timed against plain
// JSON.stringify / JSON.parse, in-process.
//
// Usage: node --import tsx bench/managed-fields-size.ts [--iterations 20000]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../src/server/server.js';
import { openBackend } from '../src/storage/open.js';
import { decodeStoredValue, encodeStoredValue } from '../src/storage/managed-fields-codec.js';
import type { KubeObject } from '../src/machinery/meta.js';
import { fmt, median } from './lib.js';

const { values: args } = parseArgs({ options: { iterations: { type: 'string', default: '20000' } } });
const ITERATIONS = Number(args.iterations);

async function typicalDeployment(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-mf-size-'));
  try {
    const server = await startServer({ bindAddress: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' });
    const call = async (method: string, path: string, body: unknown, contentType = 'application/json'): Promise<void> => {
      const r = await fetch(server.url + path, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    };
    try {
      await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
      const labels = { app: 'typical' };
      const container = (name: string, image: string, port: number): Record<string, unknown> => ({
        name,
        image,
        ports: [{ containerPort: port, protocol: 'TCP' }],
        env: [{ name: 'MODE', value: 'fast' }],
        resources: { requests: { cpu: '100m', memory: '64Mi' } },
      });
      const path = '/apis/apps/v1/namespaces/bench/deployments/typical';
      const deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'typical', labels },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [container('app', 'nginx:1.25', 8080), container('proxy', 'envoy:1.30', 9901), container('logs', 'fluent-bit:3', 2020)] } },
        },
      };
      await call('PATCH', `${path}?fieldManager=kubectl`, deployment, 'application/apply-patch+yaml');
      await call('PUT', `${path}/scale?fieldManager=kubectl`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'typical' }, spec: { replicas: 3 } });
      const condition = (type: string, reason: string, message: string): Record<string, unknown> => ({
        type,
        status: 'True',
        reason,
        message,
        lastUpdateTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      });
      await call(
        'PATCH',
        `${path}/status?fieldManager=kube-controller-manager`,
        {
          status: {
            observedGeneration: 2,
            replicas: 3,
            updatedReplicas: 3,
            readyReplicas: 3,
            availableReplicas: 3,
            conditions: [
              condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
              condition('Progressing', 'NewReplicaSetAvailable', 'ReplicaSet "typical-5d4b" has successfully progressed.'),
            ],
          },
        },
        'application/merge-patch+json',
      );
    } finally {
      await server.stop();
    }
    const backend = await openBackend({ kind: 'sqlite', dataDir });
    try {
      return (await backend.get('/registry/deployments/bench/typical')).kv!.value;
    } finally {
      await backend.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Median µs per call of fn over rounds of ITERATIONS/5 calls. */
function time(fn: () => unknown): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const n = Math.max(1, Math.floor(ITERATIONS / 5));
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    rounds.push(((performance.now() - t0) * 1000) / n);
  }
  return median(rounds);
}

const stored = await typicalDeployment();
const obj = decodeStoredValue(stored);
const plain = JSON.stringify(obj);
const { managedFields: _m, ...meta } = obj.metadata;
const without = JSON.stringify({ ...obj, metadata: meta } as KubeObject);
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const pct = (n: number): string => `+${fmt((100 * (n - bytes(without))) / bytes(without), 1)}%`;

console.log('stored size of a typical deployment (kubectl apply, kubectl scale, controller status), bytes:');
console.log('| form | bytes | over the object without managedFields |');
console.log('|---|---:|---:|');
console.log(`| without managedFields | ${fmt(bytes(without))} | |`);
console.log(`| managedFields as JSON (upstream's, and apiary's before) | ${fmt(bytes(plain))} | ${pct(bytes(plain))} |`);
console.log(`| managedFields in apiary's stored form (what SQLite holds) | ${fmt(bytes(stored))} | ${pct(bytes(stored))} |`);

const encodeUs = time(() => encodeStoredValue(obj));
const stringifyUs = time(() => JSON.stringify(obj));
const decodeUs = time(() => decodeStoredValue(stored));
const parseUs = time(() => JSON.parse(plain));
console.log('\nCPU per object, µs (median of 5 rounds):');
console.log('| | stored form | plain JSON | difference |');
console.log('|---|---:|---:|---:|');
const signed = (n: number): string => `${n >= 0 ? '+' : '−'}${fmt(Math.abs(n), 1)}`;
console.log(`| write (encode) | ${fmt(encodeUs, 1)} | ${fmt(stringifyUs, 1)} | ${signed(encodeUs - stringifyUs)} |`);
console.log(`| read (decode) | ${fmt(decodeUs, 1)} | ${fmt(parseUs, 1)} | ${signed(decodeUs - parseUs)} |`);
