// CustomResourceDefinitions and custom resources over HTTP, on a real server:
// the messages below were checked against kube-apiserver 1.32.4 (same request,
// same code, reason and message; only the group and kind names differ).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WatchStream, assertStatus, get, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { decodeStoredValue } from '../../src/storage/managed-fields-codec.js';

let server: TestServer;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function widgetCrd(mutate: (crd: any) => void = () => {}): any { // eslint-disable-line @typescript-eslint/no-explicit-any -- a CRD body built field by field
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.crd.example.com' },
    spec: {
      group: 'crd.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } },
        },
      ],
    },
  };
  mutate(crd);
  return crd;
}

const crontabCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        deprecated: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
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
                required: ['cronSpec'],
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
      },
      { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
};

const CRONTABS = '/apis/stable.example.com/v1/namespaces/crd-test/crontabs';

function cronTab(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec, ...extra };
}

async function waitEstablished(name: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- status checked field by field
  let crd: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  await until(`${name} Established`, async () => {
    crd = (await get(server.url, `${CRDS}/${name}`)).json;
    return (crd?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
  }, 5000, 10);
  return crd;
}

before(async () => {
  server = await startTestServer();
  const ns = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crd-test' } } });
  assert.equal(ns.status, 201, ns.text);
  const created = await request(server.url, 'POST', CRDS, { body: crontabCrd });
  assert.equal(created.status, 201, created.text);
  await waitEstablished('crontabs.stable.example.com');
});
after(() => server.stop());

test('invalid CRDs: 422 with upstream paths (lifted to spec.validation when every version shares the schema) and messages', async () => {
  const cases: Array<[(crd: any) => void, string]> = [ // eslint-disable-line @typescript-eslint/no-explicit-any -- CRD mutations
    [(c) => (c.metadata.name = 'foo.crd.example.com'), 'metadata.name: Invalid value: "foo.crd.example.com": must be spec.names.plural+"."+spec.group'],
    [
      (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.b = {}),
      'spec.validation.openAPIV3Schema.properties[spec].properties[b].type: Required value: must not be empty for specified object fields',
    ],
    [
      (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.additionalProperties = { type: 'string' }),
      'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ],
    [
      (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } }),
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ],
    [(c) => (c.spec.versions[0].deprecationWarning = 'x'), 'spec.versions[0].deprecationWarning: Invalid value: "x": can only be set for deprecated versions'],
    [
      (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.l = { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } }),
      'spec.validation.openAPIV3Schema.properties[spec].properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
    ],
    [(c) => (c.spec.versions[0].schema.openAPIV3Schema.type = 'string'), 'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root'],
    [(c) => delete c.spec.versions[0].schema.openAPIV3Schema, 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
    [
      (c) => Object.assign(c.spec, { scope: 'Foo', group: 'nodot' }),
      '[metadata.name: Invalid value: "widgets.crd.example.com": must be spec.names.plural+"."+spec.group, spec.group: Invalid value: "nodot": should be a domain with at least one dot, spec.scope: Unsupported value: "Foo": supported values: "Cluster", "Namespaced"]',
    ],
    [
      (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'X', type: 'foo', jsonPath: 'spec.a' }]),
      '[spec.additionalPrinterColumns[0].type: Invalid value: "foo": must be one of boolean,date,integer,number,string, spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.a": must be a simple json path starting with .]',
    ],
    [
      (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: 'spec.r', statusReplicasPath: '.spec.r' } }),
      '[spec.subresources.scale.specReplicasPath: Invalid value: "spec.r": must be a simple json path starting with ., spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.r": should be a json path under .status]',
    ],
    [
      (c) => (c.spec.conversion = { strategy: 'Webhook' }),
      '[spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, spec.conversion.conversionReviewVersions: Required value]',
    ],
  ];
  for (const [mutate, detail] of cases) {
    const reply = await request(server.url, 'POST', CRDS, { body: widgetCrd(mutate) });
    const name = reply.json?.details?.name ?? '';
    assertStatus(reply, 422, 'Invalid', `CustomResourceDefinition.apiextensions.k8s.io ${JSON.stringify(name)} is invalid: ${detail}`);
  }
  // Nothing was stored.
  assert.equal((await get(server.url, `${CRDS}/widgets.crd.example.com`)).status, 404);
});

test('unknown fields of a CRD: Strict refuses them, Warn (the default) drops them with a warning, paths as upstream', async () => {
  const body = JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/typo-crd.json'), 'utf8'));
  const unknown = [
    'spec.vesions',
    'spec.names.bogus',
    'spec.versions[0].x',
    'spec.versions[0].schema.openAPIV3Schema.foo',
    'spec.versions[0].schema.openAPIV3Schema.properties.spec.bar',
    'spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].zz',
  ];
  assertStatus(
    await request(server.url, 'POST', `${CRDS}?fieldValidation=Strict&dryRun=All`, { body }),
    400,
    'BadRequest',
    `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`,
  );
  // (x-kubernetes-validations would need a CEL compiler: drop them to see the warnings of a successful dry run.)
  delete body.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'];
  const warned = await fetch(`${server.url}${CRDS}?dryRun=All`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(warned.status, 201, await warned.clone().text());
  assert.deepEqual(warned.headers.get('warning')?.split(', '), unknown.slice(0, 5).map((p) => `299 - "unknown field \\"${p}\\""`));
  const created = await warned.json();
  assert.equal(created.spec.vesions, undefined);
  assert.equal(created.spec.versions[0].schema.openAPIV3Schema.foo, undefined);
});

test('webhook conversion is accepted (a dry run: the webhook itself is exercised in conversion-webhook.test.ts)', async () => {
  const reply = await request(server.url, 'POST', `${CRDS}?dryRun=All`, {
    body: widgetCrd((c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com/convert' }, conversionReviewVersions: ['v1'] } })),
  });
  assert.equal(reply.status, 201, reply.text);
  assert.deepEqual(reply.json.spec.conversion, { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com/convert' }, conversionReviewVersions: ['v1'] } });
});

test('x-kubernetes-validations are compiled by the default CEL compiler: a rule that does not compile is refused, nothing stored', async () => {
  const reply = await request(server.url, 'POST', CRDS, {
    body: widgetCrd((c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.nope != "x"' }])),
  });
  assert.equal(reply.status, 422, reply.text);
  assert.match(
    reply.json.message,
    /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: ERROR: <input>:1:5: undefined field 'nope'/,
  );
  assert.equal((await get(server.url, `${CRDS}/widgets.crd.example.com`)).status, 404);
});

test('a created CRD: status reset with storedVersions, then NamesAccepted and Established within a second', async () => {
  const started = Date.now();
  const reply = await request(server.url, 'POST', CRDS, { body: widgetCrd() });
  assert.equal(reply.status, 201, reply.text);
  assert.deepEqual(reply.json.status, { acceptedNames: { plural: '', kind: '' }, conditions: null, storedVersions: ['v1'] });
  assert.equal(reply.json.metadata.generation, 1);
  assert.deepEqual(reply.json.spec.conversion, { strategy: 'None' });
  assert.equal(reply.json.spec.names.listKind, 'WidgetList');
  const crd = await waitEstablished('widgets.crd.example.com');
  assert.ok(Date.now() - started < 1000, `established after ${Date.now() - started} ms`);
  const conditions = crd.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]);
  assert.deepEqual(conditions, [
    ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
    ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
  ]);
  assert.deepEqual(crd.status.acceptedNames, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' });
  const first = await request(server.url, 'POST', '/apis/crd.example.com/v1/namespaces/crd-test/widgets', {
    body: { apiVersion: 'crd.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: 'b' } },
  });
  assert.equal(first.status, 201, first.text);
});

test('name conflicts inside a group: NamesAccepted False with upstream reason and message, not served', async () => {
  const other = widgetCrd((c) => {
    c.metadata.name = 'others.crd.example.com';
    c.spec.names = { plural: 'others', singular: 'other', kind: 'Widget' };
  });
  assert.equal((await request(server.url, 'POST', CRDS, { body: other })).status, 201);
  let crd: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- status checked field by field
  await until('others NamesAccepted', async () => {
    crd = (await get(server.url, `${CRDS}/others.crd.example.com`)).json;
    return (crd.status.conditions ?? []).length > 0;
  });
  const byType = Object.fromEntries(crd.status.conditions.map((c: Record<string, string>) => [c.type, c]));
  assert.equal(byType.NamesAccepted.status, 'False');
  assert.equal(byType.NamesAccepted.reason, 'ListKindConflict');
  assert.equal(byType.NamesAccepted.message, '"WidgetList" is already in use');
  assert.deepEqual([byType.Established.status, byType.Established.reason, byType.Established.message], ['False', 'NotAccepted', 'not all names are accepted']);
  assert.deepEqual(crd.status.acceptedNames, { plural: 'others', singular: 'other', kind: '' });
  assert.equal((await get(server.url, '/apis/crd.example.com/v1/namespaces/crd-test/others')).status, 404);
});

test('custom resources: defaulting, schema validation with upstream messages, generation, status and kind checks', async () => {
  const created = await request(server.url, 'POST', CRONTABS, { body: cronTab('a', { cronSpec: '* * * * */5' }) });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec, { cronSpec: '* * * * */5', replicas: 1 });
  assert.equal(created.json.metadata.generation, 1);
  assert.equal(created.json.apiVersion, 'stable.example.com/v1');

  assertStatus(
    await request(server.url, 'POST', CRONTABS, { body: cronTab('b', { cronSpec: 1, replicas: 'x' }) }),
    422,
    'Invalid',
    'CronTab.stable.example.com "b" is invalid: [spec.cronSpec: Invalid value: "integer": spec.cronSpec in body must be of type string: "integer", spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", .spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64]',
  );
  assertStatus(
    await request(server.url, 'POST', CRONTABS, { body: cronTab('b', { replicas: 0 }) }),
    422,
    'Invalid',
    'CronTab.stable.example.com "b" is invalid: [spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1, spec.cronSpec: Required value]',
  );
  assertStatus(
    await request(server.url, 'POST', CRONTABS, { body: { ...cronTab('b', { cronSpec: '* * * * *' }), kind: 'Other' } }),
    422,
    'Invalid',
    'Other.stable.example.com "b" is invalid: kind: Invalid value: "Other": must be CronTab',
  );
  assertStatus(
    await request(server.url, 'POST', `${CRONTABS}?fieldValidation=Strict`, { body: cronTab('b', { cronSpec: '* * * * *', zzz: 1 }, { extra: 3 }) }),
    400,
    'BadRequest',
    'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "extra", unknown field "spec.zzz"',
  );
  assert.equal((await get(server.url, `${CRONTABS}/b`)).status, 404);

  // Warn (the default) prunes and says so.
  const warned = await fetch(server.url + CRONTABS, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(cronTab('c', { cronSpec: '* * * * *', zzz: 1 }, { status: { replicas: 4 } })),
  });
  assert.equal(warned.status, 201);
  assert.equal(warned.headers.get('warning'), '299 - "unknown field \\"spec.zzz\\""');
  const c = await warned.json();
  assert.equal(c.spec.zzz, undefined);
  assert.equal(c.status, undefined, 'status is reset on create when it is a subresource');

  // A spec write keeps status and bumps generation; a status write changes only status.
  const status = await request(server.url, 'PUT', `${CRONTABS}/c/status`, { body: { ...c, spec: { cronSpec: '1 * * * *' }, status: { replicas: 2 } } });
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.status, { replicas: 2 });
  assert.equal(status.json.spec.cronSpec, '* * * * *');
  assert.equal(status.json.metadata.generation, 1);
  const spec = await request(server.url, 'PUT', `${CRONTABS}/c`, { body: { ...status.json, spec: { cronSpec: '2 * * * *', replicas: 3 }, status: { replicas: 9 } } });
  assert.equal(spec.status, 200, spec.text);
  assert.equal(spec.json.metadata.generation, 2);
  assert.deepEqual(spec.json.status, { replicas: 2 });

  // /scale reads and writes an autoscaling/v1 Scale.
  const scale = await get(server.url, `${CRONTABS}/c/scale`);
  assert.equal(scale.status, 200, scale.text);
  assert.deepEqual([scale.json.apiVersion, scale.json.kind, scale.json.spec, scale.json.status], ['autoscaling/v1', 'Scale', { replicas: 3 }, { replicas: 2 }]);
  const rescaled = await request(server.url, 'PATCH', `${CRONTABS}/c/scale`, { raw: '{"spec":{"replicas":5}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(rescaled.status, 200, rescaled.text);
  assert.equal(rescaled.json.spec.replicas, 5);
  assert.equal((await get(server.url, `${CRONTABS}/c`)).json.spec.replicas, 5);
});

test('several served versions: conversion None rewrites apiVersion, storage keeps the storage version, deprecation warns, unserved is 404', async () => {
  const beta = '/apis/stable.example.com/v1beta1/namespaces/crd-test/crontabs';
  const created = await fetch(server.url + beta, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab', metadata: { name: 'old' }, spec: { cronSpec: '* * * * *', free: { x: 1 } } }),
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('warning'), '299 - "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab"');
  const asV1 = await get(server.url, `${CRONTABS}/old`);
  assert.equal(asV1.json.apiVersion, 'stable.example.com/v1');
  const raw = await server.registry.options.backend.get('/registry/stable.example.com/crontabs/crd-test/old');
  assert.equal(decodeStoredValue(raw.kv!.value).apiVersion, 'stable.example.com/v1');
  const list = await get(server.url, beta);
  assert.ok(list.json.items.every((i: { apiVersion: string; kind: string }) => i.apiVersion === 'stable.example.com/v1beta1' && i.kind === 'CronTab'));
  assert.equal((await get(server.url, '/apis/stable.example.com/v2/namespaces/crd-test/crontabs')).status, 404);
});

test('storedVersions: moving the storage version adds it; it keeps the old one', async () => {
  const crd = (await get(server.url, `${CRDS}/crontabs.stable.example.com`)).json;
  crd.spec.versions[1].storage = false;
  crd.spec.versions[2].storage = true;
  crd.spec.versions[2].served = true;
  const updated = await request(server.url, 'PUT', `${CRDS}/crontabs.stable.example.com`, { body: crd });
  assert.equal(updated.status, 200, updated.text);
  assert.deepEqual(updated.json.status.storedVersions, ['v1', 'v2']);
  assert.equal(updated.json.metadata.generation, 2);
  await until('v2 served', async () => (await get(server.url, '/apis/stable.example.com/v2/namespaces/crd-test/crontabs')).status === 200);
});

test('a default added to the schema shows on objects stored before it (defaulting on read)', async () => {
  const crd = (await get(server.url, `${CRDS}/crontabs.stable.example.com`)).json;
  crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.timezone = { type: 'string', default: 'UTC' };
  const updated = await request(server.url, 'PUT', `${CRDS}/crontabs.stable.example.com`, { body: crd });
  assert.equal(updated.status, 200, updated.text);
  await until('the default served', async () => (await get(server.url, `${CRONTABS}/a`)).json.spec.timezone === 'UTC');
  const listed = (await get(server.url, CRONTABS)).json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'a');
  assert.equal(listed.spec.timezone, 'UTC');
});

test('discovery and OpenAPI follow CRDs: listed once established, gone after deletion, ETags change', async () => {
  const groups = (await get(server.url, '/apis')).json.groups.map((g: { name: string }) => g.name);
  assert.ok(groups.includes('stable.example.com'));
  const group = (await get(server.url, '/apis/stable.example.com')).json;
  // Newest first in kube-aware order, the first preferred; verbs in upstream's (unsorted) order.
  assert.deepEqual(group.versions.map((v: { version: string }) => v.version), ['v2', 'v1', 'v1beta1']);
  assert.equal(group.preferredVersion.version, 'v2');
  const v1List = (await get(server.url, '/apis/stable.example.com/v1')).json;
  assert.deepEqual(v1List.resources[0].verbs, ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
  const aggregated = await get(server.url, '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
  const entry = aggregated.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'stable.example.com');
  const v1 = entry.versions.find((v: { version: string }) => v.version === 'v1');
  const crontabs = v1.resources.find((r: { resource: string }) => r.resource === 'crontabs');
  assert.deepEqual(crontabs.shortNames, ['ct']);
  assert.deepEqual(crontabs.subresources.map((s: { subresource: string }) => s.subresource), ['scale', 'status']);

  const aggregatedBefore = await fetch(`${server.url}/apis`, { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
  const discoveryTag = aggregatedBefore.headers.get('etag');
  assert.match(discoveryTag ?? '', /^"[0-9A-F]{128}"$/);
  const notModified = await fetch(`${server.url}/apis`, { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'if-none-match': discoveryTag! } });
  assert.equal(notModified.status, 304);

  const before = await fetch(`${server.url}/openapi/v3`);
  const beforeTag = before.headers.get('etag');
  const paths = (await before.json()).paths;
  assert.ok(paths['apis/stable.example.com/v1'], 'the CRD group/version is in OpenAPI v3');
  const doc = (await get(server.url, '/openapi/v3/apis/stable.example.com/v1')).json;
  const schema = doc.components.schemas['com.example.stable.v1.CronTab'];
  assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
  assert.equal(schema.properties.spec.properties.replicas.maximum, 10);
  const v2 = (await get(server.url, '/openapi/v2')).json;
  assert.ok(v2.definitions['com.example.stable.v1.CronTab']);

  assert.equal((await request(server.url, 'DELETE', `${CRDS}/widgets.crd.example.com`)).status, 200);
  // No cleanup controller runs here: drop the finalizer by hand, as the controller would.
  const marked = (await get(server.url, `${CRDS}/widgets.crd.example.com`)).json;
  assert.deepEqual(marked.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  const terminating = marked.status.conditions.find((c: { type: string }) => c.type === 'Terminating');
  assert.deepEqual([terminating.status, terminating.reason], ['True', 'InstanceDeletionPending']);
  assertStatus(
    await request(server.url, 'POST', '/apis/crd.example.com/v1/namespaces/crd-test/widgets', { body: { apiVersion: 'crd.example.com/v1', kind: 'Widget', metadata: { name: 'late' } } }),
    405,
    'MethodNotAllowed',
    'create not allowed while custom resource definition is terminating',
  );
  marked.metadata.finalizers = [];
  assert.equal((await request(server.url, 'PUT', `${CRDS}/widgets.crd.example.com`, { body: marked })).status, 200);
  await until('widgets gone', async () => (await get(server.url, '/apis/crd.example.com/v1/namespaces/crd-test/widgets')).status === 404);
  // The names widgets held are free now: the CRD that conflicted with it is accepted and served.
  await waitEstablished('others.crd.example.com');
  const resources = (await get(server.url, '/apis/crd.example.com/v1')).json.resources.map((r: { name: string }) => r.name);
  assert.deepEqual(resources, ['others']);
  const aggregatedAfter = await fetch(`${server.url}/apis`, { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'if-none-match': discoveryTag! } });
  assert.equal(aggregatedAfter.status, 200, 'the discovery ETag changed with the served types');
  const after = await fetch(`${server.url}/openapi/v3`);
  assert.notEqual(after.headers.get('etag'), beforeTag);
  const v3 = (await get(server.url, '/openapi/v3/apis/crd.example.com/v1')).json;
  assert.deepEqual(Object.keys(v3.components.schemas).filter((n) => n.startsWith('com.example.crd.')).sort(), ['com.example.crd.v1.Widget', 'com.example.crd.v1.WidgetList']);
  assert.ok(Object.keys(v3.paths).every((p) => !p.includes('/widgets')));
});

test('custom resources have no protobuf form: an Accept that also names JSON gets JSON, a protobuf body is a 415', async () => {
  const got = await get(server.url, `${CRONTABS}/a`, { accept: 'application/vnd.kubernetes.protobuf, application/json' });
  assert.equal(got.status, 200);
  assert.match(got.contentType, /^application\/json/);
  assert.equal(got.json.kind, 'CronTab');
  const posted = await request(server.url, 'POST', CRONTABS, { raw: 'k8s\u0000', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } });
  assert.equal(posted.status, 415, posted.text);
});

test('lists page with continue tokens and watches stream events, with bookmarks, as for built-ins', async () => {
  const first = await get(server.url, `${CRONTABS}?limit=1`);
  assert.equal(first.json.items.length, 1);
  assert.ok(first.json.metadata.continue, 'a continue token');
  const rest = await get(server.url, `${CRONTABS}?limit=100&continue=${encodeURIComponent(first.json.metadata.continue)}`);
  assert.equal(rest.status, 200, rest.text);
  assert.equal(rest.json.metadata.continue, '');
  const names = [...first.json.items, ...rest.json.items].map((i: { metadata: { name: string } }) => i.metadata.name);
  assert.equal(new Set(names).size, names.length);

  const rv = first.json.metadata.resourceVersion;
  const watch = await WatchStream.open(server.url, `${CRONTABS}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
  try {
    const created = await request(server.url, 'POST', CRONTABS, { body: cronTab('watched', { cronSpec: '* * * * *' }) });
    assert.equal(created.status, 201, created.text);
    let event = await watch.next();
    while (event?.type === 'BOOKMARK') event = await watch.next();
    assert.equal(event?.type, 'ADDED');
    assert.equal(event?.object.metadata.name, 'watched');
    assert.equal(event?.object.kind, 'CronTab');
    assert.equal(event?.object.apiVersion, 'stable.example.com/v1');
  } finally {
    watch.close();
  }
});

test('custom resources live under /registry/<group>/<plural>/<namespace>/<name>', async () => {
  const range = await server.registry.options.backend.range('/registry/stable.example.com/crontabs/', '/registry/stable.example.com/crontabs0');
  const keys = range.kvs.map((kv) => kv.key).sort();
  assert.ok(keys.includes('/registry/stable.example.com/crontabs/crd-test/a'), keys.join(','));
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, new RegExp(`apiserver_storage_objects\\{resource="crontabs\\.stable\\.example\\.com"\\} ${keys.length}`));
  assert.match(metrics, /apiserver_storage_objects\{resource="customresourcedefinitions\.apiextensions\.k8s\.io"\} \d+/);
});
