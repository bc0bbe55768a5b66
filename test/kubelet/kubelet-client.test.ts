// How apiary dials a kubelet, against a real HTTPS server on loopback playing
// the node's kubelet (its serving certificate signed by a CA of the test's):
// - the kubelet-client certificate is presented (--kubelet-client-certificate);
// - the kubelet's certificate is verified against --kubelet-certificate-authority:
//   a kubelet whose certificate another CA signed is refused, and pods/log's
//   insecureSkipTLSVerifyBackend skips that check, as upstream;
// - the node's address and port come from its status (preferred address type,
//   status.daemonEndpoints.kubeletEndpoint.Port);
// - what the log request carries (path, follow, tailLines, …), and a kubelet's
//   error answer becomes upstream's Status;
// - kube-apiserver's flags parse into the same options.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../../src/auth/pki/pki.js';
import { parseKubeApiserverArgs } from '../../src/cli/kube-apiserver-flags.js';
import { kubeApiserverOptions } from '../../src/cli/kube-apiserver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let dir: string;
let kubelet: https.Server;
let server: TestServer;
const seen: { url: string; clientCN: string | undefined }[] = [];

async function call(urlPath: string): Promise<{ status: number; text: string; contentType: string | undefined }> {
  const res = await fetch(server.url + urlPath);
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? undefined };
}

async function post(urlPath: string, body: unknown, method = 'POST', contentType = 'application/json'): Promise<void> {
  const res = await fetch(server.url + urlPath, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
  assert.ok(res.status < 300, `${method} ${urlPath}: ${res.status} ${await res.text()}`);
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-kubelet-client-'));
  const kubeletCa = await createCertificateAuthority('kubelet-ca');
  const otherCa = await createCertificateAuthority('other-ca');
  const serving = await issueServingCertificate(kubeletCa, ['127.0.0.1']);
  const client = await issueClientCertificate(kubeletCa, 'apiserver-kubelet-client', ['kubeadm:cluster-admins']);
  const file = (name: string, text: string): string => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  kubelet = https.createServer({ key: serving.keyPem, cert: serving.certPem, ca: kubeletCa.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    seen.push({ url: req.url ?? '', clientCN: [peer.subject?.CN].flat()[0] });
    if ((req.url ?? '').includes('/missing/')) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('container not found ("missing")');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('a log line\n');
  });
  await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
  const kubeletPort = (kubelet.address() as AddressInfo).port;

  // Two servers' worth of settings: the right CA here; the wrong-CA server is started in its test.
  server = await startTestServer({
    kubelet: {
      certificateAuthorityFile: file('kubelet-ca.crt', kubeletCa.certPem),
      clientCertificateFile: file('client.crt', client.certPem),
      clientKeyFile: file('client.key', client.keyPem),
      preferredAddressTypes: ['InternalIP'],
    },
  });
  fs.writeFileSync(path.join(dir, 'other-ca.crt'), otherCa.certPem);
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await post('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1.invalid' } },
    status: { addresses: [{ type: 'Hostname', address: 'n1.invalid' }, { type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } },
  });
  for (const name of ['p', 'missing']) {
    await post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'x' }] } });
  }
});

after(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => kubelet?.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('pods/log dials the InternalIP and kubelet port of the node, presenting the kubelet-client certificate', async () => {
  seen.length = 0;
  const res = await call('/api/v1/namespaces/default/pods/p/log?follow=true&tailLines=5&timestamps=true&limitBytes=100&previous=false');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'a log line\n');
  assert.equal(res.contentType, 'text/plain');
  assert.deepEqual(seen, [{ url: '/containerLogs/default/p/app?follow=true&limitBytes=100&tailLines=5&timestamps=true', clientCN: 'apiserver-kubelet-client' }]);
});

test("a kubelet's error answer becomes upstream's Status for pods/log", async () => {
  const res = await call('/api/v1/namespaces/default/pods/missing/log');
  assert.equal(res.status, 404);
  const status = JSON.parse(res.text);
  assert.equal(status.reason, 'NotFound');
  assert.equal(status.message, 'the server could not find the requested resource ( pods/log missing)');
  assert.deepEqual(status.details, { name: 'missing', kind: 'pods/log' });
});

test('a kubelet certificate from another CA is refused; insecureSkipTLSVerifyBackend reaches it', async () => {
  const other = await startTestServer({ kubelet: { certificateAuthorityFile: path.join(dir, 'other-ca.crt'), preferredAddressTypes: ['InternalIP'] } });
  try {
    const post2 = async (p: string, body: unknown): Promise<void> => {
      const r = await fetch(other.url + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.ok(r.status < 300, await r.text());
    };
    const node = JSON.parse((await call('/api/v1/nodes/n1')).text);
    delete node.metadata.resourceVersion;
    delete node.metadata.uid;
    delete node.metadata.creationTimestamp;
    delete node.metadata.managedFields;
    await post2('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    await post2('/api/v1/nodes', node);
    await post2('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'x' }] } });
    const refused = await fetch(`${other.url}/api/v1/namespaces/default/pods/p/log`);
    assert.equal(refused.status, 500);
    const status = (await refused.json()) as { message: string; reason?: string };
    assert.equal(status.reason, undefined);
    assert.match(status.message, /^Get "https:\/\/127\.0\.0\.1:\d+\/containerLogs\/default\/p\/app": tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    const skipped = await fetch(`${other.url}/api/v1/namespaces/default/pods/p/log?insecureSkipTLSVerifyBackend=true`);
    assert.equal(skipped.status, 200);
    assert.equal(await skipped.text(), 'a log line\n');
  } finally {
    await other.stop();
  }
});

test("kube-apiserver's --kubelet-* flags", () => {
  const parse = (argv: string[]) => {
    const parsed = parseKubeApiserverArgs(['--etcd-servers=http://127.0.0.1:2379', ...argv]);
    return kubeApiserverOptions(parsed.values, {}, parsed.arrays).server.kubelet;
  };
  assert.deepEqual(parse(['--kubelet-client-certificate=/a.crt', '--kubelet-client-key=/a.key', '--kubelet-certificate-authority=/ca.crt', '--kubelet-preferred-address-types=InternalIP,Hostname']), {
    clientCertificateFile: '/a.crt',
    clientKeyFile: '/a.key',
    certificateAuthorityFile: '/ca.crt',
    preferredAddressTypes: ['InternalIP', 'Hostname'],
  });
  assert.throws(() => parse(['--kubelet-client-certificate=/a.crt']), /--kubelet-client-certificate and --kubelet-client-key must be given together/);
  assert.throws(() => parse(['--kubelet-preferred-address-types=InternalIP,Nope']), /Nope is not a valid address type/);
});

test('a missing --kubelet-certificate-authority file stops the start', async () => {
  await assert.rejects(startTestServer({ kubelet: { certificateAuthorityFile: path.join(dir, 'no-such-ca.crt') } }), /ENOENT/);
});
