// The namespace lifecycle through real processes and real clients: `apiary
// serve` with its in-process controllers seen through kubectl, `apiary
// controller-manager` stopped and restarted in the middle of a deletion, and
// the origin finalizer example controller.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestClient } from '../../src/client/index.js';
import type { Namespace } from '../../src/api/core/v1/types.js';
import { runKubectl } from '../helpers/kubectl.js';
import { cm, ns, startCluster, waitFor, waitGone } from './helpers.js';
import { request } from '../helpers/http.js';

const MAIN = path.resolve('src/cli/main.ts');
const EXAMPLE = path.resolve('examples/origin-finalizer/main.ts');

interface Proc {
  child: ChildProcess;
  output(): string;
  /** Resolves when a line matching re was printed. */
  printed(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

function run(file: string, args: string[]): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    printed: (re, timeoutMs = 20_000) =>
      waitFor(`${path.basename(file)} to print ${re}`, async () => re.exec(out) ?? undefined, timeoutMs),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-ns-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('apiary serve through kubectl: system namespaces, immortal ones, delete -> Terminating -> gone, Forbidden create', async (t) => {
  const dir = tempDir(t);
  const serve = run(MAIN, ['serve', '--insecure-serving', '--port', '0', '--data-dir', dir, '--log-level', 'silent', '--namespace-deletion-grace-period', '0s']);
  t.after(() => serve.child.kill('SIGKILL'));
  const url = (await serve.printed(/listening on (http:\S+)/))[1]!;
  const kubeconfig = path.join(dir, 'kubeconfig');
  const kubectl = (args: string[], timeoutMs?: number) => runKubectl(kubeconfig, args, timeoutMs ? { timeoutMs } : {});

  const list = await kubectl(['get', 'ns']);
  assert.equal(list.code, 0, list.stderr);
  const rows = list.stdout.trim().split('\n');
  assert.match(rows[0]!, /^NAME\s+STATUS\s+AGE$/);
  assert.deepEqual(rows.slice(1).map((r) => r.split(/\s+/).slice(0, 2).join(' ')), [
    'default Active',
    'kube-node-lease Active',
    'kube-public Active',
    'kube-system Active',
  ]);

  // The seed transcript.
  const immortal = await kubectl(['delete', 'ns', 'default', 'kube-node-lease', 'kube-public', 'kube-system']);
  assert.equal(immortal.code, 1);
  assert.equal(immortal.stdout, 'namespace "kube-node-lease" deleted\n');
  assert.equal(
    immortal.stderr,
    [
      'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted',
      'Error from server (Forbidden): namespaces "kube-public" is forbidden: this namespace may not be deleted',
      'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted',
      '',
    ].join('\n'),
  );

  // A namespace held by content with a finalizer, watched while it is deleted.
  assert.equal((await kubectl(['create', 'ns', 'test'])).code, 0);
  const hold = JSON.stringify(cm('hold', { namespace: 'test', finalizers: ['example.com/x'] }));
  assert.equal((await runKubectl(kubeconfig, ['create', '-f', '-'], { stdin: hold })).code, 0);
  const watch = runKubectlWatch(kubeconfig, ['get', 'ns', 'test', '-w', '--output-watch-events']);
  t.after(() => watch.child.kill('SIGKILL'));
  await waitFor('the watch to list test', async () => (/ADDED\s+test\s+Active/.test(watch.output()) ? true : undefined));

  const del = await kubectl(['delete', 'ns', 'test', '--wait=false']);
  assert.equal(del.code, 0, del.stderr);
  assert.equal(del.stdout, 'namespace "test" deleted\n');
  const after = await request(url, 'GET', '/api/v1/namespaces/test');
  assert.equal(after.json.status.phase, 'Terminating', 'kubectl returned while the namespace is Terminating');

  const forbidden = await kubectl(['create', 'cm', 'x', '-n', 'test']);
  assert.equal(forbidden.code, 1);
  assert.equal(
    forbidden.stderr,
    'error: failed to create configmap: configmaps "x" is forbidden: unable to create new content in namespace test because it is being terminated\n',
  );

  // Release the content; the controller looks again after its finalizer estimate (15 s / 2 + 1).
  assert.equal((await kubectl(['patch', 'cm', 'hold', '-n', 'test', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'])).code, 0);
  const waited = await kubectl(['wait', '--for=delete', 'ns/test', '--timeout=30s'], 35_000);
  assert.equal(waited.code, 0, waited.stderr);
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/test')).status, 404);
  await waitFor('the watch to see test deleted', async () => (/DELETED\s+test\s+Terminating/.test(watch.output()) ? true : undefined));
  const events = watch.output().split('\n').filter((l) => /\btest\b/.test(l)).map((l) => l.split(/\s+/).slice(0, 3).join(' '));
  assert.equal(events[0], 'ADDED test Active');
  assert.ok(events.includes('MODIFIED test Terminating'), events.join('\n'));
  assert.equal(events.at(-1), 'DELETED test Terminating');

  assert.equal(await serve.stop(), 0, serve.output());
});

function runKubectlWatch(kubeconfig: string, args: string[]): { child: ChildProcess; output(): string } {
  const child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    env: { ...process.env, KUBECACHEDIR: `${kubeconfig}.cache` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  return { child, output: () => out };
}

test('apiary controller-manager: stopped mid-deletion, started again, it picks up where it stopped', async (t) => {
  const cluster = await startCluster({ controllers: false });
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  const flags = ['--kubeconfig', cluster.server.kubeconfigPath, '--log-level', 'silent', '--namespace-deletion-grace-period', '0s'];
  let manager = run(MAIN, ['controller-manager', ...flags]);
  t.after(() => manager.child.kill('SIGKILL'));
  await manager.printed(/controller-manager running/);
  await waitFor('system namespaces', async () => ((await request(url, 'GET', '/api/v1/namespaces/default')).status === 200 ? true : undefined));

  await request(url, 'POST', '/api/v1/namespaces', { body: ns('half') });
  await request(url, 'POST', '/api/v1/namespaces/half/configmaps', { body: cm('held', { finalizers: ['example.com/x'] }) });
  for (let i = 0; i < 3; i++) await request(url, 'POST', '/api/v1/namespaces/half/configmaps', { body: cm(`c${i}`) });
  await request(url, 'DELETE', '/api/v1/namespaces/half');
  await waitFor('the first pass', async () => {
    const n = (await request(url, 'GET', '/api/v1/namespaces/half')).json as Namespace;
    return n.status?.conditions?.some((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True') ? true : undefined;
  });
  assert.equal(await manager.stop(), 0, manager.output());

  // With no controller running, releasing the content does not finish the deletion.
  const held = (await request(url, 'GET', '/api/v1/namespaces/half/configmaps/held')).json;
  await request(url, 'PUT', '/api/v1/namespaces/half/configmaps/held', { body: { ...held, metadata: { ...held.metadata, finalizers: [] } } });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/half')).json.status.phase, 'Terminating');

  manager = run(MAIN, ['controller-manager', ...flags]);
  await manager.printed(/controller-manager running/);
  await waitGone(cluster.client, 'half', 15_000);
  assert.equal(await manager.stop(), 0, manager.output());
});

test('the origin finalizer example: the namespace waits for it, then disappears', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  const client = new RestClient({ server: url });
  t.after(() => client.close());

  // Started first so it records the namespace.
  let example = run(EXAMPLE, ['--kubeconfig', cluster.server.kubeconfigPath]);
  t.after(() => example.child.kill('SIGKILL'));
  await example.printed(/origin controller running/);
  const created = await request(url, 'POST', '/api/v1/namespaces', { body: ns('project', ['example.com/origin', 'kubernetes']) });
  assert.deepEqual(created.json.spec.finalizers, ['example.com/origin', 'kubernetes']);
  await request(url, 'POST', '/api/v1/namespaces/project/configmaps', { body: cm('app') });
  await waitFor('the record', async () => ((await request(url, 'GET', '/api/v1/namespaces/origin-system/configmaps/ns-project')).status === 200 ? true : undefined));
  assert.equal(await example.stop(), 0, example.output());

  // Without the example running: content goes, `kubernetes` goes, the namespace stays.
  await request(url, 'DELETE', '/api/v1/namespaces/project');
  const waiting = await waitFor('kubernetes to be removed', async () => {
    const n = (await request(url, 'GET', '/api/v1/namespaces/project')).json as Namespace;
    return n.spec?.finalizers?.length === 1 ? n : undefined;
  });
  assert.deepEqual(waiting.spec?.finalizers, ['example.com/origin']);
  assert.equal(waiting.status?.phase, 'Terminating');
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/project/configmaps')).json.items.length, 0);

  example = run(EXAMPLE, ['--kubeconfig', cluster.server.kubeconfigPath]);
  await waitGone(client, 'project', 20_000);
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/origin-system/configmaps/ns-project')).status, 404, 'origin cleaned its own record');
  assert.equal(await example.stop(), 0, example.output());
});
