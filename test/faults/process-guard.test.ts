// No unhandled rejection or exception ends the process (issue 35, part 4): a
// server process with the guard `apiary serve` installs meets a handler that
// throws inside a request and on a timer, a promise rejected with nobody
// listening, an admission webhook whose response is garbage, and an informer
// handler that throws; it logs, counts (apiary_unhandled_errors_total) and
// keeps serving. The same process without the guard dies of the first timer
// fault: the test can fail.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode } from '../helpers/apiary-process.js';
import { startWebhookServer } from '../helpers/webhook-server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/guarded-server.ts', import.meta.url));

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

function metric(text: string, type: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`apiary_unhandled_errors_total{type="${type}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cm = '/api/v1/namespaces/faults/configmaps';

test('the process guard logs, counts and keeps serving through every injected fault', { timeout: 120_000 }, async (t) => {
  const proc = spawnNode(['--import', 'tsx', FIXTURE], {}, 'guarded server');
  t.after(() => proc.stop());
  const hook = await startWebhookServer();
  t.after(() => hook.stop());
  const base = await proc.url;
  assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'faults' } })).status, 201);

  // A handler that throws inside a request: that request fails, nothing else.
  const inRequest = await call(base, 'POST', cm, { metadata: { name: 'throw-in-handler' } });
  assert.equal(inRequest.status, 500);
  // Out of band: on a timer, and a rejection nobody handles.
  assert.equal((await call(base, 'POST', cm, { metadata: { name: 'throw-out-of-band' } })).status, 201);
  assert.equal((await call(base, 'POST', cm, { metadata: { name: 'reject-out-of-band' } })).status, 201);
  // An informer handler that throws.
  assert.equal((await call(base, 'POST', cm, { metadata: { name: 'informer-1' } })).status, 201);

  // An admission webhook answering garbage.
  hook.on('/garbage', (_review, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": 12, "allowed": "maybe"');
    return 'handled';
  });
  const webhook = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'garbage' },
    webhooks: [
      {
        name: 'garbage.faults.test',
        clientConfig: { url: hook.url('/garbage'), caBundle: hook.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { hook: 'garbage' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
      },
    ],
  };
  assert.equal((await call(base, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhook)).status, 201);
  let hooked: { status: number; body: any } | undefined;
  for (let i = 0; i < 100; i++) {
    hooked = await call(base, 'POST', cm, { metadata: { name: `hooked-${i}`, labels: { hook: 'garbage' } } });
    if (hooked.status !== 201) break;
    await sleep(100);
  }
  assert.ok(hooked !== undefined && hooked.status >= 500, `the garbage answer fails the write: ${JSON.stringify(hooked?.body)}`);
  assert.match(hooked.body.message, /failed calling webhook "garbage\.faults\.test"/);

  // Still serving, still writing; the faults were counted and logged.
  await sleep(200);
  assert.equal(proc.child.exitCode, null, `the process is running:\n${proc.output().slice(-3000)}`);
  assert.equal((await call(base, 'GET', '/readyz')).status, 200);
  assert.equal((await call(base, 'POST', cm, { metadata: { name: 'after' } })).status, 201);
  const metrics = (await call(base, 'GET', '/metrics')).body as string;
  assert.ok(metric(metrics, 'exception') >= 1, 'exceptions counted');
  assert.ok(metric(metrics, 'rejection') >= 1, 'rejections counted');
  const output = proc.output();
  assert.match(output, /uncaught exception; serving on/);
  assert.match(output, /injected fault on a timer/);
  assert.match(output, /unhandled promise rejection; serving on/);
});

test('without the guard the same timer fault ends the process', { timeout: 60_000 }, async (t) => {
  // spawnNode passes our environment on: the variable selects the unguarded run.
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-unguarded-'));
  process.env['FAULTS_NO_GUARD'] = '1';
  process.env['FAULTS_DATA_DIR'] = dataDir;
  const proc = spawnNode(['--import', 'tsx', FIXTURE], {}, 'unguarded server');
  delete process.env['FAULTS_NO_GUARD'];
  delete process.env['FAULTS_DATA_DIR'];
  t.after(async () => {
    await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = await proc.url;
  assert.equal((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'faults' } })).status, 201);
  await call(base, 'POST', cm, { metadata: { name: 'throw-out-of-band' } }).catch(() => undefined);
  const code = await Promise.race([proc.exited, sleep(10_000).then(() => 'still running')]);
  assert.notEqual(code, 'still running');
  assert.notEqual(code, 0);
});
