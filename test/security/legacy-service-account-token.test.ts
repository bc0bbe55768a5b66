// Legacy service account token Secrets end to end (issue 33), on `apiary serve`
// with security on: the tokens controller fills a kubernetes.io/service-account-token
// Secret (token, ca.crt, namespace); the token authenticates as the account
// (kubectl --token); deleting the account deletes the Secret, and the token
// stops working.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { spawnApiary } from '../helpers/apiary-process.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

test('a token Secret is filled by the tokens controller and its token authenticates until the account goes', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-legacy-token-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = spawnApiary(['serve', '--secure-port', '0', '--data-dir', dataDir, '--log-level', 'silent'], { secure: true, urlTimeoutMs: 30_000 });
  t.after(() => server.stop('SIGKILL'));
  const url = await server.url;
  const admin = path.join(dataDir, 'kubeconfig');
  const caFile = path.join(dataDir, 'pki/ca.crt');
  const kubectl = (args: string[], stdin?: string) => runKubectl(admin, args, stdin === undefined ? {} : { stdin });
  await until('default namespace', async () => (await kubectl(['get', 'ns', 'default', '-o', 'name'])).code === 0, 20_000, 100);

  assert.equal((await kubectl(['create', 'serviceaccount', 'robot'])).code, 0);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } }, type: 'kubernetes.io/service-account-token' };
  const created = await kubectl(['create', '-f', '-'], JSON.stringify(secret));
  assert.equal(created.code, 0, created.stderr);
  const read = async (): Promise<{ code: number; data?: Record<string, string> }> => {
    const r = await kubectl(['get', 'secret', 'robot-token', '-o', 'json']);
    return r.code === 0 ? { code: 0, data: JSON.parse(r.stdout).data } : { code: r.code };
  };
  await until('the token is filled', async () => (await read()).data?.['token'] !== undefined, 20_000, 100);
  const data = (await read()).data!;
  assert.equal(Buffer.from(data['ca.crt']!, 'base64').toString('utf8'), fs.readFileSync(caFile, 'utf8'));
  assert.equal(Buffer.from(data['namespace']!, 'base64').toString('utf8'), 'default');
  const token = Buffer.from(data['token']!, 'base64').toString('utf8');

  // The token alone, in a kubeconfig of its own: the server says who it is.
  const robotConfig = path.join(dataDir, 'robot.kubeconfig');
  fs.writeFileSync(
    robotConfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority': caFile } }],
      users: [{ name: 'robot', user: { token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'robot' } }],
      'current-context': 'c',
    }),
  );
  const asRobot = (args: string[]) => runKubectl(robotConfig, args);
  const who = await asRobot(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  assert.equal(who.code, 0, who.stderr);
  assert.equal(who.stdout, 'system:serviceaccount:default:robot');

  assert.equal((await kubectl(['delete', 'serviceaccount', 'robot'])).code, 0);
  await until('the token secret is deleted', async () => (await read()).code !== 0, 20_000, 100);
  const after = await asRobot(['auth', 'whoami']);
  assert.notEqual(after.code, 0);
  assert.match(after.stderr, /Unauthorized|must be logged in/);
});
