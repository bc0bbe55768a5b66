// `apiary serve` is secure by default: HTTPS on --secure-port (--port is its
// alias), the generated cluster CA and admin credentials in DATA_DIR, a
// kubeconfig kubectl uses with verification, the in-process controllers
// authenticated too (the system namespaces appear); the same identity on
// restart; bad flags are clear errors.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { spawnApiary } from '../helpers/apiary-process.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

test('apiary serve: HTTPS, authentication and RBAC by default; the kubeconfig just works; same CA after a restart', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-secure-cli-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const args = ['serve', '--secure-port', '0', '--data-dir', dataDir, '--log-level', 'silent', '--tls-sans', 'apiary.example.com'];
  const first = spawnApiary(args, { secure: true, urlTimeoutMs: 30_000 });
  t.after(() => first.stop('SIGKILL'));
  const url = await first.url;
  assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  await until('system namespaces', async () => (await runKubectl(kubeconfig, ['get', 'ns', 'kube-system', '-o', 'name'])).stdout.trim() === 'namespace/kube-system', 20_000, 200);
  const anonymous = await fetch(url.replace('https', 'http') + '/healthz').catch((err: unknown) => err);
  assert.ok(anonymous instanceof Error, 'no plain HTTP on the secure port');
  const cert = new (await import('node:crypto')).X509Certificate(fs.readFileSync(path.join(dataDir, 'pki/apiserver.crt')));
  assert.match(cert.subjectAltName ?? '', /DNS:apiary\.example\.com/);
  assert.match(cert.subjectAltName ?? '', /DNS:kubernetes\.default\.svc\.cluster\.local/);
  assert.match(cert.subjectAltName ?? '', /IP Address:10\.0\.0\.1/);
  const ca = fs.readFileSync(path.join(dataDir, 'pki/ca.crt'), 'utf8');

  // Every namespace gets its default service account and the root CA bundle, again when deleted.
  assert.equal((await runKubectl(kubeconfig, ['create', 'ns', 'team-x'])).code, 0);
  const started = Date.now();
  await until('kube-root-ca.crt', async () => (await runKubectl(kubeconfig, ['get', 'cm', 'kube-root-ca.crt', '-n', 'team-x', '-o', 'jsonpath={.data.ca\\.crt}'])).stdout === ca, 10_000, 50);
  t.diagnostic(`kube-root-ca.crt after ${Date.now() - started} ms`);
  await until('default service account', async () => (await runKubectl(kubeconfig, ['get', 'sa', 'default', '-n', 'team-x', '-o', 'name'])).code === 0, 10_000, 50);
  const token = await runKubectl(kubeconfig, ['create', 'token', 'default', '-n', 'team-x']);
  assert.equal(token.code, 0, token.stderr);
  assert.equal((await runKubectl(kubeconfig, ['delete', 'sa', 'default', '-n', 'team-x'])).code, 0);
  await until('default service account again', async () => (await runKubectl(kubeconfig, ['get', 'sa', 'default', '-n', 'team-x', '-o', 'name'])).code === 0, 10_000, 50);
  // The publisher's watch is filtered to kube-root-ca.crt: a deleted or edited bundle is still put back.
  const bundle = async (): Promise<string> => (await runKubectl(kubeconfig, ['get', 'cm', 'kube-root-ca.crt', '-n', 'team-x', '-o', 'jsonpath={.data.ca\\.crt}'])).stdout;
  assert.equal((await runKubectl(kubeconfig, ['delete', 'cm', 'kube-root-ca.crt', '-n', 'team-x'])).code, 0);
  await until('kube-root-ca.crt again', async () => (await bundle()) === ca, 10_000, 50);
  const edited = await runKubectl(kubeconfig, ['patch', 'cm', 'kube-root-ca.crt', '-n', 'team-x', '--type=merge', '-p', '{"data":{"ca.crt":"forged"}}']);
  assert.equal(edited.code, 0, edited.stderr);
  await until('kube-root-ca.crt repaired', async () => (await bundle()) === ca, 10_000, 50);
  assert.equal(await first.stop('SIGTERM'), 0);

  const second = spawnApiary(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'], { secure: true, urlTimeoutMs: 30_000 });
  t.after(() => second.stop('SIGKILL'));
  await second.url;
  assert.equal(fs.readFileSync(path.join(dataDir, 'pki/ca.crt'), 'utf8'), ca, 'the CA is kept');
  const got = await runKubectl(kubeconfig, ['get', 'clusterrolebindings', 'cluster-admin', '-o', 'name']);
  assert.equal(got.stdout.trim(), 'clusterrolebinding.rbac.authorization.k8s.io/cluster-admin', got.stderr);
  assert.equal(await second.stop('SIGTERM'), 0);
});

test('apiary serve: bad security flags are clear errors', async () => {
  const bad = spawnApiary(['serve', '--authorization-mode', 'Node'], { secure: true });
  assert.equal(await bad.exited, 2);
  assert.match(bad.output(), /invalid --authorization-mode "Node": want RBAC or AlwaysAllow/);
  const half = spawnApiary(['serve', '--tls-cert-file', '/nope'], { secure: true });
  assert.equal(await half.exited, 2);
  assert.match(half.output(), /--tls-cert-file and --tls-private-key-file must be given together/);
});
