// `apiary kube-apiserver` as envtest drives it: --help exits 0 listing
// upstream's flag names (and the ones apiary ignores), an unknown flag is
// refused naming it, the server answers /healthz to anonymous clients over
// the cert dir's apiserver.crt, authenticates a client certificate from
// --client-ca-file (system:masters), runs the namespace controller, stops on
// SIGTERM with exit 0; bad input exits non-zero with a clear message.
// Service-account tokens signed with envtest's sa-signer.key (its
// --service-account-signing-key-file) authenticate, as on kube-apiserver,
// whether minted by the user or by TokenRequest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { spawnApiary } from '../helpers/apiary-process.js';
import { until } from '../helpers/wait.js';

/** envtest's files made with openssl: a serving CA and apiserver.crt/.key for 127.0.0.1, a client CA and an admin certificate. */
function envtestCerts(dir: string): { servingCa: string; cert: string; key: string; clientCaFile: string } {
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'serving-ca.key', '-out', 'serving-ca.crt', '-days', '1', '-subj', '/CN=serving-ca');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=localhost');
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl('x509', '-req', '-in', 'apiserver.csr', '-CA', 'serving-ca.crt', '-CAkey', 'serving-ca.key', '-CAcreateserial', '-out', 'apiserver.crt', '-days', '1', '-extfile', 'san.ext');
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'client-ca.key', '-out', 'client-cert-auth-ca.crt', '-days', '1', '-subj', '/CN=client-ca');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'admin.key', '-out', 'admin.csr', '-subj', '/O=system:masters/CN=envtest-admin');
  ssl('x509', '-req', '-in', 'admin.csr', '-CA', 'client-cert-auth-ca.crt', '-CAkey', 'client-ca.key', '-CAcreateserial', '-out', 'admin.crt', '-days', '1');
  // envtest's service-account signer: an ECDSA P-256 key and its self-signed certificate (sa-signer.key/.crt).
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'sa-signer.key', '-out', 'sa-signer.crt', '-days', '1', '-subj', '/CN=sa-signer');
  const read = (f: string): string => fs.readFileSync(path.join(dir, f), 'utf8');
  // The admin's key and certificate are read into the test; the server only sees the CA files.
  const out = { servingCa: read('serving-ca.crt'), cert: read('admin.crt'), key: read('admin.key'), clientCaFile: path.join(dir, 'client-cert-auth-ca.crt') };
  for (const f of ['serving-ca.key', 'client-ca.key', 'admin.key', 'admin.crt', 'admin.csr', 'apiserver.csr']) fs.rmSync(path.join(dir, f));
  return out;
}

function get(url: string, options: { ca: string; cert?: string; key?: string; token?: string; method?: string; body?: unknown }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    const headers: Record<string, string> = body !== undefined ? { 'content-type': 'application/json' } : {};
    if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    const req = https.request(url, { method: options.method ?? 'GET', ca: options.ca, cert: options.cert, key: options.key, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The flags envtest (controller-runtime v0.19–v0.22) passes, for a cert dir and a port. */
function envtestFlags(certDir: string, port: string, etcd = 'http://127.0.0.1:1'): string[] {
  return [
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    '--bind-address=127.0.0.1',
    `--cert-dir=${certDir}`,
    `--client-ca-file=${path.join(certDir, 'client-cert-auth-ca.crt')}`,
    '--disable-admission-plugins=ServiceAccount',
    `--etcd-servers=${etcd}`,
    `--secure-port=${port}`,
    `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${path.join(certDir, 'sa-signer.crt')}`,
    `--service-account-signing-key-file=${path.join(certDir, 'sa-signer.key')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
  ];
}

test('--help exits 0 with upstream flag names, ignored flags marked, no --insecure-port', () => {
  const cli = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'kube-apiserver', '--help'], { encoding: 'utf8' });
  for (const flag of ['allow-privileged', 'authorization-mode', 'bind-address', 'cert-dir', 'client-ca-file', 'disable-admission-plugins', 'etcd-servers', 'secure-port', 'service-account-issuer', 'service-account-key-file', 'service-account-signing-key-file', 'service-cluster-ip-range']) {
    // envtest's probe: (?m)^\s*--flag\b
    assert.match(cli, new RegExp(`^\\s*--${flag}\\b`, 'm'), flag);
  }
  // envtest passes --insecure-port only to servers that list it (before 1.24): not us.
  assert.doesNotMatch(cli, /^\s*--insecure-port\b/m);
  assert.doesNotMatch(cli, /Flags accepted and ignored by apiary:[\s\S]*--allow-privileged/, '--allow-privileged is enforced');
  assert.match(cli, /Flags accepted and ignored by apiary:[\s\S]*--feature-gates/);
  assert.doesNotMatch(cli, /Flags accepted and ignored by apiary:[\s\S]*--service-account-signing-key-file/, 'the signing key is used');
});

test('an unknown or malformed flag is refused naming it, exit 1', () => {
  for (const [args, message] of [
    [['--no-such-flag=1'], /Error: unknown flag: --no-such-flag/],
    [['-x'], /Error: unknown flag: -x/],
    [['--secure-port'], /flag needs an argument: --secure-port/],
    [['--allow-privileged=maybe'], /invalid argument "maybe" for "--allow-privileged" flag/],
    [['--storage=memory', '--cert-dir', os.tmpdir(), '--max-requests-inflight=1e3'], /invalid argument "1e3" for "--max-requests-inflight" flag/],
    [['--storage=memory', '--cert-dir', os.tmpdir(), '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'], /must be positive with priority and fairness enabled/],
    [['--storage=memory', '--authorization-mode=ABAC', '--cert-dir', os.tmpdir()], /authorization-mode "ABAC" is not supported/],
    [['--cert-dir', os.tmpdir()], /--etcd-servers must be specified/],
  ] as const) {
    let out = '';
    let status: number | null = 0;
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'kube-apiserver', ...args], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      const e = err as { status: number | null; stderr: string };
      status = e.status;
      out = e.stderr;
    }
    assert.equal(status, 1, args.join(' '));
    assert.match(out, message);
  }
});

test('serves envtest: anonymous /healthz, the cert dir\'s serving certificate, --client-ca-file admin, namespace deletion, SIGTERM', { timeout: 120_000 }, async (t) => {
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-envtest-'));
  t.after(() => fs.rmSync(certDir, { recursive: true, force: true }));
  const certs = envtestCerts(certDir);
  const proc = spawnApiary(['kube-apiserver', ...envtestFlags(certDir, '0'), '--storage=memory'], { urlTimeoutMs: 60_000 });
  t.after(() => proc.stop('SIGKILL'));
  const url = (await proc.url).replace('0.0.0.0', '127.0.0.1');
  // The serving CA envtest made verifies the server: the cert dir's apiserver.crt is served.
  const health = await get(`${url}/healthz`, { ca: certs.servingCa });
  assert.deepEqual(health, { status: 200, text: 'ok' });
  assert.equal((await get(`${url}/api/v1/namespaces`, { ca: certs.servingCa })).status, 403, 'anonymous may not list');
  const admin = { ca: certs.servingCa, cert: certs.cert, key: certs.key };
  assert.equal((await get(`${url}/api/v1/namespaces/default`, admin)).status, 200);
  const created = await get(`${url}/api/v1/namespaces`, { ...admin, method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await get(`${url}/api/v1/namespaces/doomed`, { ...admin, method: 'DELETE' })).status, 200);
  await until('the namespace is gone', async () => (await get(`${url}/api/v1/namespaces/doomed`, admin)).status === 404, 20_000);
  assert.equal(await proc.stop('SIGTERM'), 0, proc.output());
});

test('a port in use, an unwritable cert dir, an unreachable etcd: a clear error, non-zero exit, nothing left running', { timeout: 120_000 }, async (t) => {
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-envtest-'));
  t.after(() => fs.rmSync(certDir, { recursive: true, force: true }));
  envtestCerts(certDir);
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.after(() => busy.close());
  const port = String((busy.address() as net.AddressInfo).port);
  const inUse = spawnApiary(['kube-apiserver', ...envtestFlags(certDir, port), '--storage=memory'], { urlTimeoutMs: 60_000 });
  t.after(() => inUse.stop('SIGKILL'));
  const inUseCode = await inUse.exited;
  assert.notEqual(inUseCode, 0);
  assert.match(inUse.output(), /EADDRINUSE/);

  // A cert dir under a regular file can never be made.
  const file = path.join(certDir, 'a-file');
  fs.writeFileSync(file, '');
  const unwritable = spawnApiary(['kube-apiserver', ...envtestFlags(path.join(file, 'certs'), '0'), '--storage=memory']);
  t.after(() => unwritable.stop('SIGKILL'));
  assert.equal(await unwritable.exited, 1);
  assert.match(unwritable.output(), /--cert-dir \S+a-file\/certs is not a writable directory/);

  const noEtcd = spawnApiary(['kube-apiserver', ...envtestFlags(certDir, '0', 'http://127.0.0.1:9')], { urlTimeoutMs: 90_000 });
  t.after(() => noEtcd.stop('SIGKILL'));
  const noEtcdCode = await Promise.race([noEtcd.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  if (noEtcdCode === 'hung') await noEtcd.stop('SIGKILL');
  assert.notEqual(noEtcdCode, 'hung', `an unreachable etcd must end the start: ${noEtcd.output().slice(-2000)}`);
  assert.notEqual(noEtcdCode, 0);
  assert.match(noEtcd.output(), /etcd|127\.0\.0\.1:9/);
});

test('service-account tokens signed with envtest\'s sa-signer.key authenticate: minted by the user or by TokenRequest; other keys and a bad key file do not', { timeout: 120_000 }, async (t) => {
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-envtest-'));
  t.after(() => fs.rmSync(certDir, { recursive: true, force: true }));
  const certs = envtestCerts(certDir);
  const proc = spawnApiary(['kube-apiserver', ...envtestFlags(certDir, '0'), '--storage=memory'], { urlTimeoutMs: 60_000 });
  t.after(() => proc.stop('SIGKILL'));
  const url = (await proc.url).replace('0.0.0.0', '127.0.0.1');
  const issuer = envtestFlags(certDir, '0').find((f) => f.startsWith('--service-account-issuer='))!.split('=')[1]!;
  const admin = { ca: certs.servingCa, cert: certs.cert, key: certs.key };
  const sa = await get(`${url}/api/v1/namespaces/default/serviceaccounts`, { ...admin, method: 'POST', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } });
  assert.equal(sa.status, 201, sa.text);
  const uid = (JSON.parse(sa.text) as { metadata: { uid: string } }).metadata.uid;
  const whoami = async (token: string): Promise<{ status: number; text: string }> =>
    get(`${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { ca: certs.servingCa, token, method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  const mint = async (keyPem: string, claims: { iss?: string; uid?: string } = {}): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid: claims.uid ?? uid } } })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(claims.iss ?? issuer)
      .setSubject('system:serviceaccount:default:robot')
      .setAudience(issuer)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 600)
      .sign(crypto.createPrivateKey(keyPem));
  };
  const signer = fs.readFileSync(path.join(certDir, 'sa-signer.key'), 'utf8');
  const review = await whoami(await mint(signer));
  assert.equal(review.status, 201, review.text);
  assert.equal((JSON.parse(review.text) as { status: { userInfo: { username: string } } }).status.userInfo.username, 'system:serviceaccount:default:robot');

  // Not ours: another key, another issuer, a stale uid.
  const other = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  assert.equal((await whoami(await mint(other))).status, 401);
  assert.equal((await whoami(await mint(signer, { iss: 'https://elsewhere' }))).status, 401);
  assert.equal((await whoami(await mint(signer, { uid: '00000000-0000-0000-0000-000000000000' }))).status, 401);

  // TokenRequest signs with sa-signer.key: the token verifies against sa-signer.crt.
  const tr = await get(`${url}/api/v1/namespaces/default/serviceaccounts/robot/token`, { ...admin, method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
  assert.equal(tr.status, 201, tr.text);
  const issued = (JSON.parse(tr.text) as { status: { token: string } }).status.token;
  const [header, payload, signature] = issued.split('.') as [string, string, string];
  const publicKey = new crypto.X509Certificate(fs.readFileSync(path.join(certDir, 'sa-signer.crt'))).publicKey;
  assert.ok(crypto.verify('sha256', Buffer.from(`${header}.${payload}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')), 'signed with sa-signer.key');
  assert.equal((await whoami(issued)).status, 201);
  assert.equal(await proc.stop('SIGTERM'), 0, proc.output());

  // A key file without a key is refused at start, naming the flag.
  const empty = path.join(certDir, 'empty.crt');
  fs.writeFileSync(empty, 'no key here\n');
  const bad = spawnApiary(['kube-apiserver', ...envtestFlags(certDir, '0'), `--service-account-key-file=${empty}`, '--storage=memory']);
  t.after(() => bad.stop('SIGKILL'));
  assert.equal(await bad.exited, 1);
  assert.match(bad.output(), /failed to parse service-account-key-file "\S+empty\.crt": data does not contain any valid RSA or ECDSA public keys/);
});
