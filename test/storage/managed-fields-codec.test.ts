// The stored form of managedFields (src/storage/managed-fields-codec.ts):
// every value decodes to the object that was encoded, byte for byte in JSON;
// values it cannot represent exactly, and everything stored before it (plain
// JSON), stay plain and read as before; and, through real servers, objects
// read back the same after a restart on SQLite and on etcd, and across two
// servers sharing one etcd.

import { after, before, describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { MANAGED_FIELDS_PREFIX, decodeStoredValue, encodeStoredValue } from '../../src/storage/managed-fields-codec.js';
import { decode, encode } from '../../src/storage/object-store.js';
import { openBackend } from '../../src/storage/open.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';

const entry = (manager: string, fieldsV1: unknown, extra: Record<string, unknown> = {}) => ({
  manager,
  operation: 'Update',
  apiVersion: 'apps/v1',
  time: '2026-11-25T05:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});

function deployment(): KubeObject {
  const container = (name: string, port: number) => ({ name, image: `${name}:1`, ports: [{ containerPort: port, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'fast' }], resources: {} });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'ns',
      uid: 'u',
      resourceVersion: '7',
      labels: { app: 'web' },
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: 'apps/v1',
          time: '2026-11-25T05:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:app': {} } },
            'f:spec': {
              'f:template': {
                'f:spec': {
                  'f:containers': {
                    'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } } },
                    'k:{"name":"proxy"}': { '.': {}, 'f:image': {}, 'f:name': {} },
                  },
                  'f:tolerations': {},
                },
              },
            },
          },
        },
        { manager: 'hpa', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' },
        entry('kube-controller-manager', { 'f:status': { '.': {}, 'f:conditions': { 'k:{"type":"Available"}': { '.': {}, 'f:status': {} } }, 'f:replicas': {} } }, { subresource: 'status' }),
        // Paths the object does not hold (a set item gone, a field never there, an item by index) are kept literally.
        entry('other', { 'f:spec': { 'f:gone': { 'f:deeper': {} }, 'f:finalizers': { 'v:"a"': {}, 'v:"zz"': {} }, 'f:list': { 'i:0': {} } } }),
      ],
    },
    spec: {
      replicas: 3,
      finalizers: ['a', 'b'],
      template: { spec: { containers: [container('app', 8080), container('proxy', 9901)], tolerations: [] } },
    },
    status: { replicas: 3, conditions: [{ type: 'Available', status: 'True' }] },
  } as unknown as KubeObject;
}

/** The JSON a stored object is (no resourceVersion). */
function storedJson(obj: KubeObject): string {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  return JSON.stringify({ ...obj, metadata: meta });
}

describe('the stored form of managedFields', () => {
  test('round-trips byte for byte, and is smaller', () => {
    const obj = deployment();
    const value = encodeStoredValue(obj);
    assert.ok(value.startsWith(MANAGED_FIELDS_PREFIX));
    assert.equal(JSON.stringify(decodeStoredValue(value)), storedJson(obj));
    assert.ok(value.length < storedJson(obj).length * 0.8, `${value.length} vs ${storedJson(obj).length}`);
    // object-store's encode/decode use it, the revision becoming the resourceVersion again.
    const decoded = decode(encode(obj), 7);
    assert.equal(storedJson(decoded), storedJson(obj));
    assert.equal(decoded.metadata.resourceVersion, '7');
    // Deterministic: the same object gives the same value (an unchanged write is detected by equal values).
    assert.equal(encodeStoredValue(deployment()), value);
  });

  test('keys and names that need escaping, indexes past 64, entries without manager or time, another apiVersion', () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 100; i++) wide[`k${i}`] = String(i);
    wide['a"b\\c\td<>&\u2028'] = 'x';
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        labels: { 'x<y': '1' },
        managedFields: [
          { operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k99': {}, 'f:k70': {}, 'f:a"b\\c\td<>&\u2028': {} }, 'f:metadata': { 'f:labels': { 'f:x<y': {} } } } },
          { manager: 'weird\nname\t"', operation: 'Apply', apiVersion: 'other/v9', fieldsType: 'FieldsV1', fieldsV1: { 'f:items': { 'k:{"a":"<&>"}': { 'f:b': {} }, 'k:{"n":1,"m":true}': {}, 'k:{"o":{"p":1}}': {} } } },
        ],
      },
      data: wide,
      items: [{ a: '<&>', b: 1 }, { n: 1, m: true }, { o: { p: 1 } }],
    } as unknown as KubeObject;
    const value = encodeStoredValue(obj);
    assert.ok(value.startsWith(MANAGED_FIELDS_PREFIX));
    assert.equal(JSON.stringify(decodeStoredValue(value)), storedJson(obj));
  });

  test('long lists (items found through an index): associative and set items, duplicates, 1 and "1"', () => {
    const ports = Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, port: i, protocol: i % 2 === 0 ? 'TCP' : 'UDP' }));
    ports.push({ name: 'p7', port: 7, protocol: 'UDP' }); // a duplicate key: the first item is the one referenced
    const set: unknown[] = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? i : String(i)));
    const fieldsV1: Record<string, unknown> = { 'f:spec': { 'f:ports': Object.fromEntries(ports.slice(0, 120).map((p) => [`k:{"name":"${p.name}","port":${p.port}}`, { '.': {}, 'f:protocol': {} }])), 'f:set': { 'v:2': {}, 'v:"3"': {}, 'v:"2"': {}, 'v:3': {} } } };
    const obj = { apiVersion: 'v1', kind: 'X', metadata: { name: 'x', managedFields: [{ manager: 'm', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 }] }, spec: { ports, set } } as unknown as KubeObject;
    const value = encodeStoredValue(obj);
    assert.ok(value.startsWith(MANAGED_FIELDS_PREFIX));
    // "2" and 3 are not in the set: kept literally; 2 and "3" are references.
    assert.match(value, /"v:\\"2\\""/);
    assert.equal(JSON.stringify(decodeStoredValue(value)), storedJson(obj));
  });

  test('what it cannot represent exactly stays plain JSON', () => {
    const cases: Array<[string, (o: KubeObject) => void]> = [
      ['managedFields not last in metadata', (o) => (o.metadata = { managedFields: o.metadata.managedFields!, name: 'web' })],
      ['an entry with an unknown key', (o) => ((o.metadata.managedFields![0] as Record<string, unknown>)['extra'] = 1)],
      ['an entry with its keys in another order', (o) => (o.metadata.managedFields![1] = { operation: 'Update', manager: 'm', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: {} })],
      ['another fieldsType', (o) => (o.metadata.managedFields![0]!.fieldsType = 'FieldsV2')],
      ['a fieldsV1 leaf that is not {}', (o) => (o.metadata.managedFields![1]!.fieldsV1 = { 'f:spec': { 'f:replicas': 1 } })],
      ['a "." with children', (o) => (o.metadata.managedFields![1]!.fieldsV1 = { 'f:spec': { '.': { x: {} } } })],
      ['entries that are not objects', (o) => ((o.metadata as Record<string, unknown>)['managedFields'] = ['x'])],
      ['a __proto__ key in fieldsV1', (o) => (o.metadata.managedFields![1]!.fieldsV1 = JSON.parse('{"f:spec":{"__proto__":{}}}'))],
    ];
    for (const [what, change] of cases) {
      const obj = deployment();
      change(obj);
      const value = encodeStoredValue(obj);
      assert.ok(value.startsWith('{'), what);
      assert.equal(value, storedJson(obj), what);
      assert.equal(JSON.stringify(decodeStoredValue(value)), storedJson(obj), what);
    }
    // Nothing to encode: plain.
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [] }, data: {} } as unknown as KubeObject;
    assert.equal(encodeStoredValue(bare), storedJson(bare));
  });

  test('undefined values are left out as JSON leaves them out', () => {
    const obj = deployment();
    (obj.metadata as Record<string, unknown>)['annotations'] = undefined;
    (obj['spec'] as Record<string, unknown>)['paused'] = undefined;
    const value = encodeStoredValue(obj);
    assert.equal(JSON.stringify(decodeStoredValue(value)), JSON.stringify(JSON.parse(storedJson(obj))));
  });

  test('values stored before it (plain JSON) read as they are', () => {
    const old = storedJson(deployment());
    assert.equal(JSON.stringify(decodeStoredValue(old)), old);
  });
});

// ---- through real servers ------------------------------------------------------

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

async function call(server: TestServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<string> {
  const r = await fetch(server.url + path, { method, headers: { 'content-type': contentType }, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  const text = await r.text();
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${text}`);
  return text;
}

/** A typical deployment: applied by kubectl, scaled, status written by a controller; answers its JSON as read back. */
async function writeTypical(server: TestServer, name: string): Promise<string> {
  const labels = { app: name };
  const container = (n: string, port: number) => ({ name: n, image: `${n}:1`, ports: [{ containerPort: port, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'fast' }], resources: { requests: { cpu: '100m' } } });
  const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container('app', 8080), container('proxy', 9901), container('logs', 2020)] } } } };
  await call(server, 'PATCH', `${DEPLOY}/${name}?fieldManager=kubectl`, d, 'application/apply-patch+yaml');
  await call(server, 'PUT', `${DEPLOY}/${name}/scale?fieldManager=hpa`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 3 } });
  await call(server, 'PATCH', `${DEPLOY}/${name}/status?fieldManager=kube-controller-manager`, { status: { replicas: 3, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] } }, 'application/merge-patch+json');
  return call(server, 'GET', `${DEPLOY}/${name}`);
}

describe('objects read back the same after a restart', () => {
  test('SQLite: compact values, an old plain value, and the same JSON after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'apiary-mf-codec-'));
    let server: TestServer | undefined;
    try {
      server = await startTestServer({ dataDir });
      await call(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      const written = await writeTypical(server, 'typical');
      // The same /scale write again changes nothing: the same bytes, so nothing is written (no new resourceVersion).
      const rv = (JSON.parse(written) as KubeObject).metadata.resourceVersion;
      await call(server, 'PUT', `${DEPLOY}/typical/scale?fieldManager=hpa`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'typical' }, spec: { replicas: 3 } });
      assert.equal((JSON.parse(await call(server, 'GET', `${DEPLOY}/typical`)) as KubeObject).metadata.resourceVersion, rv);
      await server.stop();
      server = undefined;

      // What the backend holds: the compact form; and a value as older servers wrote it (plain JSON, entries inline).
      const backend = await openBackend({ kind: 'sqlite', dataDir });
      const stored = (await backend.get('/registry/deployments/default/typical')).kv!.value;
      assert.ok(stored.startsWith(MANAGED_FIELDS_PREFIX));
      const obj = decodeStoredValue(stored);
      const plainOld = JSON.stringify({ ...obj, metadata: { ...obj.metadata, name: 'old' } });
      await backend.create('/registry/deployments/default/old', plainOld);
      await backend.close();

      server = await startTestServer({ dataDir });
      assert.equal(await call(server, 'GET', `${DEPLOY}/typical`), written);
      const old = JSON.parse(await call(server, 'GET', `${DEPLOY}/old`)) as KubeObject;
      assert.deepEqual(old.metadata.managedFields, obj.metadata.managedFields);
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('etcd', () => {
    let etcd: EtcdCluster;
    before(async () => {
      etcd = await startEtcd();
    });
    after(() => etcd.stop());

    test('two servers on one etcd read what the other wrote; the same JSON after a restart', async () => {
      const a = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
      const b = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
      let c: TestServer | undefined;
      try {
        await call(a, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }).catch(() => '');
        const written = await writeTypical(a, 'shared');
        assert.equal(await call(b, 'GET', `${DEPLOY}/shared`), written);
        await a.stop();
        await b.stop();
        const backend = await openBackend({ kind: 'etcd', etcdServers: etcd.endpoints });
        const stored = (await backend.get('/registry/deployments/default/shared')).kv!.value;
        await backend.close();
        assert.ok(stored.startsWith(MANAGED_FIELDS_PREFIX));
        c = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
        assert.equal(await call(c, 'GET', `${DEPLOY}/shared`), written);
      } finally {
        await c?.stop();
        await a.stop().catch(() => {});
        await b.stop().catch(() => {});
      }
    });
  });
});
