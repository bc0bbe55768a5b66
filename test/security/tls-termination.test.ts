// Where TLS is done: in the TLS front, a process of its own (the default on
// Linux with more than one core), or inline in the apiserver. In both modes a
// client is the same user (certificate, token, anonymous), the audit log has
// its address, bodies and watch streams arrive whole. The front's Unix socket
// takes nothing without its secret; a front that dies is replaced on the same
// port; it ends with the apiserver, also when that is killed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Agent, request as undiciRequest } from 'undici';
import { issueClientCertificate, ensureClusterPki } from '../../src/auth/pki/pki.js';
import { spawnApiary } from '../helpers/apiary-process.js';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from './helpers.js';

/** The TLS front processes a process started (found through /proc, as a local user would). */
function frontPids(pid: number | 'self'): number[] {
  const dir = `/proc/${pid}/task`;
  return fs
    .readdirSync(dir)
    .flatMap((tid) => fs.readFileSync(`${dir}/${tid}/children`, 'utf8').split(' ').filter((p) => p !== '').map(Number))
    .filter((child) => {
      try {
        return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('tls-front');
      } catch {
        return false;
      }
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const mode of ['process', 'inline'] as const) {
  describe(`TLS ${mode === 'process' ? 'in the front process' : 'inline'}`, () => {
    const auditDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-tls-audit-'));
    const auditLogPath = path.join(auditDir, 'audit.log');
    let server: Awaited<ReturnType<typeof startSecureServer>> | undefined;
    const started = async (): Promise<NonNullable<typeof server>> => (server ??= await startSecureServer({ tlsTermination: mode, auditLogPath }));
    after(async () => {
      await server?.stop();
      fs.rmSync(auditDir, { recursive: true, force: true });
    });

    test('the same identities: a certificate of the cluster CA, a token, anonymous; a foreign CA is 401', async () => {
      const s = await started();
      assert.equal(frontPids('self').length, mode === 'process' ? 1 : 0);
      const pki = { certPem: fs.readFileSync(path.join(s.dataDir, 'pki/ca.crt'), 'utf8'), keyPem: fs.readFileSync(path.join(s.dataDir, 'pki/ca.key'), 'utf8') };
      const carol = await issueClientCertificate(pki, 'carol', ['qa', 'ops']);
      const whoami = (options: Parameters<typeof secureRequest>[4]) =>
        secureRequest(s.url, s.ca, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ...options, body: {} });
      const byCert = await whoami({ cert: carol.certPem, key: carol.keyPem });
      assert.equal(byCert.status, 201, byCert.text);
      assert.deepEqual(byCert.json.status.userInfo, { username: 'carol', groups: ['qa', 'ops', 'system:authenticated'] });
      const byToken = await whoami({ headers: { authorization: 'Bearer alice-token' } });
      assert.deepEqual(byToken.json.status.userInfo, { username: 'alice', uid: 'alice-uid', groups: ['system:authenticated'] });
      const anonymous = await secureRequest(s.url, s.ca, 'GET', '/api/v1/namespaces');
      assert.equal(anonymous.status, 403);
      assert.equal(anonymous.json.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');

      const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-other-ca-'));
      try {
        const other = await ensureClusterPki(otherDir);
        const foreign = await secureRequest(s.url, s.ca, 'GET', '/api/v1/namespaces', { cert: other.adminCertPem, key: other.adminKeyPem });
        assert.equal(foreign.status, 401);
      } finally {
        fs.rmSync(otherDir, { recursive: true, force: true });
      }
    });

    test('the audit log has the client address; a large body and a watch stream arrive whole', async () => {
      const s = await started();
      const admin = { cert: s.admin.certData!, key: s.admin.keyData! };
      assert.equal((await secureRequest(s.url, s.ca, 'POST', '/api/v1/namespaces', { ...admin, body: { metadata: { name: 'tls' } } })).status, 201);
      const big = 'x'.repeat(900_000);
      const created = await secureRequest(s.url, s.ca, 'POST', '/api/v1/namespaces/tls/configmaps', { ...admin, body: { metadata: { name: 'big' }, data: { big } } });
      assert.equal(created.status, 201, created.text.slice(0, 300));
      const got = await secureRequest(s.url, s.ca, 'GET', '/api/v1/namespaces/tls/configmaps/big', admin);
      assert.equal(got.json.data.big, big);
      await until('the audit event', async () => fs.existsSync(auditLogPath) && fs.readFileSync(auditLogPath, 'utf8').includes('"namespace":"tls"'), 5000, 50);
      const event = fs
        .readFileSync(auditLogPath, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .find((e) => e.objectRef?.namespace === 'tls');
      assert.deepEqual(event.sourceIPs, ['127.0.0.1']);
      assert.equal(event.user.username, 'kubernetes-admin');

      // A watch: events written after it starts come through the stream.
      const agent = new Agent({ connect: { ca: s.ca, ...admin } });
      try {
        const res = await undiciRequest(`${s.url}/api/v1/namespaces/tls/configmaps?watch=true&fieldSelector=metadata.name%3Dwatched`, { dispatcher: agent });
        assert.equal(res.statusCode, 200);
        let seen = '';
        const stream = (async () => {
          for await (const chunk of res.body) {
            seen += chunk.toString();
            if (seen.includes('"DELETED"')) return;
          }
        })();
        await secureRequest(s.url, s.ca, 'POST', '/api/v1/namespaces/tls/configmaps', { ...admin, body: { metadata: { name: 'watched' } } });
        await secureRequest(s.url, s.ca, 'DELETE', '/api/v1/namespaces/tls/configmaps/watched', admin);
        await stream;
        assert.deepEqual(
          seen.trim().split('\n').map((line) => JSON.parse(line).type),
          ['ADDED', 'DELETED'],
        );
        res.body.destroy();
      } finally {
        await agent.destroy();
      }
    });
  });
}

/** The abstract Unix socket of this process's TLS front, as /proc/net/unix shows it to any local user. */
function frontSocket(): string {
  const line = fs
    .readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .find((l) => l.includes(`@apiary-tls-front-${process.pid}-`));
  assert.ok(line !== undefined, 'the front socket is listed');
  // Shown with '@' for the NUL bytes: the leading one, and the padding Node binds with (and connects with too).
  return '\0' + line.trim().split(/\s+/).at(-1)!.slice(1).replace(/@+$/, '');
}

/** What the socket answers to `bytes` before it closes. */
function answerTo(socketPath: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(socketPath, () => socket.write(bytes));
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open; answered ${JSON.stringify(answer)}`));
    }, 5000).unref();
  });
}

describe('the TLS front process', () => {
  test('its socket drops a connection without the secret before reading HTTP, whatever identity it claims', async (t) => {
    const s = await startSecureServer({ tlsTermination: 'process' });
    t.after(() => s.stop());
    const socketPath = frontSocket();
    const claim = JSON.stringify({ remoteAddress: '10.0.0.66', remotePort: 1, certificate: { verified: true, commonName: 'mallory', organizations: ['system:masters'] } });
    const get = 'GET /api/v1/namespaces/kube-system/secrets HTTP/1.1\r\nHost: x\r\n\r\n';
    assert.equal(await answerTo(socketPath, `${'00'.repeat(32)} ${claim}\n${get}`), '', 'a wrong secret');
    assert.equal(await answerTo(socketPath, `${claim}\n${get}`), '', 'no secret');
    assert.equal(await answerTo(socketPath, get), '', 'plain HTTP');
    // The server still serves.
    assert.equal((await secureRequest(s.url, s.ca, 'GET', '/healthz')).status, 200);
  });

  test('a port in use is a clear error, and leaves no front behind', async (t) => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    await assert.rejects(startSecureServer({ tlsTermination: 'process' }, { port }), { code: 'EADDRINUSE', message: `listen EADDRINUSE: address already in use 127.0.0.1:${port}` });
    assert.deepEqual(frontPids('self'), []);
  });

  test('a front that dies is replaced on the same port; stopping the apiserver ends it', async (t) => {
    const s = await startSecureServer({ tlsTermination: 'process' });
    let stopped = false;
    t.after(() => (stopped ? undefined : s.stop()));
    const [first] = frontPids('self');
    assert.ok(first !== undefined);
    process.kill(first, 'SIGKILL');
    await until('a new front', async () => frontPids('self').some((pid) => pid !== first), 10_000, 50);
    await until('served again', async () => (await secureRequest(s.url, s.ca, 'GET', '/healthz').catch(() => ({ status: 0 }))).status === 200, 10_000, 50);
    const [second] = frontPids('self');
    await s.stop();
    stopped = true;
    assert.equal(alive(second!), false, 'the front ends with the apiserver');
    assert.deepEqual(frontPids('self'), []);
  });

  test('kill -9 of the apiserver ends its front, and the port is free for the next start', async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-front-kill-'));
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const args = ['serve', '--data-dir', dataDir, '--log-level', 'silent', '--tls-termination', 'process'];
    const first = spawnApiary([...args, '--secure-port', '0'], { secure: true, urlTimeoutMs: 30_000 });
    t.after(() => first.stop('SIGKILL'));
    const url = await first.url;
    const port = new URL(url).port;
    const [front] = frontPids(first.child.pid!);
    assert.ok(front !== undefined, 'the apiserver started a front');
    first.child.kill('SIGKILL');
    await first.exited;
    await until('the front exits', async () => !alive(front), 5000, 20);

    const second = spawnApiary([...args, '--secure-port', port], { secure: true, urlTimeoutMs: 30_000 });
    t.after(() => second.stop('SIGKILL'));
    assert.equal(await second.url, url);
    const ca = fs.readFileSync(path.join(dataDir, 'pki/ca.crt'), 'utf8');
    assert.equal((await secureRequest(url, ca, 'GET', '/healthz')).status, 200);
    assert.equal(await second.stop('SIGTERM'), 0);
  });
});
