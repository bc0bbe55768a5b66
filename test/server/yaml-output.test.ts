// YAML responses as kube-apiserver writes them (sigs.k8s.io/yaml over go-yaml
// v2): keys sorted, a sequence in a map not indented, and a string that YAML 1.1
// would read as another type quoted, keys included (checked against a real one
// by the differential pass's "response in YAML" step).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

test('a YAML response quotes what YAML 1.1 would misread and does not indent sequences', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'yo' } } })).status, 201);
  const data = { y: 'n', when: '2024-01-01T00:00:00Z', on: 'off', octal: '0777', sexagesimal: '12:30:00', dot: '.', e: 'e5', plain: 'hello world', half: '.5' };
  const created = await request(server.url, 'POST', '/api/v1/namespaces/yo/configmaps', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'yaml-out', finalizers: ['example.com/a'] }, data },
  });
  assert.equal(created.status, 201, created.text);
  const reply = await request(server.url, 'GET', '/api/v1/namespaces/yo/configmaps/yaml-out', { headers: { accept: 'application/yaml' } });
  assert.equal(reply.status, 200);
  assert.match(reply.text, /^data:\n {2}dot: \.\n {2}e: e5\n {2}half: "\.5"\n {2}octal: "0777"\n {2}"on": "off"\n {2}plain: hello world\n {2}sexagesimal: "12:30:00"\n {2}when: "2024-01-01T00:00:00Z"\n {2}"y": "n"\n/m);
  assert.match(reply.text, /^ {2}finalizers:\n {2}- example\.com\/a\n/m);
  assert.match(reply.text, /^ {2}creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n/m);
});
