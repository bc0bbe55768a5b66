// The wire dialect over real HTTP: protobuf bodies, responses and watch frames;
// Table for get, list and watch; fieldValidation; strategic merge patch; the
// OpenAPI endpoints and their caching.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { decodeProtobuf, decodeWatchEventFrame, encodeProtobuf } from '../../src/api/schema/protobuf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PB = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const CM = '/api/v1/namespaces/default/configmaps';
let server: TestServer;

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function call(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (r: Raw): Record<string, any> => JSON.parse(r.body.toString('utf8')); // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads arbitrary JSON

before(async () => {
  server = await startTestServer();
  const ns = await call('POST', '/api/v1/namespaces', { 'content-type': 'application/json' }, JSON.stringify({ metadata: { name: 'default' } }));
  assert.equal(ns.status, 201);
});
after(() => server.stop());

test('protobuf: create with a protobuf body, read back as protobuf and JSON', async () => {
  const body = Buffer.from(encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb' }, data: { k: 'v' } }));
  const created = await call('POST', CM, { 'content-type': PB, accept: PB }, body);
  assert.equal(created.status, 201, created.body.toString());
  assert.equal(created.headers['content-type'], PB);
  assert.deepEqual([...created.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  const object = decodeProtobuf(created.body) as unknown as { data: Record<string, string>; metadata: { uid: string } };
  assert.deepEqual(object.data, { k: 'v' });
  assert.ok(object.metadata.uid);

  const list = await call('GET', CM, { accept: PB });
  assert.equal(list.status, 200);
  const decoded = decodeProtobuf(list.body) as unknown as { kind: string; items: Array<{ metadata: { name: string } }> };
  assert.equal(decoded.kind, 'ConfigMapList');
  assert.deepEqual(decoded.items.map((i) => i.metadata.name), ['pb']);

  const asJson = json(await call('GET', `${CM}/pb`));
  assert.equal(asJson.metadata.uid, object.metadata.uid);

  const missing = await call('GET', `${CM}/nope`, { accept: PB });
  assert.equal(missing.status, 404);
  const status = decodeProtobuf(missing.body) as unknown as { kind: string; reason: string };
  assert.equal(status.kind, 'Status');
  assert.equal(status.reason, 'NotFound');
});

test('protobuf: a body that is not protobuf is 400; a Table cannot be protobuf (406)', async () => {
  const bad = await call('POST', CM, { 'content-type': PB }, Buffer.from('{"metadata":{"name":"x"}}'));
  assert.equal(bad.status, 400);
  assert.equal(json(bad).reason, 'BadRequest');
  const table = await call('GET', CM, { accept: `${PB};as=Table;v=v1;g=meta.k8s.io` });
  assert.equal(table.status, 406);
});

test('protobuf watch: length-prefixed WatchEvent frames', async () => {
  const frames: Array<{ type: string; name: string }> = [];
  await new Promise<void>((resolve, reject) => {
    const req = http.get(`${server.url}${CM}?watch=true&timeoutSeconds=5`, { headers: { accept: PB } }, (res) => {
      assert.equal(res.headers['content-type'], `${PB};stream=watch`);
      let buffered = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
          const event = decodeWatchEventFrame(buffered);
          buffered = buffered.subarray(event.length);
          frames.push({ type: event.type, name: String(event.object.metadata?.name) });
          if (frames.length === 2) {
            req.destroy();
            resolve();
          }
        }
      });
      void call('POST', CM, { 'content-type': 'application/json' }, JSON.stringify({ metadata: { name: 'watched' } }));
    });
    req.on('error', (err) => (frames.length === 2 ? resolve() : reject(err)));
  });
  assert.deepEqual(frames, [
    { type: 'ADDED', name: 'pb' },
    { type: 'ADDED', name: 'watched' },
  ]);
});

test('Table: get and list, includeObject, v1beta1, and a watch that sends headers once', async () => {
  const one = json(await call('GET', `${CM}/pb`, { accept: TABLE }));
  assert.equal(one.kind, 'Table');
  assert.deepEqual(one.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
  assert.equal(one.rows[0].object.kind, 'PartialObjectMetadata');
  const withObject = json(await call('GET', `${CM}?includeObject=Object`, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' }));
  assert.equal(withObject.apiVersion, 'meta.k8s.io/v1beta1');
  assert.equal(withObject.rows[0].object.kind, 'ConfigMap');
  const none = json(await call('GET', `${CM}?includeObject=None`, { accept: TABLE }));
  assert.equal(none.rows[0].object, null, 'an empty RawExtension prints null, as upstream');
  // Errors are never Tables: with JSON as kubectl's fallback clause the 400 is JSON (alone, it would be 406).
  const bad = await call('GET', `${CM}?includeObject=All`, { accept: `${TABLE},application/json` });
  assert.equal(bad.status, 400);
  assert.equal(json(bad).message, 'unrecognized includeObject value: "All"');

  const events = await new Promise<Array<{ type: string; object: { columnDefinitions: unknown[]; rows: Array<{ cells: unknown[] }> } }>>((resolve, reject) => {
    const got: Array<{ type: string; object: { columnDefinitions: unknown[]; rows: Array<{ cells: unknown[] }> } }> = [];
    const req = http.get(`${server.url}${CM}?watch=true&timeoutSeconds=5`, { headers: { accept: TABLE } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        text += c;
        const lines = text.split('\n');
        text = lines.pop()!;
        for (const line of lines) got.push(JSON.parse(line));
        if (got.length >= 2) {
          req.destroy();
          resolve(got);
        }
      });
    });
    req.on('error', (err) => (got.length >= 2 ? undefined : reject(err)));
  });
  assert.equal(events[0]!.object.columnDefinitions.length, 3);
  assert.equal(events[1]!.object.columnDefinitions, null, 'later events leave the headers out: null, as upstream');
  assert.equal(events[1]!.object.rows.length, 1);
});

test('fieldValidation: Warn (default) warns, Strict rejects as upstream words it, Ignore is silent', async () => {
  const body = '{"metadata":{"name":"fv","name":"fv"},"data":{"a":"1"},"spec":{"x":1}}';
  const strict = await call('POST', `${CM}?fieldValidation=Strict`, { 'content-type': 'application/json' }, body);
  assert.equal(strict.status, 400);
  assert.equal(json(strict).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "spec"');
  const warn = await call('POST', CM, { 'content-type': 'application/json' }, body);
  assert.equal(warn.status, 201);
  assert.equal(warn.headers['warning'], '299 - "duplicate field \\"metadata.name\\"", 299 - "unknown field \\"spec\\""');
  assert.equal(json(warn).spec, undefined);
  const ignore = await call('PUT', `${CM}/fv?fieldValidation=Ignore`, { 'content-type': 'application/json' }, JSON.stringify({ ...json(warn), bogus: true }));
  assert.equal(ignore.status, 200);
  assert.equal(ignore.headers['warning'], undefined);
  const patchStrict = await call('PATCH', `${CM}/fv?fieldValidation=Strict`, { 'content-type': 'application/merge-patch+json' }, '{"data":{"b":"2"},"extra":1}');
  // A patch's strict failure is upstream's 422 on the field "patch", quoting the patched object.
  assert.equal(patchStrict.status, 422);
  assert.match(json(patchStrict).message, /^ "" is invalid: patch: Invalid value: "\{.*\\"extra\\":1.*\}": strict decoding error: unknown field "extra"$/);
  assert.equal(json(patchStrict).details.causes[0].field, 'patch');
});

test('strategic merge patch merges lists by key', async () => {
  const pod = {
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] },
  };
  const created = await call('POST', '/api/v1/namespaces/default/pods', { 'content-type': 'application/json' }, JSON.stringify(pod));
  assert.equal(created.status, 201, created.body.toString());
  const patched = await call(
    'PATCH',
    '/api/v1/namespaces/default/pods/p',
    { 'content-type': 'application/strategic-merge-patch+json' },
    '{"metadata":{"labels":{"l":"1"}},"spec":{"containers":[{"name":"b","image":"z"}]}}',
  );
  assert.equal(patched.status, 200, patched.body.toString());
  assert.deepEqual(json(patched).spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`), ['a=x', 'b=z']);
});

test('OpenAPI: v3 discovery hash, immutable caching, redirect on a stale hash, 304; v2 in JSON and protobuf with one Etag', async () => {
  const discovery = json(await call('GET', '/openapi/v3'));
  const url: string = discovery.paths['api/v1'].serverRelativeURL;
  assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
  assert.ok(discovery.paths['apis/apps/v1']);
  const doc = await call('GET', url);
  assert.equal(doc.status, 200);
  assert.equal(doc.headers['cache-control'], 'public, immutable');
  const spec = json(doc);
  assert.equal(spec.openapi, '3.0.0');
  const cm = spec.components.schemas['io.k8s.api.core.v1.ConfigMap'];
  assert.deepEqual(cm['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  const containers = spec.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.containers;
  assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
  assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(containers['x-kubernetes-list-type'], 'map');
  assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
  const patch = spec.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  assert.deepEqual(
    patch.parameters.map((p: { name: string }) => p.name),
    ['dryRun', 'fieldManager', 'fieldValidation', 'force'],
  );

  const stale = await call('GET', '/openapi/v3/api/v1?hash=ABC');
  assert.equal(stale.status, 301);
  assert.equal(stale.headers['location'], url);
  const etag = doc.headers['etag']!;
  const notModified = await call('GET', '/openapi/v3/api/v1', { 'if-none-match': etag });
  assert.equal(notModified.status, 304);

  const v2 = await call('GET', '/openapi/v2', { accept: 'application/json' });
  assert.equal(v2.status, 200);
  assert.equal(json(v2).swagger, '2.0');
  assert.ok(json(v2).definitions['io.k8s.api.apps.v1.Deployment']);
  // The protobuf form (decoded field by field in test/compat/openapi-v2-protobuf.test.ts) shares the JSON's Etag.
  const v2pb = await call('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  assert.equal(v2pb.status, 200);
  assert.equal(v2pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  assert.equal(v2pb.headers['etag'], v2.headers['etag']);
  assert.equal(v2pb.headers['vary'], 'Accept');
  // Field 1 (swagger) comes first: tag 0x0a, length 3, "2.0".
  assert.deepEqual([...v2pb.body.subarray(0, 5)], [0x0a, 3, ...Buffer.from('2.0')]);
  const pbNotModified = await call('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'if-none-match': v2.headers['etag']! });
  assert.equal(pbNotModified.status, 304);
  // The first clause by q that names a form we serve picks it; a wildcard picks JSON.
  const preferred = await call('GET', '/openapi/v2', { accept: 'application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf' });
  assert.equal(preferred.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  const wildcard = await call('GET', '/openapi/v2', { accept: 'application/*' });
  assert.equal(wildcard.headers['content-type'], 'application/json');
  assert.equal((await call('GET', '/openapi/v2', { accept: 'application/yaml' })).status, 406);
});
