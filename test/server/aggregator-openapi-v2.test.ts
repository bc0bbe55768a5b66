// mergeOpenApiV2 (src/server/aggregator/openapi-v2.ts): the extension servers'
// Swagger specs merged into ours as kube-aggregator merges them. The real
// sample-apiserver's spec goes through it in test/aggregation/sample-apiserver.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeOpenApiV2 } from '../../src/server/aggregator/openapi-v2.js';

const ref = (name: string): { $ref: string } => ({ $ref: `#/definitions/${name}` });

test('paths: ours (and the first spec’s) win; new paths and definitions are added', () => {
  const local = { swagger: '2.0', info: { title: 'Kubernetes' }, paths: { '/version/': { get: { operationId: 'ours' } } }, definitions: { A: { type: 'string' } } };
  const merged = mergeOpenApiV2(local, [
    { paths: { '/version/': { get: { operationId: 'theirs' } }, '/apis/x/v1/things': { get: { responses: { 200: { schema: ref('Thing') } } } } }, definitions: { A: { type: 'string' }, Thing: { type: 'object' } } },
    { paths: { '/apis/x/v1/things': { get: { operationId: 'later' } } } },
  ]);
  assert.deepEqual(merged['info'], { title: 'Kubernetes' });
  const paths = merged['paths'] as Record<string, any>;
  assert.equal(paths['/version/'].get.operationId, 'ours');
  assert.deepEqual(paths['/apis/x/v1/things'].get.responses[200].schema, ref('Thing'));
  assert.deepEqual(Object.keys(merged['definitions'] as object), ['A', 'Thing']);
  assert.deepEqual(Object.keys(local.paths), ['/version/'], 'the inputs are left as they were');
});

test('a definition whose content differs is renamed in the spec that brings it, with its references', () => {
  const local = { paths: {}, definitions: { Meta: { type: 'object', description: 'ours' } } };
  const merged = mergeOpenApiV2(local, [
    {
      paths: { '/apis/x/v1/things': { get: { responses: { 200: { schema: ref('Thing') } } } } },
      definitions: { Meta: { type: 'object', description: 'theirs' }, Thing: { properties: { metadata: ref('Meta') } } },
    },
    { paths: {}, definitions: { Meta: { type: 'object', description: 'theirs' }, Other: { properties: { metadata: ref('Meta') } } } },
  ]);
  const defs = merged['definitions'] as Record<string, any>;
  assert.equal(defs['Meta'].description, 'ours');
  assert.equal(defs['Meta_v2'].description, 'theirs');
  assert.deepEqual(defs['Thing'].properties.metadata, ref('Meta_v2'));
  // The second spec's Meta equals the renamed one: it is shared, not renamed again.
  assert.deepEqual(defs['Other'].properties.metadata, ref('Meta_v2'));
  assert.equal(defs['Meta_v3'], undefined);
});
