// gzip for large answers (APIResponseCompression, as kube-apiserver 1.32): a
// client that lists `gzip` in Accept-Encoding gets a body over 128 KiB
// compressed, with Content-Encoding and Vary and no Content-Length; smaller
// bodies, other clients and `--feature-gates=APIResponseCompression=false` get
// plain bytes. The differential pass's "response compression" case asks a real
// kube-apiserver the same questions. kubectl (Go's transport asks for gzip by
// itself) reads the compressed list as any other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** node:http, so that nothing decompresses or adds an Accept-Encoding of its own. */
function raw(server: TestServer, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(server.url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** 150 ConfigMaps of 1 KiB: their list is about 170 KB, over the 128 KiB threshold. */
async function fill(server: TestServer, ns: string): Promise<void> {
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  const payload = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(29);
  for (let i = 0; i < 150; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, async (_, j) => {
        const reply = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `cm-${i + j}` }, data: { payload } } });
        assert.equal(reply.status, 201, reply.text);
      }),
    );
  }
}

test('a large list is gzipped for a client that accepts gzip, and only then', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  await fill(server, 'zipped');
  const path = '/api/v1/namespaces/zipped/configmaps';

  const plain = await raw(server, path);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(Number(plain.headers['content-length']), plain.body.length);
  assert.ok(plain.body.length > 128 * 1024, `the list is ${plain.body.length} bytes`);

  const zipped = await raw(server, `${path}?resourceVersion=${JSON.parse(plain.body.toString()).metadata.resourceVersion}&resourceVersionMatch=Exact`, { 'accept-encoding': 'deflate, gzip' });
  assert.equal(zipped.status, 200);
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.equal(zipped.headers['vary'], 'Accept-Encoding');
  assert.equal(zipped.headers['content-type'], 'application/json');
  assert.equal(zipped.headers['content-length'], undefined);
  assert.equal(zipped.headers['transfer-encoding'], 'chunked');
  assert.ok(zipped.body.length < plain.body.length / 4, `${zipped.body.length} compressed bytes`);
  assert.deepEqual(JSON.parse(gunzipSync(zipped.body).toString()).items, JSON.parse(plain.body.toString()).items);

  // Upstream's token test: parameters are not parsed, so `gzip;q=1.0` is not `gzip`.
  const withParameter = await raw(server, path, { 'accept-encoding': 'gzip;q=1.0' });
  assert.equal(withParameter.headers['content-encoding'], undefined);
  assert.equal(Number(withParameter.headers['content-length']), withParameter.body.length);

  // A small answer is never compressed.
  const one = await raw(server, `${path}/cm-1`, { 'accept-encoding': 'gzip' });
  assert.equal(one.status, 200);
  assert.equal(one.headers['content-encoding'], undefined);
  assert.equal(JSON.parse(one.body.toString()).metadata.name, 'cm-1');

  // The same rule for every media type (YAML, protobuf), and for HEAD (the headers without the body).
  const yaml = await raw(server, path, { 'accept-encoding': 'gzip', accept: 'application/yaml' });
  assert.equal(yaml.headers['content-encoding'], 'gzip');
  assert.match(gunzipSync(yaml.body).toString(), /^apiVersion: v1\nitems:\n/);
  const protobuf = await raw(server, path, { 'accept-encoding': 'gzip', accept: 'application/vnd.kubernetes.protobuf' });
  assert.equal(protobuf.headers['content-encoding'], 'gzip');
  assert.equal(protobuf.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  assert.deepEqual([...gunzipSync(protobuf.body).subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00], 'the protobuf envelope');
  const head = await raw(server, path, { 'accept-encoding': 'gzip' }, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-encoding'], 'gzip');
  assert.equal(head.body.length, 0);

  // kubectl asks for gzip (Go's transport) and decompresses: the list reads as ever.
  const names = await runKubectl(server.kubeconfigPath, ['get', 'configmaps', '-n', 'zipped', '-o', 'jsonpath={.items[*].metadata.name}']);
  assert.equal(names.code, 0, names.stderr);
  assert.equal(names.stdout.split(' ').filter((n) => n.startsWith('cm-')).length, 150);
  const listed = await runKubectl(server.kubeconfigPath, ['get', '--raw', path]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(JSON.parse(listed.stdout).items.length, 150);
});

test('--feature-gates=APIResponseCompression=false answers every client uncompressed', async (t) => {
  const server = await startTestServer({ featureGates: { APIResponseCompression: false } });
  t.after(() => server.stop());
  await fill(server, 'unzipped');
  const reply = await raw(server, '/api/v1/namespaces/unzipped/configmaps', { 'accept-encoding': 'gzip' });
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['content-encoding'], undefined);
  assert.equal(reply.headers['vary'], undefined);
  assert.equal(JSON.parse(reply.body.toString()).items.length, 150);
});
