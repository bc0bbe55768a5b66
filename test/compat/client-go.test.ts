// Go's client-go as a witness: builds test/compat/clientgo (client-go v0.32,
// modules from Go's module cache, downloaded on the first run) and runs it
// against a real apiary. The program runs informers for configmaps and
// namespaces, changes objects and checks its caches and handlers; halfway it
// asks for a restart, during which this test changes data on the same data
// dir behind its back, then brings the server back on the same port. Run on
// plain HTTP, and over TLS with the generated admin kubeconfig (verification
// on) and as a bound service-account token.
// Fails loudly when `go` is missing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MODULE_DIR = path.resolve('test/compat/clientgo');
const BINARY = path.join(MODULE_DIR, 'bin', 'clientgo-witness');
const GO_ENV = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };

/**
 * The wire formats client-go is run with: protobuf as upstream components
 * speak it (ContentType protobuf, Accept protobuf then JSON; creates and
 * updates go out as protobuf), and JSON, client-go's default for a plain
 * rest.Config. APIARY_CLIENTGO_CONTENT_TYPE picks one of them.
 */
const CONTENT_TYPES = process.env['APIARY_CLIENTGO_CONTENT_TYPE'] ? [process.env['APIARY_CLIENTGO_CONTENT_TYPE']] : ['application/vnd.kubernetes.protobuf', 'application/json'];

/** A child process whose output lines can be awaited. */
function runWitness(kubeconfig: string, contentType: string): {
  waitFor: (line: string, timeoutMs: number) => Promise<void>;
  send: (line: string) => void;
  exited: Promise<number | null>;
  output: () => string;
  kill: () => void;
} {
  const child = spawn(BINARY, ['-kubeconfig', kubeconfig, '-content-type', contentType], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => {}); // a write after the program exited
  let output = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  const onData = (chunk: string): void => {
    output += chunk;
    for (const w of [...waiters]) {
      if (output.split('\n').includes(w.line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    send: (line) => void child.stdin.write(line + '\n'),
    kill: () => void child.kill('SIGKILL'),
    waitFor: (line, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${line}" within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`witness exited (${code}) before "${line}":\n${output}`));
        });
        waiters.push({
          line,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        onData('');
      }),
  };
}

describe('client-go witness', { timeout: 400_000 }, () => {
  before(() => {
    const version = spawnSync('go', ['version'], { env: GO_ENV, encoding: 'utf8' });
    assert.equal(version.error, undefined, `go is required for this test and was not found on PATH: ${version.error?.message}`);
    assert.equal(version.status, 0, `go version failed: ${version.stderr}`);
    // The first build downloads modules and compiles client-go (a minute or two on 2 cores); later ones are cached.
    const build = spawnSync('go', ['build', '-o', BINARY, '.'], { cwd: MODULE_DIR, env: GO_ENV, encoding: 'utf8', timeout: 300_000 });
    assert.equal(build.status, 0, `go build failed (${build.signal ?? build.status}): ${build.stderr}`);
  });

  const dataDirs: string[] = [];
  after(() => {
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * One run of the witness. `auth`: 'none' is the plain library server; 'admin'
   * is a secure server (TLS, authentication, RBAC) and the generated admin
   * kubeconfig, verifying the server with the cluster CA; 'token' the same
   * server and a bound service-account token from the TokenRequest API (its
   * account bound to cluster-admin), with the CA and nothing else.
   */
  const scenario = (contentType: string, auth: 'none' | 'admin' | 'token') => async (t: { after(fn: () => unknown): void; diagnostic(s: string): void }) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-clientgo-'));
    dataDirs.push(dataDir);
    const options = auth === 'none' ? {} : { security: {} };
    let server: TestServer = await startTestServer({ dataDir, ...options });
    t.after(() => server.stop());
    const port = server.port;
    const setup = RestClient.fromKubeconfig(server.kubeconfigPath);
    await setup.namespaces().create({ metadata: { name: 'witness' } });
    await setup.configMaps('witness').create({ metadata: { name: 'pre' }, data: { v: '1' } });
    // The program keeps this copy: the server rewrites its kubeconfig on every start.
    const kubeconfig = path.join(dataDir, 'witness.kubeconfig');
    fs.copyFileSync(server.kubeconfigPath, kubeconfig);
    if (auth !== 'none') {
      const text = fs.readFileSync(kubeconfig, 'utf8');
      assert.match(text, /server: https:/);
      assert.match(text, /certificate-authority-data: /);
      assert.doesNotMatch(text, /insecure-skip-tls-verify/);
    }
    if (auth === 'token') {
      await setup.serviceAccounts('witness').create({ metadata: { name: 'witness' } });
      await setup.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' }).create({
        metadata: { name: 'witness' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'witness', namespace: 'witness' }],
      } as never);
      const issued = await setup.request<{ status: { token: string } }>({
        method: 'POST',
        path: '/api/v1/namespaces/witness/serviceaccounts/witness/token',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      });
      const ca = Buffer.from(server.admin.caData!).toString('base64');
      fs.writeFileSync(kubeconfig, [
        'apiVersion: v1', 'kind: Config',
        'clusters:', '- name: apiary', '  cluster:', `    server: ${server.url}`, `    certificate-authority-data: ${ca}`,
        'contexts:', '- name: witness', '  context: {cluster: apiary, user: witness}', 'current-context: witness',
        'users:', '- name: witness', `  user: {token: ${issued.status.token}}`, '',
      ].join('\n'), { mode: 0o600 });
    }
    await setup.close();

    const witness = runWitness(kubeconfig, contentType);
    t.after(() => witness.kill());
    await witness.waitFor('READY-FOR-RESTART', 30_000);

    await server.stop();
    // While the witness cannot reach the server, another instance on the same data changes it.
    const elsewhere = await startTestServer({ dataDir, ...options });
    const other = RestClient.fromKubeconfig(elsewhere.kubeconfigPath);
    await other.configMaps('witness').delete('pre');
    await other.configMaps('witness').create({ metadata: { name: 'offline' }, data: { v: '1' } });
    await other.close();
    await elsewhere.stop();
    server = await startTestServer({ dataDir, port, ...options });
    witness.send('restarted');

    const code = await witness.exited;
    assert.equal(code, 0, witness.output());
    assert.match(witness.output(), /^PASS$/m);
    t.diagnostic(witness.output().trim().split('\n').filter((l) => l.startsWith('restart:')).join(' '));
  };

  for (const contentType of CONTENT_TYPES) {
    it(`informers see every change, exactly once, across a server restart (${contentType})`, { timeout: 90_000 }, scenario(contentType, 'none'));
  }
  // Over TLS with verification (issue 19), as components speak (protobuf).
  it('over TLS with the generated admin kubeconfig (CA verified, client certificate)', { timeout: 90_000 }, scenario(CONTENT_TYPES[0]!, 'admin'));
  it('over TLS as a bound service-account token', { timeout: 90_000 }, scenario(CONTENT_TYPES[0]!, 'token'));
});
