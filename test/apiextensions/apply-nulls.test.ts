// Issue 34's bad input on a custom resource, as kube-apiserver 1.32.4 answers
// it (the differential case 'issue 34: null in map and list fields of a custom
// resource' compares it live): server-side apply does not pass its merged
// object through the decoder that prunes nulls, so a null in a non-nullable
// map or list field (also one the apply empties, which stays as null) is a
// 422; a null in metadata (`labels: null`) is dropped on every write.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';

const GROUP = 'nulls.example.com';
const W = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
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
                properties: {
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  tags: { type: 'array', items: { type: 'string' } },
                  nullableMap: { type: 'object', nullable: true, additionalProperties: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, spec: unknown, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, ...metadata },
  spec,
});

describe('custom resources: null in map and list fields', { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({});
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'default' } });
    assert.equal((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const deadline = Date.now() + 15_000;
    while ((await call('GET', W)).status !== 200) {
      if (Date.now() > deadline) throw new Error('CRD not served');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(() => server?.stop());

  async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
    const res = await fetch(server.url + path, { method, headers: { 'content-type': contentType }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: await res.json() };
  }
  const apply = (name: string, body: unknown) => call('PATCH', `${W}/${name}?fieldManager=m`, body, 'application/apply-patch+yaml');

  it('server-side apply: a null in a non-nullable field is a 422, a nullable one is kept', async () => {
    const first = await apply('ssa', widget('ssa', { labels: null, tags: null, nullableMap: null }));
    assert.equal(first.status, 422);
    assert.equal(
      first.body.message,
      'Widget.nulls.example.com "ssa" is invalid: [spec.labels: Invalid value: "null": spec.labels in body must be of type object: "null", spec.tags: Invalid value: "null": spec.tags in body must be of type array: "null"]',
    );
    const ok = await apply('ssa', widget('ssa', { labels: { a: 'b' }, tags: ['t'], nullableMap: null }));
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.spec, { labels: { a: 'b' }, tags: ['t'], nullableMap: null });
    // A null spec: the apply empties it of what it owned, and it stays as null.
    const nullSpec = await apply('ssa', widget('ssa', null));
    assert.equal(nullSpec.status, 422);
    assert.equal(nullSpec.body.message, 'Widget.nulls.example.com "ssa" is invalid: spec: Invalid value: "null": spec in body must be of type object: "null"');
    assert.deepEqual((await call('GET', `${W}/ssa`)).body.spec, { labels: { a: 'b' }, tags: ['t'], nullableMap: null });
  });

  it('create and merge patch: nulls in non-nullable fields and in metadata are dropped', async () => {
    const created = await call('POST', W, widget('csa', { labels: null, tags: null, nullableMap: null }, { labels: null, annotations: null }));
    assert.equal(created.status, 201);
    assert.equal('labels' in created.body.metadata, false);
    assert.equal('annotations' in created.body.metadata, false);
    assert.deepEqual(created.body.spec, { nullableMap: null });
    const patched = await call('PATCH', `${W}/csa`, { metadata: { labels: null }, spec: { labels: { a: 'b' }, tags: null } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200);
    assert.equal('labels' in patched.body.metadata, false);
    assert.deepEqual(patched.body.spec, { labels: { a: 'b' }, nullableMap: null });
  });
});
