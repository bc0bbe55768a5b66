// A custom resource's OpenAPI v2 definition follows upstream's v2 publication
// (apiextensions-apiserver's builder and ToStructuralOpenAPIV2): a schema that
// keeps unknown fields at its root is published as a bare object (upstream's
// conformance spec "CustomResourcePublishOpenAPI works for CRD without
// validation schema" waits for exactly `type: object`); below the root, a node
// keeping unknown fields or nullable loses what kubectl's v2 validation would
// misread.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceOpenApi } from '../../src/apiextensions/openapi.js';
import type { JSONSchemaProps } from '../../src/apiextensions/types.js';

const GVK = [{ group: 'example.com', kind: 'Foo', version: 'v1' }];

function v2(schema: Record<string, unknown>): Record<string, unknown> {
  const api = customResourceOpenApi('example.com', 'v1', 'Foo', 'FooList', schema as JSONSchemaProps);
  return api.definitions('v2')['com.example.v1.Foo'] as Record<string, unknown>;
}

test('v2: a schema keeping unknown fields at the root is a bare object', () => {
  assert.deepEqual(v2({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), { type: 'object', 'x-kubernetes-group-version-kind': GVK });
  assert.deepEqual(v2({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: 'd', properties: { spec: { type: 'object' } } }), {
    type: 'object',
    'x-kubernetes-group-version-kind': GVK,
  });
});

test('v2: nested nodes pruned as upstream does', () => {
  const def = v2({
    type: 'object',
    required: ['a', 'n'],
    properties: {
      a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { x: { type: 'string' } } },
      n: { type: 'object', nullable: true, properties: { y: { type: 'string' } } },
      l: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
      s: { type: 'string', anyOf: [{ maxLength: 3 }] },
    },
  });
  const props = def['properties'] as Record<string, Record<string, unknown>>;
  assert.deepEqual(props['a'], { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(props['n'], {});
  assert.deepEqual(props['l'], { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(props['s'], { type: 'string' });
  assert.deepEqual(def['required'], ['a']);
  assert.ok(props['metadata'] && props['apiVersion'] && props['kind']);
});

test('v3 keeps the schema as written', () => {
  const api = customResourceOpenApi('example.com', 'v1', 'Foo', 'FooList', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as JSONSchemaProps);
  const def = api.definitions('v3')['com.example.v1.Foo'] as Record<string, unknown>;
  assert.equal(def['x-kubernetes-preserve-unknown-fields'], true);
  assert.ok((def['properties'] as Record<string, unknown>)['metadata']);
});
