// apiary/testing's startTestServer as a test author uses it: a server per
// test, many at once, controllers that finish namespace deletion and collect
// garbage, CRDs installed from a folder, and nothing left behind by stop().

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { RestClient, isNotFound, type KubeObject } from '../../src/client/index.js';
import { startTestServer } from '../../src/testing/index.js';
import { until } from '../helpers/wait.js';

const CRDS = path.resolve('test/testing/fixtures/crds');

async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

test('a memory server: kubeconfig file and object, serves, stop() removes its folder', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(server.kubeconfig.clusters[0]!.cluster.server, server.url);
  assert.equal(server.kubeconfig['current-context'], 'apiary');
  const client = RestClient.fromKubeconfig(server.kubeconfigPath);
  t.after(() => client.close());
  // The system namespaces exist when the server is handed over.
  await client.namespaces().get('default');
  await client.configMaps('default').create({ metadata: { name: 'one' } });
  assert.equal((await client.configMaps('default').list()).items.length >= 1, true);
  await server.stop();
  assert.equal(fs.existsSync(path.dirname(server.kubeconfigPath)), false, 'the temporary folder is removed');
  await assert.rejects(fetch(`${server.url}/healthz`), 'nothing listens after stop()');
  await server.stop(); // twice is fine
});

test('many servers in parallel in one process, each its own', async (t) => {
  const servers = await Promise.all(Array.from({ length: 6 }, (_, i) => startTestServer({ storage: i % 2 === 0 ? 'memory' : 'sqlite', controllers: i % 3 !== 0 })));
  t.after(() => Promise.all(servers.map((s) => s.stop())));
  assert.equal(new Set(servers.map((s) => s.url)).size, servers.length);
  await Promise.all(
    servers.map(async (s, i) => {
      const client = new RestClient({ server: s.url });
      try {
        await client.namespaces().create({ metadata: { name: `only-in-${i}` } });
        const names = (await client.namespaces().list()).items.map((n) => n.metadata!.name);
        assert.deepEqual(names.filter((n) => n!.startsWith('only-in-')), [`only-in-${i}`]);
      } finally {
        await client.close();
      }
    }),
  );
});

test('controllers on: a deleted namespace goes away, an owner takes its dependents with it', async (t) => {
  const server = await startTestServer({ storage: 'sqlite' });
  t.after(() => server.stop());
  const client = new RestClient({ server: server.url });
  t.after(() => client.close());
  await client.namespaces().create({ metadata: { name: 'doomed' } });
  await client.configMaps('doomed').create({ metadata: { name: 'inside' } });
  await client.namespaces().delete('doomed');
  await until('namespace doomed is gone', () => gone(() => client.namespaces().get('doomed')), 15_000);

  const owner = await client.configMaps('default').create({ metadata: { name: 'owner' } });
  const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }];
  await client.configMaps('default').create({ metadata: { name: 'dependent', ownerReferences } });
  await client.configMaps('default').delete('owner');
  await until('the dependent is collected', () => gone(() => client.configMaps('default').get('dependent')), 15_000);
});

test('controllers off: a deleted namespace stays Terminating (as envtest without controllers)', async (t) => {
  const server = await startTestServer({ controllers: false });
  t.after(() => server.stop());
  const client = new RestClient({ server: server.url });
  t.after(() => client.close());
  await client.namespaces().create({ metadata: { name: 'stuck' } });
  await client.namespaces().delete('stuck');
  await new Promise((r) => setTimeout(r, 500));
  const ns = await client.namespaces<KubeObject & { status?: { phase?: string } }>().get('stuck');
  assert.equal(ns.status?.phase, 'Terminating');
});

test('CRDs from a folder are established and served when the server is handed over', async (t) => {
  const server = await startTestServer({ crdDirectoryPaths: [CRDS] });
  t.after(() => server.stop());
  const client = new RestClient({ server: server.url });
  t.after(() => client.close());
  // No waiting: the first request finds the resource.
  const widgets = client.resource({ group: 'example.com', version: 'v1', resource: 'widgets' }).namespace('default');
  const created = await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } } as KubeObject);
  assert.equal(created.metadata!.name, 'w');
  await assert.rejects(
    widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 0 } } as KubeObject),
    (err: Error & { status?: { reason?: string } }) => err.status?.reason === 'Invalid',
  );
  const gadgets = client.resource({ group: 'example.com', version: 'v1alpha1', resource: 'gadgets' });
  await gadgets.create({ apiVersion: 'example.com/v1alpha1', kind: 'Gadget', metadata: { name: 'g' } } as KubeObject);
  // The ConfigMap in the same file is not installed.
  assert.equal(await gone(() => client.configMaps('default').get('not-a-crd')), true);
});

test('a CRD path that does not exist fails the start and leaves nothing', async () => {
  const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('apiary-testing-')).length;
  await assert.rejects(startTestServer({ crdDirectoryPaths: ['/nonexistent/crds'] }), /CRD path \/nonexistent\/crds: no such file or directory/);
  const after = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('apiary-testing-')).length;
  assert.equal(after, before);
});

test('logs go to the caller\'s logger (request lines at debug), none by default', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const server = await startTestServer({ controllers: false, logger: pino({ level: 'debug' }, sink) });
  t.after(() => server.stop());
  await fetch(`${server.url}/api/v1/namespaces`);
  await server.stop();
  const messages = lines.map((l) => l['msg']);
  assert.ok(messages.includes('apiserver listening'));
  assert.ok(messages.includes('apiserver stopped'));
  assert.ok(lines.some((l) => l['msg'] === 'request' && l['resource'] === 'namespaces' && l['verb'] === 'list'));
});

test('kubeConfig is a @kubernetes/client-node KubeConfig for the server', { timeout: 60_000 }, async (t) => {
  const server = await startTestServer({ controllers: false });
  t.after(() => server.stop());
  const k8s = await import('@kubernetes/client-node');
  assert.ok(server.kubeConfig instanceof k8s.KubeConfig, 'the class the test imports');
  assert.equal(server.kubeConfig.getCurrentCluster()?.server, server.url);
  const core = server.kubeConfig.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'from-client-node' } } });
  const list = await core.listNamespace();
  assert.ok(list.items.some((n) => n.metadata?.name === 'from-client-node'));
});

test('after stop() nothing is left: a process using servers exits by itself, no handles open', { timeout: 90_000 }, async () => {
  const script = `
    import { startTestServer } from ${JSON.stringify(path.resolve('src/testing/index.ts'))};
    import { RestClient } from ${JSON.stringify(path.resolve('src/client/index.ts'))};
    const baseline = process._getActiveHandles().length;
    const servers = await Promise.all([
      startTestServer({ crdDirectoryPaths: [${JSON.stringify(CRDS)}] }),
      startTestServer({ storage: 'sqlite' }),
      startTestServer({ controllers: false }),
    ]);
    for (const s of servers) {
      const c = new RestClient({ server: s.url });
      await c.namespaces().create({ metadata: { name: 'x' } });
      const w = await c.configMaps('x').watch();
      await c.namespaces().delete('x');
      await c.close();
    }
    await Promise.all(servers.map((s) => s.stop()));
    const handles = process._getActiveHandles().filter((h) => h !== process.stdout && h !== process.stderr);
    process.stdout.write(JSON.stringify({ baseline, after: handles.length, kinds: handles.map((h) => h?.constructor?.name) }) + '\\n');
  `;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-leak-'));
  const file = path.join(dir, 'leak.mts');
  fs.writeFileSync(file, script);
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'pipe'], cwd: process.cwd() });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 0, `the process must exit by itself (after ${Date.now() - started} ms): ${out}`);
    const report = JSON.parse(out.trim().split('\n').at(-1)!) as { baseline: number; after: number; kinds: string[] };
    assert.equal(report.after, 0, `handles left: ${report.kinds.join(', ')}`);
    // Logs are off by default: only the report line was printed.
    assert.equal(out.trim().split('\n').length, 1, out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
