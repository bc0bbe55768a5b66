// body-worker.ts: a large JSON body decoded on the worker thread gives what
// the main thread's decode gives (write-body.ts): the object, the Warning
// headers, the error; a body of another kind is left to the main thread.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { decodeOffThread } from '../../src/server/body-worker.js';
import { decodeJsonWriteBody, type FieldValidation } from '../../src/server/write-body.js';
import { StatusError } from '../../src/machinery/errors.js';

const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };

/** A response that keeps its headers. */
function fakeResponse(): ServerResponse & { headers: Map<string, unknown> } {
  const headers = new Map<string, unknown>();
  return { headers, headersSent: false, getHeader: (n: string) => headers.get(n), setHeader: (n: string, v: unknown) => headers.set(n, v) } as unknown as ServerResponse & { headers: Map<string, unknown> };
}

/** A ConfigMap body over 256 KiB with `extra` spliced in at the top level. */
function bigBody(extra: string, dataValue = '"v"'): Buffer {
  const keys = Array.from({ length: 30_000 }, (_, i) => `"key-${i}":${i === 7 ? dataValue : '"v"'}`).join(',');
  return Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"${extra.startsWith('"metadata-') ? ',' + extra.slice(10) : ''}},"data":{${keys}}${extra.startsWith('"metadata-') ? '' : extra}}`);
}

async function both(body: Buffer, fieldValidation: FieldValidation | undefined): Promise<{ main: unknown; worker: unknown }> {
  const run = async (fn: (res: ServerResponse) => Promise<unknown>): Promise<unknown> => {
    const res = fakeResponse();
    try {
      const object = await fn(res);
      return { object: JSON.stringify(object), warnings: res.headers.get('Warning') };
    } catch (err) {
      assert.ok(err instanceof StatusError, String(err));
      return { status: err.status };
    }
  };
  const main = await run(async (res) => decodeJsonWriteBody(body, CONFIGMAP, fieldValidation, () => false, res));
  const worker = await run(async (res) => {
    const object = await decodeOffThread(body, CONFIGMAP, fieldValidation, res, () => new Promise((r) => setImmediate(r)));
    assert.notEqual(object, undefined, 'decoded on the worker');
    return object;
  });
  return { main, worker };
}

test('objects, warnings and errors are the main thread decode\'s', { timeout: 120_000 }, async () => {
  const cases: Array<[string, Buffer, FieldValidation | undefined]> = [
    ['plain', bigBody(''), undefined],
    ['unknown and repeated fields, Warn', bigBody(',"extra":{"a":1},"data":{"again":"x"},"binaryData":{"b":"aGk="}'), 'Warn'],
    ['unknown field, Strict', bigBody(',"extra":1'), 'Strict'],
    ['unknown field, Ignore', bigBody(',"extra":1'), 'Ignore'],
    ['a number where a string goes', bigBody('', '12'), undefined],
    ['repeated owner references', bigBody(`"metadata-"ownerReferences":[${'{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u1"},'.repeat(5000)}{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u2"}]`), undefined],
    ['a lone surrogate and __proto__', bigBody(',"__proto__":{"x":1},"immutable":true,"binaryData":{"\\ud800":"aGk="}'), 'Warn'],
    ['malformed', Buffer.concat([bigBody(''), Buffer.from('}')]), undefined],
  ];
  for (const [title, body, fv] of cases) {
    assert.ok(body.length >= 256 * 1024, title);
    const { main, worker } = await both(body, fv);
    assert.deepEqual(worker, main, title);
  }
});

test('a body of another kind is left to the main thread (its error needs the scheme)', async () => {
  const body = Buffer.from(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},"pad":"${'x'.repeat(300_000)}"}`);
  assert.equal(await decodeOffThread(body, CONFIGMAP, undefined, fakeResponse(), () => Promise.resolve()), undefined);
});

test('a created object\'s field set walked on the worker is the main thread\'s', { timeout: 60_000 }, async () => {
  const { createdFieldsOffThread } = await import('../../src/server/body-worker.js');
  const { createdFieldsV1 } = await import('../../src/machinery/apply/created.js');
  const { applySchemaFor } = await import('../../src/api/schema/apply-schema.js');
  const options = { skipTopLevel: new Set(['status']), stripped: [['f:metadata', 'f:uid'], ['f:metadata', 'f:creationTimestamp']] };
  const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key-${i}`, 'v']));
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', uid: 'u', creationTimestamp: 't', labels: { a: 'b' } },
    spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: Array.from({ length: 300 }, (_, i) => ({ name: `c${i}`, image: 'x', ports: [{ containerPort: 80 + i, protocol: 'TCP' }] })) } } },
    status: { replicas: 3 },
  };
  const cases: Array<[{ group: string; version: string; kind: string }, Record<string, unknown>]> = [
    [CONFIGMAP, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', uid: 'u' }, data }],
    [{ group: 'apps', version: 'v1', kind: 'Deployment' }, deployment],
    [CONFIGMAP, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { uid: 'u' } }],
  ];
  for (const [kind, obj] of cases) {
    const main = createdFieldsV1(obj, applySchemaFor(kind.group, kind.version, kind.kind)!, options);
    const worker = await createdFieldsOffThread(kind, obj as never, options, () => new Promise((r) => setImmediate(r)));
    assert.notEqual(worker, false, 'walked on the worker');
    assert.equal(JSON.stringify(worker), JSON.stringify(main), kind.kind);
  }
});

test('a stored value encoded on the worker is the main thread\'s, byte for byte', { timeout: 60_000 }, async () => {
  const { storedValueOffThread } = await import('../../src/server/body-worker.js');
  const { encodeStoredValue, decodeStoredValue } = await import('../../src/storage/managed-fields-codec.js');
  const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key-${i}`, 'v']));
  const fields = Object.fromEntries([['.', {}], ...Object.keys(data).map((k) => [`f:${k}`, {}])]);
  const entry = (manager: string, operation: string, fieldsV1: unknown): Record<string, unknown> => ({ manager, operation, apiVersion: 'v1', time: '2026-11-28T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1 });
  const cases: Array<Record<string, unknown>> = [
    // The compact form: every entry's paths by index.
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', resourceVersion: '7', managedFields: [entry('a', 'Update', { 'f:data': fields }), entry('b', 'Apply', { 'f:data': { 'f:key-3': {} } })] }, data },
    // Plain JSON: managedFields not last, a path the object does not hold, no entries.
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { managedFields: [entry('a', 'Update', { 'f:data': fields })], name: 'big' }, data },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', managedFields: [entry('a', 'Update', { 'f:nothere': {}, 'f:data': fields })] }, data },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', undefinedKey: undefined }, data },
  ];
  for (const obj of cases) {
    const main = encodeStoredValue(obj as never);
    const worker = await storedValueOffThread(obj as never, () => new Promise((r) => setImmediate(r)));
    assert.equal(worker, main);
    assert.equal(JSON.stringify(decodeStoredValue(worker)), JSON.stringify({ ...obj, metadata: { ...(obj['metadata'] as object), resourceVersion: undefined } }));
  }
});

test('a large CustomResourceDefinition (a chart\'s) decodes and walks on the worker as on the main thread', { timeout: 60_000 }, async () => {
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const YAML = (await import('yaml')).default;
  const { createdFieldsOffThread } = await import('../../src/server/body-worker.js');
  const { createdFieldsV1 } = await import('../../src/machinery/apply/created.js');
  const { applySchemaFor } = await import('../../src/api/schema/apply-schema.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-crd-'));
  try {
    const fixture = new URL('../compat/charts/fixtures/prometheus-operator-crds.tgz', import.meta.url).pathname;
    execFileSync('tar', ['xzf', fixture, '-C', dir]);
    const yaml = fs.readFileSync(path.join(dir, 'prometheus-operator-crds/crds/monitoring.coreos.com_alertmanagerconfigs.yaml'), 'utf8');
    const body = Buffer.from(JSON.stringify(YAML.parse(yaml)));
    assert.ok(body.length >= 256 * 1024, `${body.length} bytes`);
    const CRD = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' };
    const mainRes = fakeResponse();
    const main = decodeJsonWriteBody(body, CRD, 'Strict', () => false, mainRes);
    const workerRes = fakeResponse();
    const worker = await decodeOffThread(body, CRD, 'Strict', workerRes, () => new Promise((r) => setImmediate(r)));
    assert.equal(JSON.stringify(worker), JSON.stringify(main));
    assert.deepEqual(workerRes.headers.get('Warning'), mainRes.headers.get('Warning'));
    const options = { skipTopLevel: new Set(['status']), stripped: [] };
    const fields = await createdFieldsOffThread(CRD, main, options, () => new Promise((r) => setImmediate(r)));
    assert.notEqual(fields, false);
    assert.equal(JSON.stringify(fields), JSON.stringify(createdFieldsV1(main as never, applySchemaFor(CRD.group, CRD.version, CRD.kind)!, options)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
