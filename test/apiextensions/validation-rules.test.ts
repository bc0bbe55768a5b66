// x-kubernetes-validations through the server's default compiler
// (machinery/cel's compileValidationRules): the CRD strategy compiles the
// rules with the schema and its path (compile errors become 422 causes), and
// every write of a custom resource runs them after schema validation, with the
// old object on update.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertStatus, get, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

let server: TestServer;

function crd(rule: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'limits.cel.example.com' },
    spec: {
      group: 'cel.example.com',
      scope: 'Cluster',
      names: { plural: 'limits', singular: 'limit', kind: 'Limit' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  'x-kubernetes-validations': [{ rule, message: 'replicas must not exceed maxReplicas' }],
                  properties: { replicas: { type: 'integer' }, maxReplicas: { type: 'integer' } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('compile errors of x-kubernetes-validations are 422 causes at the rule path', async () => {
  const reply = await request(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd('self.nope < 3') });
  assert.equal(reply.status, 422, reply.text);
  assert.equal(reply.json.details.causes[0].field, 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
  assert.match(reply.json.details.causes[0].message, /compilation failed: ERROR: <input>:1:5: undefined field 'nope'/);
});

test('compiled rules run on create and update of custom resources, after schema validation', async () => {
  const created = await request(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd('self.replicas <= self.maxReplicas') });
  assert.equal(created.status, 201, created.text);
  await until('limits served', async () => (await get(server.url, '/apis/cel.example.com/v1/limits')).status === 200);
  const path = '/apis/cel.example.com/v1/limits';
  const ok = await request(server.url, 'POST', path, { body: { apiVersion: 'cel.example.com/v1', kind: 'Limit', metadata: { name: 'l' }, spec: { replicas: 1, maxReplicas: 2 } } });
  assert.equal(ok.status, 201, ok.text);
  assertStatus(
    await request(server.url, 'POST', path, { body: { apiVersion: 'cel.example.com/v1', kind: 'Limit', metadata: { name: 'm' }, spec: { replicas: 3, maxReplicas: 2 } } }),
    422,
    'Invalid',
    'Limit.cel.example.com "m" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas',
  );
  const patched = await request(server.url, 'PATCH', `${path}/l`, { raw: '{"spec":{"replicas":5}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 422, patched.text);
  // Schema errors come first; rules do not run on an object that fails its schema.
  const typed = await request(server.url, 'POST', path, { body: { apiVersion: 'cel.example.com/v1', kind: 'Limit', metadata: { name: 'n' }, spec: { replicas: 'x', maxReplicas: 2 } } });
  assert.equal(typed.status, 422);
  assert.doesNotMatch(typed.json.message, /maxReplicas/);
});

test('rules inside allOf/anyOf/oneOf/not are refused as non-structural, as kube-apiserver 1.32 does', async () => {
  const body = crd('true') as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }[] } };
  const spec = body.spec.versions[0]!.schema.openAPIV3Schema.properties.spec;
  spec.allOf = [{ 'x-kubernetes-validations': [{ rule: 'self.replicas > 0' }] }];
  spec.anyOf = [{ properties: { replicas: { 'x-kubernetes-validations': [{ rule: 'self > 1' }] } } }];
  spec.not = { 'x-kubernetes-validations': [{ rule: 'self.replicas > 9' }] };
  const reply = await request(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body });
  assert.equal(reply.status, 422, reply.text);
  const p = 'spec.validation.openAPIV3Schema.properties[spec]';
  assert.deepEqual(
    reply.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`),
    [
      `${p}.allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${p}.anyOf[0].properties[replicas].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${p}.not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ],
  );
});

test("a schema pattern is a Go regexp: refused at CRD create with Go's message, matched with RE2 semantics", async () => {
  const bad = crd('true') as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] } };
  bad.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.name = { type: 'string', pattern: '^(?!x)' };
  const refused = await request(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: bad });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(
    refused.json.details.causes[0].message,
    "Invalid value: \"^(?!x)\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
  );
  assert.equal(refused.json.details.causes[0].field, 'spec.validation.openAPIV3Schema.properties[spec].properties[name].pattern');
});
