// Requests that offer an upgrade apiary does not take (HTTP/2 cleartext's
// `Upgrade: h2c`, a WebSocket to an ordinary path) are answered as any
// request, in HTTP/1.1, body included: Node hands every upgrade request to
// the server's upgrade listener (src/server/proxy/upgrade-aware.ts), which
// must put them back on the normal path whole.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

function send(method: string, urlPath: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(server.url + urlPath, { method, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (s: string) => (text += s)).on('end', () => resolve({ status: res.statusCode ?? 0, text, connection: res.headers.connection }));
    });
    req.on('upgrade', () => reject(new Error('the server switched protocols')));
    req.on('error', reject);
    req.end(body);
  });
}

before(async () => {
  server = await startTestServer();
  assert.equal((await send('POST', '/api/v1/namespaces', { 'content-type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }))).status, 201);
});

after(async () => {
  await server?.stop();
});

test('a POST offering Upgrade: h2c is served with its body, in HTTP/1.1', async () => {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h2c' }, data: { k: 'v'.repeat(100_000) } };
  const created = await send('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json', connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA' }, JSON.stringify(configMap));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.connection, 'close');
  const got = await send('GET', '/api/v1/namespaces/default/configmaps/h2c', {});
  assert.equal(JSON.parse(got.text).data.k.length, 100_000);
});

test('a WebSocket offered to an ordinary path gets the ordinary answer', async () => {
  const res = await send('GET', '/api/v1/namespaces/default/configmaps/h2c', { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' });
  assert.equal(res.status, 200);
  assert.equal(JSON.parse(res.text).metadata.name, 'h2c');
});
