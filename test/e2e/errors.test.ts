// Every failure over real HTTP with its exact Status body, and a check that
// none of the rejected requests wrote anything.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertStatus, configMap, get, request } from '../helpers/http.js';

let server: TestServer;
let base: string;
const NS = 'errs';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

before(async () => {
  server = await startTestServer();
  base = server.url;
  const ns = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
  assert.equal(ns.status, 201, ns.text);
  const cm = await request(base, 'POST', CM, { body: configMap('existing') });
  assert.equal(cm.status, 201, cm.text);
});

after(async () => {
  // Nothing any rejected request sent was written: only the one configmap exists.
  const list = await get(base, CM);
  assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['existing']);
  await server.stop();
});

test('404: an unknown resource inside a served group/version is go-restful\'s Status', async () => {
  const reply = await get(base, '/api/v1/foos');
  assert.equal(reply.status, 404);
  assert.deepEqual(reply.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server could not find the requested resource',
    reason: 'NotFound',
    details: {},
    code: 404,
  });
  assert.equal((await get(base, `${CM}/existing/nosuchsub`)).status, 404);
  assert.equal((await get(base, '/api/v1/configmaps/existing')).status, 404, 'namespaced items have no cluster-wide path');
});

test('404: a group/version nobody serves is Go\'s plain-text 404', async () => {
  const reply = await get(base, '/apis/nope.example.com/v1/things');
  assert.equal(reply.status, 404);
  assert.equal(reply.text, '404 page not found\n');
  assert.equal((await get(base, '/no/such/path')).text, '404 page not found\n');
});

test('404: an unserved version of a served group, and a namespace under a namespace, are JSON route 404s', async () => {
  for (const path of [
    '/apis/apps/v1beta1/deployments',
    '/apis/apps/v1beta1',
    `/apis/apps/v1beta1/namespaces/${NS}/deployments/x`,
    '/api/v2/pods',
    `/api/v1/namespaces/${NS}/namespaces/x`,
    `/api/v1/namespaces/${NS}/namespaces`,
  ]) {
    const reply = await get(base, path);
    assertStatus(reply, 404, 'NotFound', 'the server could not find the requested resource');
    assert.deepEqual(reply.json.details, {}, path);
  }
  // The namespace itself is still found by name.
  assert.equal((await get(base, `/api/v1/namespaces/${NS}`)).status, 200);
});

test('404: a missing object names the resource', async () => {
  const reply = await get(base, `${CM}/missing`);
  assertStatus(reply, 404, 'NotFound', 'configmaps "missing" not found');
  assert.deepEqual(reply.json.details, { name: 'missing', kind: 'configmaps' });
  const deployment = await get(base, `/apis/apps/v1/namespaces/${NS}/deployments/missing`);
  assertStatus(deployment, 404, 'NotFound', 'deployments.apps "missing" not found');
});

test('409 AlreadyExists', async () => {
  const reply = await request(base, 'POST', CM, { body: configMap('existing', { other: 'data' }) });
  assertStatus(reply, 409, 'AlreadyExists', 'configmaps "existing" already exists');
  assert.deepEqual(reply.json.details, { name: 'existing', kind: 'configmaps' });
  assert.deepEqual((await get(base, `${CM}/existing`)).json.data, { key: 'value' });
});

test('409 Conflict on a stale resourceVersion', async () => {
  const current = (await get(base, `${CM}/existing`)).json;
  const stale = { ...current, metadata: { ...current.metadata, resourceVersion: '1' }, data: { stale: 'write' } };
  const reply = await request(base, 'PUT', `${CM}/existing`, { body: stale });
  assertStatus(
    reply,
    409,
    'Conflict',
    'Operation cannot be fulfilled on configmaps "existing": the object has been modified; please apply your changes to the latest version and try again',
  );
  assert.deepEqual((await get(base, `${CM}/existing`)).json.data, { key: 'value' });
});

test('422 Invalid with causes', async () => {
  const reply = await request(base, 'POST', CM, { body: configMap('Bad_Name') });
  const detail =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  assertStatus(reply, 422, 'Invalid', `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${detail}`);
  assert.deepEqual(reply.json.details, {
    name: 'Bad_Name',
    kind: 'ConfigMap',
    causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${detail}`, field: 'metadata.name' }],
  });
});

test('400 malformed JSON', async () => {
  const reply = await request(base, 'POST', CM, {
    raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},}',
    headers: { 'content-type': 'application/json' },
  });
  assertStatus(
    reply,
    400,
    'BadRequest',
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'}\' looking for beginning of object key string ({"apiVersion":"v1","kind":"Con ...)',
  );
});

test('400 malformed YAML', async () => {
  const reply = await request(base, 'POST', CM, {
    raw: 'metadata: {name: x\ndata: [',
    headers: { 'content-type': 'application/yaml' },
  });
  assert.equal(reply.status, 400, reply.text);
  assert.equal(reply.json.reason, 'BadRequest');
  assert.match(reply.json.message, /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: /);
  // Upstream summarizes a body that does not start with "{" in hex.
  assert.match(reply.json.message, / \(6d657461646174613a207b6e616d653a20780a646174613a205b\)$/);
});

test('400 namespace mismatch, name mismatch, kind and version mismatch', async () => {
  const other = await request(base, 'POST', CM, { body: configMap('moved', {}, { namespace: 'elsewhere' }) });
  assertStatus(other, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');

  const current = (await get(base, `${CM}/existing`)).json;
  // An update or patch naming another namespace: the same words as on create.
  const movedPut = await request(base, 'PUT', `${CM}/existing`, { body: { ...current, metadata: { ...current.metadata, namespace: 'elsewhere' } } });
  assertStatus(movedPut, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  const movedPatch = await request(base, 'PATCH', `${CM}/existing`, {
    raw: JSON.stringify({ metadata: { namespace: 'elsewhere' } }),
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assertStatus(movedPatch, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  const renamed = await request(base, 'PUT', `${CM}/existing`, { body: { ...current, metadata: { ...current.metadata, name: 'renamed' } } });
  assertStatus(renamed, 400, 'BadRequest', 'the name of the object (renamed) does not match the name on the URL (existing)');

  const foo = await request(base, 'POST', CM, { body: { apiVersion: 'v1', kind: 'Foo', metadata: { name: 'foo' } } });
  assertStatus(foo, 400, 'BadRequest', 'Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"');

  const namespaceBody = await request(base, 'POST', CM, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-as-cm' } } });
  assertStatus(namespaceBody, 400, 'BadRequest', 'Namespace in version "v1" cannot be handled as a ConfigMap: converting (v1.Namespace) to (core.ConfigMap): unknown conversion');

  const patchRename = await request(base, 'PATCH', `${CM}/existing`, {
    raw: JSON.stringify({ metadata: { name: 'other' } }),
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assertStatus(patchRename, 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (existing)');
});

test('405 for a method the path does not serve', async () => {
  const expected = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    details: {},
    code: 405,
  };
  const postItem = await request(base, 'POST', `${CM}/existing`, { body: configMap('existing') });
  assert.equal(postItem.status, 405);
  assert.deepEqual(postItem.json, expected);
  const putCollection = await request(base, 'PUT', CM, { body: configMap('x') });
  assert.deepEqual(putCollection.json, expected);
  const createClusterWide = await request(base, 'POST', '/api/v1/configmaps', { body: configMap('x') });
  assert.deepEqual(createClusterWide.json, expected);
});

test('406 for an Accept we cannot serve', async () => {
  // No route produces text/html: go-restful's answer, as kube-apiserver 1.32 gives it.
  const reply = await get(base, `${CM}/existing`, { accept: 'text/html' });
  assertStatus(reply, 406, 'NotAcceptable', '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  assert.deepEqual(reply.json.details, {});
  const list = await get(base, CM, { accept: 'application/*' });
  assertStatus(
    list,
    406,
    'NotAcceptable',
    '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
  );
  // A route matches but the conversion asked for is not served: the apiserver's own negotiation error.
  const conversion = await get(base, `${CM}/existing`, { accept: 'application/json;as=Foo' });
  assertStatus(conversion, 406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  assert.equal(conversion.json.details, undefined);
  assert.equal(conversion.text, JSON.stringify(conversion.json, null, 2), 'written as indented JSON without a newline, as WriteRawJSON');
  const create = await request(base, 'POST', CM, { body: configMap('accepted-not'), headers: { accept: 'text/html' } });
  assert.equal(create.status, 406, 'output negotiation comes before the write');
});

test('413 for a body over 3 MiB', async () => {
  const big = JSON.stringify(configMap('big', { blob: 'x'.repeat(3 * 1024 * 1024) }));
  const reply = await request(base, 'POST', CM, { raw: big, headers: { 'content-type': 'application/json' } });
  assertStatus(reply, 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
});

test('415 for an unknown body or patch type', async () => {
  const reply = await request(base, 'POST', CM, { raw: 'name=x', headers: { 'content-type': 'text/plain' } });
  assertStatus(
    reply,
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
  // Apply is served for built-in kinds: without a fieldManager it is upstream's 422.
  const apply = await request(base, 'PATCH', `${CM}/existing`, {
    raw: JSON.stringify({ data: { s: 'm' } }),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assertStatus(apply, 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
});

test('errors are negotiated: a YAML client gets a YAML Status', async () => {
  const reply = await get(base, `${CM}/missing`, { accept: 'application/yaml' });
  assert.equal(reply.status, 404);
  assert.equal(reply.contentType, 'application/yaml');
  assert.match(reply.text, /^apiVersion: v1\ncode: 404\n/);
});
