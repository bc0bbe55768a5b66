// The admission webhook benchmark (issue 22): configmap create throughput in a
// namespace that one no-op mutating webhook (HTTPS, allowed, no patch) watches,
// as a ratio of the same creates in a namespace it does not (its
// namespaceSelector leaves it out), in one run of one apiary (`apiary serve`,
// SQLite). Phases alternate plain / hooked; medians over the rounds.
// The webhook runs in its own process; its own cost is reported apart: its
// CPU per review, and the latency of a call to it made directly (HTTPS
// keep-alive, the same AdmissionReview size) — what any server pays to ask it.
//
// Usage: node --import tsx bench/webhook.ts [--concurrency 32] [--rounds 5] [--requests 2000]

import { fork } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureClusterPki } from '../src/auth/pki/pki.js';
import { startApiary, runLoad, median, percentile, fmt, type LoadResult } from './lib.js';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '2000' },
  },
});
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);
const perRound = Number(args.requests);
const payload = 'x'.repeat(1024);

async function post(origin: string, p: string, body: unknown, status = 201): Promise<unknown> {
  const res = await fetch(origin + p, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const text = await res.text();
  if (res.status !== status) throw new Error(`POST ${p}: ${res.status} ${text}`);
  return JSON.parse(text);
}

interface Usage { cpuMicros: number; calls: number }

async function main(): Promise<void> {
  const pkiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-bench-webhook-'));
  const pki = await ensureClusterPki(pkiDir);
  fs.rmSync(pkiDir, { recursive: true, force: true });
  const child = fork(fileURLToPath(new URL('./webhook-server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, WEBHOOK_CERT: pki.servingCertPem, WEBHOOK_KEY: pki.servingKeyPem },
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve((m as { port: number }).port)));
  const usage = (): Promise<Usage> =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m as Usage));
      child.send('usage');
    });
  const apiary = await startApiary();
  try {
    const origin = apiary.origin;
    await post(origin, '/api/v1/namespaces', { metadata: { name: 'plain' } });
    await post(origin, '/api/v1/namespaces', { metadata: { name: 'hooked' } });
    const caBundle = Buffer.from(pki.caCertPem).toString('base64');
    await post(origin, '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'noop' },
      webhooks: [{
        name: 'noop.bench.example.com',
        clientConfig: { url: `https://127.0.0.1:${port}/mutate`, caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'hooked' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      }],
    });
    // In effect once the webhook sees a dry-run probe.
    for (const deadline = Date.now() + 10_000; ; ) {
      await post(origin, '/api/v1/namespaces/hooked/configmaps?dryRun=All', { metadata: { name: 'probe' } });
      if ((await usage()).calls > 0) break;
      if (Date.now() > deadline) throw new Error('the webhook configuration did not take effect');
      await new Promise((r) => setTimeout(r, 50));
    }

    const plain: LoadResult[] = [];
    const hooked: LoadResult[] = [];
    const cpuPerCall: number[] = [];
    const phase = (ns: string, round: number): Promise<LoadResult> =>
      runLoad(origin, { concurrency, total: perRound, maxSeconds: 60, expectStatus: [201] }, (i) => ({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r${round}-${i}` }, data: { payload } }),
      }));
    await phase('plain', -1);
    await phase('hooked', -1);
    for (let r = 0; r < rounds; r++) {
      plain.push(await phase('plain', r));
      const before = await usage();
      hooked.push(await phase('hooked', r));
      const after = await usage();
      cpuPerCall.push((after.cpuMicros - before.cpuMicros) / Math.max(1, after.calls - before.calls));
    }

    // The webhook alone: the same review, sent directly, one at a time, keep-alive.
    const review = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      request: { uid: 'u', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE',
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'hooked' }, data: { payload } } },
    });
    const agent = new https.Agent({ keepAlive: true, ca: pki.caCertPem, maxSockets: 1 });
    const direct: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', port, path: '/mutate', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => res.resume().on('end', resolve));
        req.on('error', reject);
        req.end(review);
      });
      direct.push(performance.now() - t0);
    }
    agent.destroy();
    direct.sort((a, b) => a - b);

    const errors = [...plain, ...hooked].reduce((n, x) => n + x.errors, 0);
    const p = median(plain.map((x) => x.rps));
    const h = median(hooked.map((x) => x.rps));
    console.log(`configmap creates, ${concurrency} concurrent, ${perRound} per phase, median of ${rounds} rounds (SQLite)`);
    console.log(`  no admission webhook:        ${fmt(p)} req/s  p50 ${fmt(median(plain.map((x) => x.p50ms)), 1)} ms  p99 ${fmt(median(plain.map((x) => x.p99ms)), 1)} ms`);
    console.log(`  one no-op mutating webhook:  ${fmt(h)} req/s  p50 ${fmt(median(hooked.map((x) => x.p50ms)), 1)} ms  p99 ${fmt(median(hooked.map((x) => x.p99ms)), 1)} ms`);
    console.log(`  ratio: ${fmt((100 * h) / p)} % (target ≥ 40 %), errors: ${errors}`);
    console.log(`  the webhook's own cost: ${fmt(median(cpuPerCall))} µs CPU per review in its process; a direct call p50 ${fmt(percentile(direct, 0.5), 2)} ms p99 ${fmt(percentile(direct, 0.99), 2)} ms`);
  } finally {
    await apiary.stop();
    child.disconnect();
  }
}

await main();
