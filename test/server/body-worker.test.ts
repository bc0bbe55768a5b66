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

/** A ConfigMap of `n` data keys, each set to `value`. */
function configMap(name: string, n: number, value: string, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: '5', ...metadata }, data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`key-${i}`, value])) };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('an update\'s managedFields computed on the worker are the main thread\'s', { timeout: 120_000 }, async () => {
  const { managedFieldsOffThread } = await import('../../src/server/body-worker.js');
  const { FieldManager, fieldManagerOfJob } = await import('../../src/machinery/apply/field-manager.js');
  const { applySchemaFor } = await import('../../src/api/schema/apply-schema.js');
  const root = applySchemaFor('', 'v1', 'ConfigMap')!;
  const job = { kind: CONFIGMAP, apiVersion: 'v1', subresource: '', resetFields: [], recordTimes: true, now: Date.parse('2026-11-28T08:00:00Z'), convertsFrom: ['v1'] };
  const created = structuredClone(configMap('big', 20_000, 'v')) as never as { metadata: Record<string, unknown> };
  new FieldManager({ root, apiVersion: 'v1', subresource: '', clock: () => new Date('2026-11-28T07:00:00Z') }).update(null, created as never, 'creator');
  const applied = { ...created, metadata: { ...created.metadata, managedFields: [...(created.metadata['managedFields'] as unknown[]), { manager: 'applier', operation: 'Apply', apiVersion: 'v1', time: '2026-11-28T07:30:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key-1': {} } } }, { manager: 'old', operation: 'Update', apiVersion: 'v0', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key-2': {} } } }] } };
  const cases: Array<[string, Record<string, unknown> | null, Record<string, unknown>, string[]]> = [
    ['every value changed by another manager', created, configMap('big', 20_000, 'w'), ['v1']],
    ['nothing changed', created, configMap('big', 20_000, 'v'), ['v1']],
    ['a key removed, with an applier and an unconvertible entry', applied, configMap('big', 19_999, 'v'), ['v1']],
    ['an entry of another version that converts', applied, configMap('big', 20_000, 'w'), ['v1', 'v0']],
    ['entries sent by the client', created, configMap('big', 20_000, 'v', { managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] }), ['v1']],
    ['entries cleared by the client', created, configMap('big', 20_000, 'v', { managedFields: [{}] }), ['v1']],
    ['a create', null, configMap('big', 20_000, 'v'), ['v1']],
  ];
  for (const [title, live, next, converts] of cases) {
    const j = { ...job, convertsFrom: converts };
    const mainNext = structuredClone(next) as never as { metadata: { managedFields?: unknown } };
    fieldManagerOfJob(j, root).update(structuredClone(live) as never, mainNext as never, 'writer');
    const worker = await managedFieldsOffThread(j, live as never, next as never, 'writer', tick);
    assert.notEqual(worker, false, `${title}: done on the worker`);
    assert.equal(JSON.stringify(worker), JSON.stringify(mainNext.metadata.managedFields), title);
  }
});

test('an apply merged on the worker is the main thread\'s: the object, whether it changed, its conflicts', { timeout: 120_000 }, async () => {
  const { appliedOffThread } = await import('../../src/server/body-worker.js');
  const { fieldManagerOfJob, LAST_APPLIED_ANNOTATION } = await import('../../src/machinery/apply/field-manager.js');
  const { ConflictsError } = await import('../../src/machinery/apply/updater.js');
  const { applySchemaFor } = await import('../../src/api/schema/apply-schema.js');
  const root = applySchemaFor('', 'v1', 'ConfigMap')!;
  const job = { kind: CONFIGMAP, apiVersion: 'v1', subresource: '', resetFields: [], recordTimes: true, now: Date.parse('2026-11-28T08:00:00Z'), convertsFrom: ['v1'] };
  const fm = fieldManagerOfJob(job, root);
  const config = (value: string, n = 20_000): Record<string, unknown> => {
    const c = configMap('big', n, value) as { metadata: Record<string, unknown> };
    c.metadata = { name: 'big' };
    return c;
  };
  const ownedByA = fm.apply(null, config('v'), 'a', false).object;
  const lastApplied = { ...ownedByA, metadata: { ...ownedByA.metadata, annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } } };
  const cases: Array<[string, Record<string, unknown> | null, Record<string, unknown>, string, boolean]> = [
    ['create on apply', null, config('v'), 'a', false],
    ['the same configuration again', ownedByA, config('v'), 'a', false],
    ['another manager forced', ownedByA, config('w'), 'b', true],
    ['another manager not forced (conflicts)', ownedByA, config('w', 3), 'b', false],
    ['kubectl with a last-applied annotation', lastApplied, config('w'), 'kubectl', true],
  ];
  const outcome = async (fn: () => Promise<{ object: unknown; changed: boolean }>): Promise<unknown> => {
    try {
      const { object, changed } = await fn();
      return { object: JSON.stringify(object), changed };
    } catch (err) {
      assert.ok(err instanceof ConflictsError, String(err));
      return { conflicts: err.conflicts };
    }
  };
  for (const [title, live, cfg, manager, force] of cases) {
    const main = await outcome(async () => fm.apply(structuredClone(live) as never, structuredClone(cfg), manager, force));
    const worker = await outcome(async () => {
      const out = await appliedOffThread(job, live as never, cfg, manager, force, tick);
      assert.notEqual(out, false, `${title}: done on the worker`);
      return out as { object: unknown; changed: boolean };
    });
    assert.deepEqual(worker, main, title);
  }
});

test('a patch\'s stages run on the worker as on the main thread: the object, its warnings, its errors', { timeout: 120_000 }, async () => {
  const { patchedOffThread } = await import('../../src/server/body-worker.js');
  const { patchStages } = await import('../../src/server/patch-stages.js');
  const { parsePatch } = await import('../../src/server/patch-bodies.js');
  const { smpSchemaFor } = await import('../../src/api/strategic-merge-schema.js');
  const current = configMap('big', 20_000, 'v', { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }] });
  const bigData = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key-${i}`, 'w'])));
  const owner = '{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}';
  const cases: Array<[string, string, string, FieldValidation | undefined]> = [
    ['merge patch', 'application/merge-patch+json', `{"data":${bigData}}`, undefined],
    ['merge patch, unknown fields and repeated owner references, Warn', 'application/merge-patch+json', `{"data":${bigData},"extra":1,"metadata":{"ownerReferences":[${owner},${owner}]}}`, 'Warn'],
    ['merge patch, unknown field, Strict', 'application/merge-patch+json', `{"data":${bigData},"extra":1}`, 'Strict'],
    ['merge patch, a number where a string goes', 'application/merge-patch+json', `{"data":${bigData.replace('"w"', '12')}}`, undefined],
    ['strategic merge patch', 'application/strategic-merge-patch+json', `{"data":${bigData}}`, undefined],
    ['JSON patch', 'application/json-patch+json', `[{"op":"replace","path":"/data","value":${bigData}}]`, undefined],
    ['JSON patch of a missing path', 'application/json-patch+json', `[{"op":"replace","path":"/nothere/x","value":${bigData}}]`, undefined],
  ];
  const outcome = async (fn: (res: ServerResponse) => Promise<{ object: unknown; warnings: string[] }>): Promise<unknown> => {
    const res = fakeResponse();
    try {
      const { object, warnings } = await fn(res);
      return { object: JSON.stringify(object), warnings, headers: res.headers.get('Warning') };
    } catch (err) {
      assert.ok(err instanceof StatusError, String(err));
      return { status: err.status };
    }
  };
  for (const [title, patchType, text, fv] of cases) {
    const main = await outcome(async (res) => {
      const run = patchStages(structuredClone(current) as never, {
        patchType,
        patch: parsePatch(text, patchType, fv ?? 'Warn'),
        text,
        expected: CONFIGMAP,
        smpSchema: smpSchemaFor('', 'v1', 'ConfigMap'),
        scale: false,
        unstructured: false,
        isKnownKind: () => false,
        fieldValidation: fv,
        res,
      });
      let step = run.next();
      while (step.done !== true) step = run.next();
      return step.value;
    });
    const worker = await outcome(async (res) => {
      const out = await patchedOffThread(current as never, { text, patchType, expected: CONFIGMAP, fieldValidation: fv }, res, tick);
      assert.notEqual(out, undefined, `${title}: done on the worker`);
      return out!;
    });
    assert.deepEqual(worker, main, title);
  }
});

test('a patch body parsed on the worker fails as on the main thread', { timeout: 60_000 }, async () => {
  const { patchParsesOffThread } = await import('../../src/server/body-worker.js');
  const { parsePatch } = await import('../../src/server/patch-bodies.js');
  const big = `"data":{${Array.from({ length: 20_000 }, (_, i) => `"key-${i}":"v"`).join(',')}}`;
  const cases: Array<[string, string, FieldValidation | undefined]> = [
    ['application/merge-patch+json', `{${big}}`, undefined],
    ['application/merge-patch+json', `{${big}`, undefined],
    ['application/merge-patch+json', `{${big}`, 'Ignore'],
    ['application/json-patch+json', `{${big}}`, 'Strict'],
    ['application/strategic-merge-patch+json', `[{${big}}]`, undefined],
    ['application/merge-patch+json', `{${big},"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, undefined],
  ];
  for (const [patchType, text, fv] of cases) {
    const outcome = async (fn: () => unknown): Promise<unknown> => {
      try {
        await fn();
        return 'parsed';
      } catch (err) {
        assert.ok(err instanceof StatusError, String(err));
        return err.status;
      }
    };
    const main = await outcome(() => parsePatch(text, patchType, fv ?? 'Warn'));
    const worker = await outcome(async () => assert.equal(await patchParsesOffThread(text, patchType, fv, tick), true));
    assert.deepEqual(worker, main, `${patchType} ${fv}: ${text.slice(-20)}`);
  }
});
