// The answers of issue 16's divergences, as kube-apiserver 1.32.4 gives them
// (each message below was read from a real one), over real HTTP; a rejected
// request writes nothing. Items covered elsewhere: 2 (test/namespaces/
// object.test.ts), 7 (test/registry/semantics.test.ts), 11
// (test/e2e/discovery.test.ts), 14 (test/listwatch/http.test.ts); the
// differential cases in test/compat/differential/cases/issue-16.ts.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertStatus, get, request } from '../helpers/http.js';

let server: TestServer;
let base: string;
const NS = 'fidelity';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const MERGE = { 'content-type': 'application/merge-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };
const JSON_TYPE = { 'content-type': 'application/json' };

const deployment = (name: string, selector: Record<string, unknown>, labels: Record<string, string>): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

before(async () => {
  server = await startTestServer();
  base = server.url;
  assert.equal((await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
  assert.equal((await request(base, 'POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'good' }, data: { k: 'YQ==' } } })).status, 201);
  assert.equal((await request(base, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } })).status, 201);
  const web = await request(base, 'POST', DEPLOYMENTS, { body: deployment('web', { matchLabels: { app: 'web' } }, { app: 'web', tier: 'a' }) });
  assert.equal(web.status, 201, web.text);
});

after(async () => {
  // Nothing a rejected request sent was stored.
  assert.deepEqual((await get(base, SECRETS)).json.items.map((s: { metadata: { name: string } }) => s.metadata.name), ['bytes', 'good']);
  assert.deepEqual((await get(base, `${SECRETS}/good`)).json.data, { k: 'YQ==' });
  assert.deepEqual((await get(base, CM)).json.items.map((c: { metadata: { name: string } }) => c.metadata.name), ['c']);
  await server.stop();
});

test('item 1: a []byte field that is not base64 is a 400 on create and update, a 422 on patch, in JSON and YAML', async () => {
  const bad = await request(base, 'POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, data: { k: '!!!' } } });
  assertStatus(bad, 400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0');
  const yaml = await request(base, 'POST', SECRETS, {
    raw: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bad\ndata:\n  k: "YWJjZA="\n',
    headers: { 'content-type': 'application/yaml' },
  });
  assertStatus(yaml, 400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 7');
  const binary = await request(base, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, binaryData: { k: '%%' } } });
  assertStatus(binary, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0');
  const number = await request(base, 'POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, data: { k: 5 } } });
  assertStatus(number, 400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.data of type []uint8');
  const update = await request(base, 'PUT', `${SECRETS}/good`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'good' }, data: { k: '!!' } } });
  assertStatus(update, 400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0');

  const smp = await request(base, 'PATCH', `${SECRETS}/good`, { body: { data: { k: '!!' } }, headers: STRATEGIC });
  assertStatus(smp, 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[data:map[k:!!]]": error decoding from json: illegal base64 data at input byte 0');
  assert.deepEqual(smp.json.details, {
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "map[data:map[k:!!]]": error decoding from json: illegal base64 data at input byte 0', field: 'patch' }],
  });
  const smpNumber = await request(base, 'PATCH', `${SECRETS}/good`, { body: { data: { k: 5 } }, headers: STRATEGIC });
  assert.equal(smpNumber.json.message, ' "" is invalid: patch: Invalid value: "map[data:map[k:5]]": cannot restore slice from int64');
  const merge = await request(base, 'PATCH', `${SECRETS}/good`, { body: { data: { k: '!!' } }, headers: MERGE });
  assert.equal(merge.status, 422);
  assert.match(merge.json.message, /^ "" is invalid: patch: Invalid value: "\{.*\}": illegal base64 data at input byte 0$/);
  const jsonPatch = await request(base, 'PATCH', `${SECRETS}/good`, { raw: '[{"op":"add","path":"/data/k","value":"!!"}]', headers: { 'content-type': 'application/json-patch+json' } });
  assert.equal(jsonPatch.status, 422);

  // Accepted forms are stored as Go stores them: a list of numbers is the bytes; newlines and trailing bits go.
  const bytes = await request(base, 'POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bytes' }, data: { k: [104, 105], c: 'YW\nJjZB==', n: null } } });
  assert.equal(bytes.status, 201, bytes.text);
  assert.deepEqual((await get(base, `${SECRETS}/bytes`)).json.data, { k: 'aGk=', c: 'YWJjZA==', n: '' });
});

test('item 3: an unsupported field selector is worded by the resource\'s own conversion', async () => {
  const cases: Array<[string, string]> = [
    [`${CM}?fieldSelector=data.k%3Dv`, '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    [`${DEPLOYMENTS}?fieldSelector=spec.replicas%3D1`, '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    [`${SECRETS}?fieldSelector=data.k%3Dv`, 'field label not supported: data.k'],
    ['/api/v1/nodes?fieldSelector=metadata.namespace%3Dx', 'field label not supported: metadata.namespace'],
    ['/api/v1/namespaces?fieldSelector=name%3Dx', 'field label not supported: name'],
    [`/apis/events.k8s.io/v1/namespaces/${NS}/events?fieldSelector=source%3Dx`, 'field label not supported: source'],
    [`${CM}?fieldSelector=z%3D1,b%3D2`, '"b" is not a known field selector: only "metadata.name", "metadata.namespace"'],
  ];
  for (const [path, message] of cases) assertStatus(await get(base, path), 400, 'BadRequest', message);
  // Accepted: pods' spec.host (spec.nodeName) and status.podIPs; nodes' spec.unschedulable.
  assert.equal((await get(base, `/api/v1/namespaces/${NS}/pods?fieldSelector=spec.host%3Dx,status.podIPs%3Dy`)).status, 200);
  assert.equal((await get(base, '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse')).status, 200);
});

test('item 4: a resourceVersion ahead of the store: 504 Timeout after the wait; an exact read is etcd\'s 500', async () => {
  const started = Date.now();
  const list = await get(base, `${CM}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`);
  assert.ok(Date.now() - started >= 2500, 'upstream waits about 3 s for the revision');
  assert.equal(list.status, 504);
  assert.match(list.json.message, /^Timeout: Too large resource version: 999999999, current: \d+$/);
  assert.equal(list.json.reason, 'Timeout');
  assert.deepEqual(list.json.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
  const exact = await get(base, `${CM}?resourceVersion=999999999&resourceVersionMatch=Exact`);
  assert.deepEqual(exact.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: mvcc: required revision is a future revision', code: 500 });
});

test('item 5: no route produces the Accept: go-restful\'s 406 with the representations, empty details', async () => {
  const reply = await get(base, `${CM}/c`, { accept: 'text/plain' });
  assertStatus(reply, 406, 'NotAcceptable', '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  assert.deepEqual(reply.json.details, {});
  const version = await get(base, '/version', { accept: 'text/plain' });
  assertStatus(version, 406, 'NotAcceptable', '406: Not Acceptable\n\nAvailable representations: application/json');
  // The error itself is negotiated: a YAML client gets it in YAML, as upstream answers.
  const yaml = await get(base, '/version', { accept: 'application/yaml' });
  assert.equal(yaml.status, 406);
  assert.match(yaml.contentType, /^application\/yaml/);
});

test('item 6: values are quoted as Go\'s %#v prints them', async () => {
  const labels = await request(base, 'POST', DEPLOYMENTS, { body: deployment('d', { matchLabels: { a: 'b' } }, { a: 'c' }) });
  assert.equal(labels.json.message, 'Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"a":"c"}: `selector` does not match template `labels`');
  const empty = await request(base, 'POST', DEPLOYMENTS, { body: deployment('d', {}, { a: 'c' }) });
  assert.equal(
    empty.json.message,
    'Deployment.apps "d" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
  );
  const changed = await request(base, 'PATCH', `${DEPLOYMENTS}/web`, {
    headers: MERGE,
    body: { spec: { selector: { matchLabels: { tier: 'a' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'x'] }, { key: 'tier', operator: 'Exists' }] } } },
  });
  assert.equal(
    changed.json.message,
    'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"In", Values:[]string{"web", "x"}}, v1.LabelSelectorRequirement{Key:"tier", Operator:"Exists", Values:[]string(nil)}}}: field is immutable',
  );
});

test('item 8: a configmap over 1 MiB: the size cause is on the whole object, "[]"', async () => {
  const reply = await request(base, 'POST', CM, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(600 * 1024) }, binaryData: { b: Buffer.alloc(500 * 1024, 'y').toString('base64') } },
  });
  assertStatus(reply, 422, 'Invalid', 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes');
  assert.deepEqual(reply.json.details.causes, [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field: '[]' }]);
});

test('items 9 and 13: request option errors, every one, supported values as upstream, details without an empty name', async () => {
  const reply = await request(base, 'POST', `${CM}?fieldValidation=Maybe&dryRun=Maybe&dryRun=All`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
  assertStatus(
    reply,
    422,
    'Invalid',
    'CreateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: []string{"Maybe", "All"}: supported values: "All", fieldValidation: Unsupported value: "Maybe": supported values: "", "Ignore", "Strict", "Warn"]',
  );
  assert.deepEqual(reply.json.details, {
    group: 'meta.k8s.io',
    kind: 'CreateOptions',
    causes: [
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"Maybe", "All"}: supported values: "All"', field: 'dryRun' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "", "Ignore", "Strict", "Warn"', field: 'fieldValidation' },
    ],
  });
  const del = await request(base, 'DELETE', `${CM}/c`, { body: { propagationPolicy: 'Bogus', orphanDependents: true, dryRun: ['x'] } });
  assert.equal(
    del.json.message,
    'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Bogus": orphanDependents and deletionPropagation cannot be both set, propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil", dryRun: Unsupported value: []string{"x"}: supported values: "All"]',
  );
  assert.equal(del.json.details.name, undefined);
  const list = await get(base, `${CM}?resourceVersionMatch=Exact`);
  assert.deepEqual(Object.keys(list.json.details), ['group', 'kind', 'causes']);
});

test('item 10: health checks, verbose, excluded, one by one, with upstream\'s names and closing lines', async () => {
  const ready = await get(base, '/readyz?verbose');
  assert.equal(
    ready.text,
    '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]poststarthook/start-apiserver-admission-initializer ok\n[+]poststarthook/start-system-namespaces-controller ok\n[+]shutdown ok\nreadyz check passed\n',
  );
  assert.equal((await get(base, '/livez?verbose')).text, '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-apiserver-admission-initializer ok\nlivez check passed\n');
  assert.equal((await get(base, '/healthz')).text, 'ok');
  assert.equal((await get(base, '/readyz/etcd')).text, 'ok');
  const missing = await get(base, '/livez/shutdown');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, '404 page not found\n');
  const excluded = await get(base, '/readyz?exclude=etcd&exclude=nope&verbose');
  assert.match(excluded.text, /\[\+\]etcd excluded: ok\n/);
  assert.match(excluded.text, /warn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n$/);
  assert.ok((await get(base, '/')).json.paths.includes('/readyz/informer-sync'));
});

test('item 12: malformed and mistyped bodies get Go\'s decoder messages', async () => {
  const raw = async (body: string, path = CM, method = 'POST', headers: Record<string, string> = JSON_TYPE): Promise<string> =>
    (await request(base, method, path, { raw: body, headers })).json.message;
  assert.equal(
    await raw('{"metadata":{"name":"x"},}'),
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'}\' looking for beginning of object key string ({"metadata":{"name":"x"},})',
  );
  assert.equal(
    await raw('{"a":1} x'),
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'x\' after top-level value ({"a":1} x)',
  );
  assert.equal(
    await raw('{"kind":5}'),
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})',
  );
  assert.equal(await raw('{"metadata":{"name":5}}'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string');
  assert.equal(await raw('{"metadata":{"name":"x"},"data":[1]}'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string');
  assert.equal(
    await raw('{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":1.5}]}]}}', `/api/v1/namespaces/${NS}/pods`),
    'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
  );
  assert.equal(await raw('{"data":', `${CM}/c`, 'PATCH', MERGE), 'error decoding patch: unexpected end of JSON input');
  assert.equal(await raw('{"data":', `${CM}/c?fieldValidation=Ignore`, 'PATCH', MERGE), 'Invalid JSON Patch');
  assert.equal(await raw('[1]', `${CM}/c`, 'PATCH', MERGE), 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
  assert.equal(await raw('{"data":1}x', `${CM}/c`, 'PATCH', STRATEGIC), "invalid character 'x' after top-level value");
  assert.equal(await raw('[1]', `${CM}/c`, 'PATCH', { 'content-type': 'application/json-patch+json' }), 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp');
  assert.equal(await raw('{"data":{"a":1}}', `${CM}/c`, 'PATCH', STRATEGIC), ' "" is invalid: patch: Invalid value: "map[data:map[a:1]]": cannot convert int64 to string');
});

test('item 15: strict decoding errors come in document order', async () => {
  const body =
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"s","name":"s"},"spec":{"unknownField":1,"replicas":1,"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","bogus":1,"bogus":2}]}}},"zz":1}';
  const strict = await request(base, 'POST', `${DEPLOYMENTS}?fieldValidation=Strict`, { raw: body, headers: JSON_TYPE });
  assertStatus(
    strict,
    400,
    'BadRequest',
    'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: duplicate field "metadata.name", unknown field "spec.unknownField", duplicate field "spec.replicas", unknown field "spec.template.spec.containers[0].bogus", unknown field "zz"',
  );
  // A patch: the patch's duplicates first, then the patched object's unknown fields, in a 422 on "patch".
  const patch = await request(base, 'PATCH', `${CM}/c?fieldValidation=Strict`, { raw: '{"data":{"a":"b"},"bogus":1,"data":{"c":"d"}}', headers: STRATEGIC });
  assertStatus(patch, 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[bogus:1 data:map[c:d]]": strict decoding error: duplicate field "data", unknown field "bogus"');
  const warn = await fetch(`${base}${DEPLOYMENTS}?dryRun=All`, { method: 'POST', body, headers: JSON_TYPE });
  assert.equal(warn.status, 201);
  assert.deepEqual(warn.headers.get('warning')?.split(', 299'), [
    '299 - "duplicate field \\"metadata.name\\""',
    ' - "unknown field \\"spec.unknownField\\""',
    ' - "duplicate field \\"spec.replicas\\""',
    ' - "unknown field \\"spec.template.spec.containers[0].bogus\\""',
    ' - "unknown field \\"zz\\""',
  ]);
});
