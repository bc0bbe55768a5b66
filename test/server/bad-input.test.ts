// Bad input answered as kube-apiserver 1.32 answers it (issue 29, part 3),
// each checked against what the reference gave for the same request: paths
// are not resolved before routing, malformed query integers and timestamps
// are 400s, deep nesting and alias bombs are 400s (never a 500), a null
// label is stored as "", a lone surrogate as U+FFFD, duplicate owner
// references once, YAML duplicate keys and !!binary accepted, 1 MiB headers
// served.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertStatus, get, request } from '../helpers/http.js';

/** A request whose path goes out exactly as written (fetch would resolve dot segments first). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const NOT_FOUND = 'the server could not find the requested resource';
const deep = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('bad input', () => {
  let server: TestServer;
  const CM = '/api/v1/namespaces/bad/configmaps';
  before(async () => {
    server = await startTestServer({ storage: 'memory' });
    for (const name of ['bad', 'kube-system']) await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    await request(server.url, 'POST', '/api/v1/namespaces/kube-system/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, stringData: { t: 'x' } } });
    await request(server.url, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { a: 'b' } } });
  });
  after(() => server.stop());

  test('dot segments are not resolved: another namespace is not reached', async () => {
    const dots = await rawGet(server.url, '/api/v1/namespaces/bad/../kube-system/secrets');
    assert.equal(dots.status, 404, dots.text);
    assert.equal(JSON.parse(dots.text).message, NOT_FOUND);
    assert.doesNotMatch(dots.text, /token/);
    for (const name of ['..', '%2e%2e', '%2E%2E']) {
      const reply = await rawGet(server.url, `${CM}/${name}`);
      assert.equal(reply.status, 400, reply.text);
      assert.equal(JSON.parse(reply.text).message, 'Name parameter invalid: "..": may not be \'..\'');
    }
    const slash = await rawGet(server.url, `${CM}/a%2fb`);
    assert.equal(slash.status, 404);
    assert.equal(JSON.parse(slash.text).message, NOT_FOUND);
  });

  test('malformed query integers are 400s', async () => {
    assertStatus(await get(server.url, `${CM}?timeoutSeconds=abc`), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
    assertStatus(await get(server.url, `${CM}?limit=99999999999999999999`), 400, 'BadRequest', 'strconv.ParseInt: parsing "99999999999999999999": value out of range');
    assert.equal((await get(server.url, `${CM}?limit=9223372036854775807`)).status, 200);
  });

  test('a timestamp that is not RFC 3339 is a 400 with Go message', async () => {
    const reply = await request(server.url, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nt', creationTimestamp: 'notatime' } } });
    assertStatus(
      reply,
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"',
    );
    const month = await request(server.url, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nt', creationTimestamp: '2024-13-01T00:00:00Z' } } });
    assertStatus(month, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "2024-13-01T00:00:00Z": month out of range');
  });

  test('null label and annotation values are stored as ""', async () => {
    const reply = await request(server.url, 'POST', CM, { raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', labels: { a: null }, annotations: { b: null } } }), headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(reply.json.metadata.labels, { a: '' });
    assert.deepEqual(reply.json.metadata.annotations, { b: '' });
  });

  test('a lone surrogate is stored as U+FFFD', async () => {
    const reply = await request(server.url, 'POST', CM, { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sur"},"data":{"a":"\\ud800x"}}', headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal((await get(server.url, `${CM}/sur`)).json.data.a, '\ufffdx');
  });

  test('nesting past the limit is a 400 in Go words, on every body', async () => {
    const create = await request(server.url, 'POST', CM, { raw: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${deep(10000)}}`, headers: { 'content-type': 'application/json' } });
    assert.equal(create.status, 400);
    assert.match(create.json.message, /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth/);
    const patches: Array<[string, string, string]> = [
      ['application/merge-patch+json', `{"x":${deep(10000)}}`, "error decoding patch: invalid character '{' exceeded max depth"],
      ['application/json-patch+json', `[{"op":"add","path":"/x","value":${deep(10000)}}]`, "error decoding patch: invalid character '{' exceeded max depth"],
      ['application/strategic-merge-patch+json', `{"x":${deep(10000)}}`, "invalid character '{' exceeded max depth"],
      ['application/strategic-merge-patch+json', `{"x":${deep(2400)}}`, "invalid character '{' exceeded max depth"],
    ];
    for (const [type, raw, message] of patches) assertStatus(await request(server.url, 'PATCH', `${CM}/p`, { raw, headers: { 'content-type': type } }), 400, 'BadRequest', message);
  });

  test('a billion-laughs YAML body is a 400', async () => {
    const lol = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: lol', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [i, k] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) lol.push(`${k}: &${k} [${new Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`);
    const apply = await request(server.url, 'PATCH', `${CM}/lol?fieldManager=x`, { raw: lol.join('\n'), headers: { 'content-type': 'application/apply-patch+yaml' } });
    assertStatus(apply, 400, 'BadRequest', 'error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing');
    const create = await request(server.url, 'POST', CM, { raw: lol.join('\n'), headers: { 'content-type': 'application/yaml' } });
    assert.equal(create.status, 400);
    assert.match(create.json.message, /^the object provided is unrecognized \(must be of type ConfigMap\): yaml: document contains excessive aliasing/);
  });

  test('YAML with a duplicate key or a !!binary value is accepted as go-yaml reads it', async () => {
    const dup = await request(server.url, 'POST', CM, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ydup\ndata:\n  a: "1"\n  a: "2"\n', headers: { 'content-type': 'application/yaml' } });
    assert.equal(dup.status, 201, dup.text);
    assert.deepEqual(dup.json.data, { a: '2' });
    const binary = await request(server.url, 'POST', CM, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ybin\ndata:\n  a: !!binary aGVsbG8=\n', headers: { 'content-type': 'application/yaml' } });
    assert.equal(binary.status, 201, binary.text);
    assert.deepEqual(binary.json.data, { a: 'hello' });
  });

  test('duplicate owner references are kept once, with upstream warning', async () => {
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: 'uid-1' };
    const reply = await request(server.url, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', ownerReferences: [owner, owner, owner] } } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.json.metadata.ownerReferences.length, 1);
    const million = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"own","ownerReferences":[${new Array(1_000_000).fill('{}').join(',')}]}}`;
    const invalid = await request(server.url, 'POST', CM, { raw: million, headers: { 'content-type': 'application/json' } });
    assert.equal(invalid.status, 422, invalid.text.slice(0, 300));
    assert.equal(invalid.json.details.causes.length, 4);
  });

  test('request headers up to 1 MiB are served', async () => {
    const reply = await rawGet(server.url, CM, { 'x-large': 'a'.repeat(1024 * 1024) });
    assert.equal(reply.status, 200);
  });
});

describe('duplicate keys', () => {
  let server: TestServer;
  const CM = '/api/v1/namespaces/dup/configmaps';
  before(async () => {
    server = await startTestServer({ storage: 'memory' });
    await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dup' } } });
  });
  after(() => server.stop());

  test('a repeated object key is merged as Go decodes it, with the duplicate-field warning', async () => {
    const reply = await request(server.url, 'POST', CM, { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"twice"},"data":{"a":"1","c":"1"},"data":{"b":"2","c":"2"}}', headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(reply.json.data, { a: '1', c: '2', b: '2' });
  });

  test('a YAML body repeating a key warns as go-yaml strict decoding does; Strict refuses it', async () => {
    const yaml = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n`;
    const res = await fetch(`${server.url}${CM}`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: yaml('warned') });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('warning'), '299 - "line 7: key \\"a\\" already set in map"');
    await res.text();
    const strict = await request(server.url, 'POST', `${CM}?fieldValidation=Strict`, { raw: yaml('strict'), headers: { 'content-type': 'application/yaml' } });
    assertStatus(strict, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
  });
});
