// CustomResourceDefinition in the schema registry: `kubectl explain crd…` from
// the OpenAPI built from it, and the Kubernetes protobuf form of CRD objects.
// fixtures/protobuf/gadgets-crd.{json,pb} are one CRD (gadgets-crd.yaml, with
// every apiextensions JSON form: items, additionalProperties, default, enum,
// example, rules, anyOf) as kube-apiserver v1.32.4 served it in JSON and in
// protobuf at the same resourceVersion.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeProtobuf, encodeProtobuf } from '../../src/api/schema/protobuf.js';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/protobuf');
const refJson = JSON.parse(fs.readFileSync(path.join(fixtures, 'gadgets-crd.json'), 'utf8'));
const refPb = new Uint8Array(fs.readFileSync(path.join(fixtures, 'gadgets-crd.pb')));
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

let server: TestServer;
const kubectl = (args: string[], stdin?: string) => runKubectl(server.kubeconfigPath, args, stdin === undefined ? {} : { stdin });

before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('a CRD encodes to the very bytes kube-apiserver sends, and those bytes decode to its JSON', () => {
  assert.deepEqual(Buffer.from(encodeProtobuf(refJson)), Buffer.from(refPb));
  assert.deepEqual(decodeProtobuf(refPb), refJson);
});

test('kubectl explain crd.spec.versions lists the fields and types kube-apiserver lists', async () => {
  const r = await kubectl(['explain', 'crd.spec.versions']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^GROUP:\s+apiextensions\.k8s\.io\nKIND:\s+CustomResourceDefinition\nVERSION:\s+v1\n\nFIELD: versions <\[\]CustomResourceDefinitionVersion>/);
  const fields = [...r.stdout.matchAll(/^ {2}(\S+)\t(<[^>]+>)( -required-)?$/gm)].map((m) => `${m[1]} ${m[2]}${m[3] ?? ''}`);
  assert.deepEqual(fields, [
    'additionalPrinterColumns <[]CustomResourceColumnDefinition>',
    'deprecated <boolean>',
    'deprecationWarning <string>',
    'name <string> -required-',
    'schema <CustomResourceValidation>',
    'selectableFields <[]SelectableField>',
    'served <boolean> -required-',
    'storage <boolean> -required-',
    'subresources <CustomResourceSubresources>',
  ]);
  const schema = await kubectl(['explain', 'crd.spec.versions.schema.openAPIV3Schema.items']);
  assert.equal(schema.code, 0, schema.stderr);
  assert.match(schema.stdout, /^FIELD: items <JSONSchemaPropsOrArray>/m);
});

test('a CRD written with kubectl reads back in protobuf, decoding to its JSON form', async () => {
  const applied = await kubectl(['apply', '-f', path.join(fixtures, 'gadgets-crd.yaml')]);
  assert.equal(applied.code, 0, applied.stderr);
  const name = 'gadgets.crd-schema.example.com';
  const json = await (await fetch(`${server.url}${CRD_PATH}/${name}`)).json();
  const res = await fetch(`${server.url}${CRD_PATH}/${name}`, { headers: { accept: PROTOBUF } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), PROTOBUF);
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.deepEqual(decodeProtobuf(bytes), json);
  // The same spec as kube-apiserver stored it (defaults included), field for field.
  assert.deepEqual(json.spec, refJson.spec);

  // A CRD sent in protobuf is accepted and stored as sent.
  const sent = structuredClone(refJson);
  sent.metadata = { name: 'gadgets.crd-schema.example.com'.replace('gadgets', 'gizmos') };
  sent.spec.names = { ...sent.spec.names, plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz'] };
  delete sent.status;
  const posted = await fetch(`${server.url}${CRD_PATH}`, {
    method: 'POST',
    headers: { 'content-type': PROTOBUF, accept: 'application/json' },
    body: Buffer.from(encodeProtobuf(sent)),
  });
  const created = await posted.json();
  assert.equal(posted.status, 201, JSON.stringify(created));
  assert.deepEqual(created.spec, sent.spec);
});

test('unknown fields below items / additionalProperties are dropped without a report, as upstream; metadata ones are reported', async () => {
  const body = fs.readFileSync(path.join(fixtures, '../unknown-in-schema-forms.json'), 'utf8');
  const strict = await fetch(`${server.url}${CRD_PATH}?dryRun=All&fieldValidation=Strict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(strict.status, 400);
  assert.equal(
    (await strict.json()).message,
    'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field "metadata.bogus"',
  );
  const warned = await fetch(`${server.url}${CRD_PATH}?dryRun=All`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(warned.status, 201);
  assert.equal(warned.headers.get('warning'), '299 - "unknown field \\"metadata.bogus\\""');
  const created = await warned.json();
  assert.equal(created.metadata.bogus, undefined);
  assert.deepEqual(created.spec.versions[0].schema.openAPIV3Schema.properties, {
    tags: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    ports: { type: 'array', items: { type: 'object', properties: { p: { type: 'integer' } } } },
  });
});
