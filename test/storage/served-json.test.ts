// A create's answer is spliced from the value it stored (managed-fields-codec.ts
// servedJSON, object-store.ts createdJSON) instead of stringifying the object
// again: it must be exactly JSON.stringify of the object, whatever the key
// order, the stored form (compact entries or plain JSON) and the strings in
// it; and, through a real server, exactly what a GET of the object answers
// (the body of a create and of a read are the same bytes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeStoredValue, servedJSON } from '../../src/storage/managed-fields-codec.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { startTestServer } from '../helpers/server.js';

const entries = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }];

/** The object as a create hands it back at revision 42: resourceVersion last in metadata. */
function atRevision(obj: KubeObject): KubeObject {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  return { ...obj, metadata: { ...meta, resourceVersion: '42' } };
}

const tricky = 'a "quoted" {brace} [bracket] \\ back\\"slash \u2028 é \n newline';

const cases: Array<[string, KubeObject]> = [
  ['compact entries', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', labels: { x: tricky }, managedFields: entries }, data: { a: tricky } }],
  ['compact, nothing else in metadata', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { managedFields: entries }, data: { a: '1' } } as KubeObject],
  ['plain (entries not last)', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { managedFields: entries, name: 'b' }, data: { a: '}' } } as KubeObject],
  ['no entries', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { '{': '"' } }, binaryData: {}, immutable: true }],
  ['empty metadata', { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }],
  ['metadata first', { metadata: { name: 'd', managedFields: entries }, apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } } as KubeObject],
  ['scalars of every kind before metadata', { apiVersion: 'v1', kind: 'X', n: 1.5, t: true, z: null, u: undefined, metadata: { name: 'e', managedFields: entries }, spec: [1, { a: 2 }] } as unknown as KubeObject],
  ['a string key needing escapes', { apiVersion: 'v1', 'k"\\ey': 'v', metadata: { name: 'f' } } as unknown as KubeObject],
  ['undefined after the entries', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', managedFields: entries, generation: undefined } } as unknown as KubeObject],
];

for (const [name, obj] of cases) {
  test(`servedJSON is JSON.stringify: ${name}`, () => {
    const served = atRevision(obj);
    assert.equal(servedJSON(served, encodeStoredValue(obj)), JSON.stringify(served));
  });
}

test('servedJSON declines what it cannot splice cheaply', () => {
  // An object-valued key before metadata, and no metadata at all.
  const first = { spec: { a: 1 }, metadata: { name: 'x' } } as unknown as KubeObject;
  assert.equal(servedJSON(atRevision(first), encodeStoredValue(first)), undefined);
  assert.equal(servedJSON({ metadata: { resourceVersion: '1' } } as KubeObject, '{"apiVersion":"v1"}'), undefined);
});

test("a create's answer is the bytes a GET of the object answers", async () => {
  const server = await startTestServer();
  try {
    const call = async (method: string, path: string, body?: unknown, accept = 'application/json'): Promise<string> => {
      const r = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json', accept }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await r.text();
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${text}`);
      return text;
    };
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'served' } });
    const bodies = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', labels: { a: 'b' } }, data: { payload: tricky } },
      // Type fields last (the answer puts them first), none at all, an entry sent by the client.
      { metadata: { name: 'typed-last' }, data: { a: '1' }, kind: 'ConfigMap', apiVersion: 'v1' },
      { metadata: { name: 'untyped' }, binaryData: { b: 'AAE=' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sent-entries', managedFields: entries }, data: { a: '1' } },
    ];
    for (const body of bodies) {
      const created = await call('POST', '/api/v1/namespaces/served/configmaps', body);
      const read = await call('GET', `/api/v1/namespaces/served/configmaps/${body.metadata.name}`);
      assert.equal(created, read, body.metadata.name);
      assert.equal(created, `${JSON.stringify(JSON.parse(created))}\n`);
    }
    // Other forms of the answer are unchanged: YAML and a Table are not spliced JSON.
    const yaml = await call('POST', '/api/v1/namespaces/served/configmaps', { metadata: { name: 'yaml' }, data: { a: '1' } }, 'application/yaml');
    assert.match(yaml, /^apiVersion: v1\ndata:\n {2}a: "1"\nkind: ConfigMap\n/);
    const table = JSON.parse(await call('POST', '/api/v1/namespaces/served/configmaps', { metadata: { name: 'table' } }, 'application/json;as=Table;v=v1;g=meta.k8s.io')) as { kind: string };
    assert.equal(table.kind, 'Table');
  } finally {
    await server.stop();
  }
});
