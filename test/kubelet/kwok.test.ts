// The kubelet-facing subresources end to end: `apiary serve` (TLS, RBAC) with
// the --kubelet-* flags, kwok's kubelet server as the node's kubelet (HTTPS on
// loopback, its serving certificate signed by a CA apiary is told to trust),
// and the real kubectl 1.32 as the user:
// - `kubectl logs` (plain, --tail with --timestamps, -f seeing a line written
//   after it started), from the log file kwok serves for the pod;
// - `kubectl attach`, which kwok serves from the same log file;
// - `kubectl exec` (a command's output, stdin piped through), which kwok runs
//   as a local process; kubectl tries a WebSocket first and falls back to SPDY
//   when kwok refuses the WebSocket, as against kube-apiserver;
// - @kubernetes/client-node's Exec, a WebSocket client, proxied byte for byte
//   (kwok chooses v4.channel.k8s.io of the protocols it offers);
// - `kubectl port-forward` to a local HTTP server kwok forwards the pod's port to;
// - nodes/proxy refused for a kubelet on a loopback address, as upstream;
// - RBAC: a user who may get pods but not create pods/exec gets upstream's
//   403 for exec (and for logs without pods/log), and exec works once granted.
//
// Binaries: kwok from test/compat/kwok (built by scripts/run-tests.mjs); skipped without it.

import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../../src/auth/pki/pki.js';
import { spawnApiary } from '../helpers/apiary-process.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { UPSTREAM_BINARIES, kwokNode } from '../compat/controlplane/cluster.js';

const NODE = 'kwok-kubelet-0';

/** A line of a container log in the CRI format kwok reads. */
const criLine = (at: string, stream: 'stdout' | 'stderr', text: string): string => `${at} ${stream} F ${text}\n`;

/** Stops a child started in its own process group, and everything it started. */
function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done();
    child.once('exit', () => done());
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      done();
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, 5000).unref();
  });
}

/** A long-running kubectl (logs -f, port-forward) whose output is watched. */
function kubectlProcess(kubeconfig: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECACHEDIR: `${kubeconfig}.cache` } });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  return { child, output: () => output };
}

const kwokMissing = !existsSync(UPSTREAM_BINARIES.kwok);

test('kubectl logs, exec and port-forward reach kwok through apiary', { skip: kwokMissing ? `kwok not built (${UPSTREAM_BINARIES.kwok}; scripts/run-tests.mjs builds it)` : false, timeout: 180_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-kubelet-'));
  const dataDir = join(dir, 'data');
  const children: ChildProcess[] = [];
  const servers: http.Server[] = [];
  let stopApiary: () => Promise<unknown> = async () => {};
  t.after(async () => {
    for (const child of children.reverse()) await stopGroup(child);
    for (const server of servers) await new Promise<void>((done) => server.close(() => done()));
    await stopApiary();
    rmSync(dir, { recursive: true, force: true });
  });

  // The kubelet's PKI: a CA apiary trusts (--kubelet-certificate-authority), kwok's serving certificate, apiary's client certificate.
  const ca = await createCertificateAuthority('kubelet-ca');
  const serving = await issueServingCertificate(ca, ['127.0.0.1']);
  const client = await issueClientCertificate(ca, 'kube-apiserver-kubelet-client', ['kubeadm:cluster-admins']);
  const files = { ca: join(dir, 'kubelet-ca.crt'), servingCert: join(dir, 'kwok.crt'), servingKey: join(dir, 'kwok.key'), clientCert: join(dir, 'client.crt'), clientKey: join(dir, 'client.key') };
  writeFileSync(files.ca, ca.certPem);
  writeFileSync(files.servingCert, serving.certPem);
  writeFileSync(files.servingKey, serving.keyPem);
  writeFileSync(files.clientCert, client.certPem);
  writeFileSync(files.clientKey, client.keyPem);

  // What the pod "runs": a log file and an HTTP server on its port 80.
  const logFile = join(dir, 'web.log');
  writeFileSync(logFile, criLine('2026-01-01T00:00:00.000000000Z', 'stdout', 'first line') + criLine('2026-01-01T00:00:01.000000000Z', 'stderr', 'second line'));
  const big = 'x'.repeat(300_000);
  const web = http.createServer((req, res) => {
    // A body far above one WebSocket frame's 64 KiB, and a request body too, for the tunnel's framing both ways.
    if (req.url === '/echo') return void req.pipe(res);
    res.end(req.url === '/big' ? big : `hello from the pod at ${req.url ?? ''}\n`);
  });
  servers.push(web);
  await new Promise<void>((done) => web.listen(0, '127.0.0.1', () => done()));
  const webPort = (web.address() as { port: number }).port;

  const apiaryPort = await freePort();
  const kubeletPort = await freePort();
  const apiary = spawnApiary(
    [
      'serve',
      '--data-dir', dataDir,
      '--bind-address', '127.0.0.1',
      '--secure-port', String(apiaryPort),
      '--kubelet-preferred-address-types', 'InternalIP',
      '--kubelet-certificate-authority', files.ca,
      '--kubelet-client-certificate', files.clientCert,
      '--kubelet-client-key', files.clientKey,
    ],
    { secure: true },
  );
  stopApiary = () => apiary.stop();
  await apiary.url;
  const kubeconfig = join(dataDir, 'kubeconfig');
  const kubectl = async (args: string[], stdin?: string): Promise<string> => {
    const r = await runKubectl(kubeconfig, args, { ...(stdin !== undefined ? { stdin } : {}), timeoutMs: 60_000 });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  const kubectlFails = async (args: string[]): Promise<string> => {
    const r = await runKubectl(kubeconfig, args, { timeoutMs: 60_000 });
    assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should have failed: ${r.stdout}`);
    return r.stderr;
  };

  // kwok: the node's kubelet on loopback, serving logs, exec and port-forward for every pod (its cluster-wide configurations).
  const kwokConfig = join(dir, 'kwok.yaml');
  writeFileSync(
    kwokConfig,
    [
      `apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterLogs\nmetadata:\n  name: logs\nspec:\n  logs:\n  - logsFile: ${logFile}\n    follow: true\n`,
      `apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterExec\nmetadata:\n  name: exec\nspec:\n  execs:\n  - local:\n      workDir: ${dir}\n`,
      `apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterAttach\nmetadata:\n  name: attach\nspec:\n  attaches:\n  - logsFile: ${logFile}\n`,
      `apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterPortForward\nmetadata:\n  name: forward\nspec:\n  forwards:\n  - target:\n      port: ${webPort}\n      address: 127.0.0.1\n`,
    ].join('---\n'),
  );
  const kwok = spawn(
    UPSTREAM_BINARIES.kwok,
    [
      `--kubeconfig=${kubeconfig}`,
      `--manage-single-node=${NODE}`,
      `--server-address=127.0.0.1:${kubeletPort}`,
      `--tls-cert-file=${files.servingCert}`,
      `--tls-private-key-file=${files.servingKey}`,
      '--node-ip=127.0.0.1',
      `--node-port=${kubeletPort}`,
      `--config=${kwokConfig}`,
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  children.push(kwok);

  await kubectl(['create', '-f', '-'], JSON.stringify(kwokNode(NODE)));
  const pod = (name: string, nodeName?: string): string =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { ...(nodeName !== undefined ? { nodeName } : {}), containers: [{ name: 'app', image: 'web' }] } });
  await kubectl(['create', '-f', '-'], pod('web', NODE));
  await until(
    'kwok runs the pod',
    async () => (await runKubectl(kubeconfig, ['get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running',
    60_000,
    200,
  );
  const node = JSON.parse(await kubectl(['get', 'node', NODE, '-o', 'json'])) as { status: { daemonEndpoints: { kubeletEndpoint: { Port: number } } } };
  assert.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, kubeletPort, 'kwok reports its server as the kubelet endpoint');

  await t.test('kubectl logs', async () => {
    assert.equal(await kubectl(['logs', 'web']), 'first line\nsecond line\n');
    assert.equal(await kubectl(['logs', 'web', '--tail=1', '--timestamps']), '2026-01-01T00:00:01.000000000Z second line\n');
    assert.equal(await kubectl(['logs', 'web', '-c', 'app', '--limit-bytes=5']), 'first');
    const missing = await kubectlFails(['logs', 'web', '-c', 'nope']);
    assert.match(missing, /container nope is not valid for pod web/);
  });

  await t.test('kubectl logs -f sees a line written after it started', async () => {
    const follow = kubectlProcess(kubeconfig, ['logs', '-f', 'web', '--tail=1']);
    children.push(follow.child);
    await until('the last line', () => follow.output().includes('second line'), 30_000, 50);
    appendFileSync(logFile, criLine('2026-01-01T00:00:02.000000000Z', 'stdout', 'third line'));
    await until('the new line', () => follow.output().includes('third line'), 30_000, 50);
    assert.equal(follow.output(), 'second line\nthird line\n');
    await stopGroup(follow.child);
  });

  await t.test('kubectl exec', async () => {
    assert.equal(await kubectl(['exec', 'web', '--', 'echo', 'hi']), 'hi\n');
    // stdin goes through the stream to the process and back.
    assert.equal(await kubectl(['exec', '-i', 'web', '--', 'sh', '-c', 'read line; echo "got $line"'], 'piped through\n'), 'got piped through\n');
    // The command runs in kwok's workDir: a file there is seen.
    writeFileSync(join(dir, 'marker.txt'), 'in the work dir\n');
    assert.equal(await kubectl(['exec', 'web', '--', 'cat', 'marker.txt']), 'in the work dir\n');
    const failed = await runKubectl(kubeconfig, ['exec', 'web', '--', 'sh', '-c', 'exit 3'], { timeoutMs: 60_000 });
    // kwok reports a failed command on the stream's error channel (not as NonZeroExitCode): kubectl prints it and fails.
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /exit status 3/);
  });

  await t.test('kubectl attach', async () => {
    const attach = kubectlProcess(kubeconfig, ['attach', 'web']);
    children.push(attach.child);
    // kwok follows the file from its end: a line written once attached comes through.
    await until('attached', () => attach.output().includes("If you don't see a command prompt"), 30_000, 50);
    let line = 0;
    await until(
      'the attached output',
      () => {
        appendFileSync(logFile, criLine('2026-01-01T00:00:03.000000000Z', 'stdout', `attached line ${++line}`));
        return attach.output().includes('attached line');
      },
      30_000,
      500,
    );
    await stopGroup(attach.child);
  });

  await t.test('@kubernetes/client-node exec over a WebSocket (v4.channel.k8s.io, which kwok speaks)', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    let stdout = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        stdout += chunk.toString('utf8');
        done();
      },
    });
    const status = await new Promise<V1Status>((resolve, reject) => {
      new Exec(kc).exec('default', 'web', 'app', ['echo', 'over a websocket'], out, null, null, false, resolve).catch(reject);
    });
    assert.equal(status.status, 'Success');
    await until('the output', () => stdout === 'over a websocket\n', 5000, 10);
  });

  await t.test('kubectl port-forward to the pod', async () => {
    const localPort = await freePort();
    // -v=4 shows whether kubectl had to fall back from the WebSocket tunnel to SPDY.
    const forward = kubectlProcess(kubeconfig, ['port-forward', 'pod/web', `${localPort}:80`, '--address', '127.0.0.1', '-v=4']);
    children.push(forward.child);
    await until('port-forward listens', () => forward.output().includes('Forwarding from'), 30_000, 50);
    for (const path of ['/a', '/b']) {
      const body = await new Promise<string>((done, reject) => {
        http.get({ host: '127.0.0.1', port: localPort, path }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (s: string) => (text += s)).on('end', () => done(text));
        }).on('error', reject);
      });
      assert.equal(body, `hello from the pod at ${path}\n`);
    }
    const echoed = await new Promise<string>((done, reject) => {
      const req = http.request({ host: '127.0.0.1', port: localPort, path: '/echo', method: 'POST' }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (s: string) => (text += s)).on('end', () => done(text));
      });
      req.on('error', reject);
      req.end(big);
    });
    assert.equal(echoed.length, big.length);
    const large = await new Promise<string>((done, reject) => {
      http.get({ host: '127.0.0.1', port: localPort, path: '/big' }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (s: string) => (text += s)).on('end', () => done(text));
      }).on('error', reject);
    });
    assert.equal(large, big);
    await stopGroup(forward.child);
    // apiary translated kubectl's WebSocket tunnel to the kubelet's SPDY, as kube-apiserver 1.32 does: no fallback.
    assert.doesNotMatch(forward.output(), /fallback/i, forward.output());
  });

  await t.test('nodes/proxy to a kubelet on loopback is refused, as upstream', async () => {
    const refused = await kubectlFails(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`]);
    assert.match(refused, /address not allowed/);
  });

  await t.test('RBAC: pods/exec and pods/log are authorized on their own', async () => {
    await kubectl(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
    await kubectl(['create', 'rolebinding', 'alice-reads', '--role=pod-reader', '--user=alice']);
    const exec = await kubectlFails(['--as=alice', 'exec', 'web', '--', 'echo', 'hi']);
    assert.match(exec, /Error from server \(Forbidden\): pods "web" is forbidden: User "alice" cannot create resource "pods\/exec" in API group "" in the namespace "default"/);
    const logs = await kubectlFails(['--as=alice', 'logs', 'web']);
    assert.match(logs, /pods "web" is forbidden: User "alice" cannot get resource "pods\/log" in API group "" in the namespace "default"/);
    await kubectl(['create', 'role', 'pod-exec', '--verb=create', '--resource=pods/exec']);
    await kubectl(['create', 'rolebinding', 'alice-execs', '--role=pod-exec', '--user=alice']);
    let granted = '';
    await until('the grant is in effect', async () => {
      granted = (await runKubectl(kubeconfig, ['--as=alice', 'exec', 'web', '--', 'echo', 'granted'], { timeoutMs: 60_000 })).stdout;
      return granted !== '';
    }, 20_000, 200);
    assert.equal(granted, 'granted\n');
  });
});
