// Server-side apply and managedFields over HTTP, with the exact Status bodies
// kube-apiserver 1.32.4 answers for the same requests: bad apply bodies and
// options, the resourceVersion precondition, dry run, fieldValidation on apply
// bodies, /status apply, the managers derived from User-Agent, client-sent
// managedFields (replace, reset, ignored when malformed), and the scale
// subresource (get, update with a stale resourceVersion, apply conflicts).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertStatus, get, request } from '../helpers/http.js';

let server: TestServer;
let base: string;
const NS = 'ssa';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEPLOY = `/apis/apps/v1/namespaces/${NS}/deployments`;
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

function apply(path: string, yaml: string, headers: Record<string, string> = {}): ReturnType<typeof request> {
  return request(base, 'PATCH', path, { raw: yaml, headers: { ...APPLY, ...headers } });
}

const cmYaml = (name: string, data: Record<string, string>, extra = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"\n`)
    .join('')}`;

before(async () => {
  server = await startTestServer();
  base = server.url;
  const ns = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
  assert.equal(ns.status, 201, ns.text);
});

after(async () => {
  await server.stop();
});

test('apply creates (201), then updates (200); entries carry manager, operation, apiVersion, a whole-second time', async () => {
  const created = await apply(`${CM}/a?fieldManager=m1`, cmYaml('a', { x: '1', y: '2' }));
  assert.equal(created.status, 201, created.text);
  const [entry] = created.json.metadata.managedFields;
  assert.deepEqual(
    { ...entry, time: undefined },
    { manager: 'm1', operation: 'Apply', apiVersion: 'v1', time: undefined, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {}, 'f:y': {} } } },
  );
  assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const again = await apply(`${CM}/a?fieldManager=m1`, cmYaml('a', { x: '1' }));
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json.data, { x: '1' });
});

test('conflicts: 409 with one FieldManagerConflict cause per field; force takes them', async () => {
  const reply = await apply(`${CM}/a?fieldManager=m2`, cmYaml('a', { x: 'other' }));
  assertStatus(reply, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "m1": .data.x');
  assert.deepEqual(reply.json.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.data.x' }] });
  await apply(`${CM}/b?fieldManager=m1`, cmYaml('b', { p: '1', q: '2' }));
  const two = await apply(`${CM}/b?fieldManager=m2`, cmYaml('b', { p: 'x', q: 'y' }));
  assertStatus(two, 409, 'Conflict', 'Apply failed with 2 conflicts: conflicts with "m1":\n- .data.p\n- .data.q');
  const forced = await apply(`${CM}/a?fieldManager=m2&force=true`, cmYaml('a', { x: 'other' }));
  assert.equal(forced.status, 200, forced.text);
  assert.deepEqual(forced.json.metadata.managedFields.map((e: { manager: string }) => e.manager), ['m2']);
});

test('bad apply requests get upstream\'s statuses and write nothing', async () => {
  assertStatus(await apply(`${CM}/a`, cmYaml('a', { x: '1' })), 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  assertStatus(
    await request(base, 'PATCH', `${CM}/a?force=true`, { raw: '{}', headers: { 'content-type': 'application/merge-patch+json' } }),
    422,
    'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
  );
  const m = `${CM}/a?fieldManager=m9`;
  assertStatus(await apply(m, 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n'), 400, 'BadRequest', 'invalid object type: /v1, Kind=Secret');
  assertStatus(await apply(m, 'metadata:\n  name: a\n'), 400, 'BadRequest', 'invalid object type: /, Kind=');
  assertStatus(
    await apply(m, '- a\n- b\n'),
    400,
    'BadRequest',
    'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
  );
  assertStatus(await apply(m, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  managedFields: []\n'), 400, 'BadRequest', 'metadata.managedFields must be nil');
  assertStatus(await apply(m, cmYaml('other', { x: '1' })), 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (a)');
  assertStatus(
    await apply(m, cmYaml('a', { x: '1' }, '  resourceVersion: "1"\n')),
    409,
    'Conflict',
    'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  );
  const unknown = await apply(m, `${cmYaml('a', { x: '1' })}foo: 1\n`);
  assert.equal(unknown.status, 500, unknown.text);
  assert.equal(unknown.json.message, 'failed to create typed patch object (/a; /v1, Kind=ConfigMap): .foo: field not declared in schema');
  const duplicate = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "other"\n  x: "other"\n`;
  assertStatus(
    await apply(`${m}&fieldValidation=Strict`, duplicate),
    400,
    'BadRequest',
    'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "x" already set in map',
  );
  // The same for a JSON body (what kubectl and client-go send); the strict check comes after a clean merge, as upstream's.
  assertStatus(
    await apply(`${m}&fieldValidation=Strict`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},\n"data":{"x":"1","x":"other"}}'),
    400,
    'BadRequest',
    'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "x" already set in map',
  );
  const warned = await fetch(`${base}${CM}/a?fieldManager=m2&fieldValidation=Warn`, { method: 'PATCH', headers: APPLY, body: duplicate });
  assert.equal(warned.status, 200);
  assert.equal(warned.headers.get('warning'), '299 - "line 7: key \\"x\\" already set in map"');
  // Nothing above changed the object.
  assert.deepEqual((await get(base, `${CM}/a`)).json.data, { x: 'other' });
});

test('dry-run apply answers the merged object and writes nothing', async () => {
  const rv = (await get(base, `${CM}/a`)).json.metadata.resourceVersion;
  const dry = await apply(`${CM}/a?fieldManager=m2&dryRun=All`, cmYaml('a', { x: 'other', z: '3' }));
  assert.equal(dry.status, 200, dry.text);
  assert.deepEqual(dry.json.data, { x: 'other', z: '3' });
  const now = (await get(base, `${CM}/a`)).json;
  assert.equal(now.metadata.resourceVersion, rv);
  assert.deepEqual(now.data, { x: 'other' });
  const missing = await apply(`${CM}/ghost?fieldManager=m2&dryRun=All`, cmYaml('ghost', { x: '1' }));
  assert.equal(missing.status, 201, missing.text);
  assert.equal((await get(base, `${CM}/ghost`)).status, 404);
});

test('every write records an Update entry: manager from ?fieldManager= or the User-Agent', async () => {
  const created = await request(base, 'POST', CM, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u', labels: { a: 'b' } }, data: { k: '1' } },
    headers: { 'user-agent': 'my-tool/1.0 (linux)' },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(
    created.json.metadata.managedFields.map((e: Record<string, unknown>) => [e['manager'], e['operation'], e['fieldsV1']]),
    [['my-tool', 'Update', { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }]],
  );
  const patched = await request(base, 'PATCH', `${CM}/u?fieldManager=patcher`, {
    raw: JSON.stringify({ data: { k: '2', n: '3' } }),
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.deepEqual(
    patched.json.metadata.managedFields.map((e: Record<string, unknown>) => [e['manager'], e['fieldsV1']]),
    [
      // The creator keeps the data map itself (its "."), as kube-apiserver answers.
      ['my-tool', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
      ['patcher', { 'f:data': { 'f:k': {}, 'f:n': {} } }],
    ],
  );
});

test('client-sent managedFields: valid ones replace, [] and [{}] clear (and updates stay untracked), malformed ones are ignored', async () => {
  const cur = (await get(base, `${CM}/u`)).json;
  const mine = [{ manager: 'zz', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } }];
  const replaced = await request(base, 'PUT', `${CM}/u`, { body: { ...cur, metadata: { ...cur.metadata, managedFields: mine } } });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(replaced.json.metadata.managedFields, mine);
  const bogus = [{ ...mine[0], operation: 'Bogus' }];
  const ignored = await request(base, 'PUT', `${CM}/u`, { body: { ...replaced.json, metadata: { ...replaced.json.metadata, managedFields: bogus } } });
  assert.equal(ignored.status, 200, ignored.text);
  assert.deepEqual(ignored.json.metadata.managedFields, mine);
  assert.equal(ignored.json.metadata.resourceVersion, replaced.json.metadata.resourceVersion, 'nothing changed, nothing written');
  const cleared = await request(base, 'PATCH', `${CM}/u`, { raw: '{"metadata":{"managedFields":[{}]}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(cleared.json.metadata.managedFields, undefined);
  const later = await request(base, 'PATCH', `${CM}/u`, { raw: '{"data":{"k":"9"}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(later.json.metadata.managedFields, undefined);
  const first = await apply(`${CM}/u?fieldManager=ap`, cmYaml('u', { k: '9' }));
  assert.deepEqual(
    first.json.metadata.managedFields.map((e: Record<string, unknown>) => [e['manager'], e['operation'], e['time'] === undefined]),
    [
      ['ap', 'Apply', true],
      ['before-first-apply', 'Update', false],
    ],
  );
});

test('apply to /status owns status fields only; the scale subresource', async () => {
  const dep = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - {name: c, image: nginx}\n`;
  assert.equal((await apply(`${DEPLOY}/web?fieldManager=owner`, dep)).status, 201);
  const status = await apply(`${DEPLOY}/web/status?fieldManager=ctl`, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nstatus:\n  replicas: 2\n');
  assert.equal(status.status, 200, status.text);
  assert.equal(status.json.status.replicas, 2);
  const ctl = status.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'ctl');
  assert.deepEqual({ subresource: ctl.subresource, fieldsV1: ctl.fieldsV1 }, { subresource: 'status', fieldsV1: { 'f:status': { 'f:replicas': {} } } });

  const scale = await get(base, `${DEPLOY}/web/scale`);
  assert.equal(scale.status, 200, scale.text);
  assert.deepEqual({ kind: scale.json.kind, apiVersion: scale.json.apiVersion, spec: scale.json.spec, status: scale.json.status }, {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    spec: { replicas: 2 },
    status: { replicas: 2, selector: 'app=web' },
  });
  assertStatus(
    await request(base, 'PUT', `${DEPLOY}/web/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', resourceVersion: '1' }, spec: { replicas: 3 } } }),
    409,
    'Conflict',
    'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
  );
  const scaled = await request(base, 'PUT', `${DEPLOY}/web/scale?fieldManager=scaler`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 3 } } });
  assert.equal(scaled.status, 200, scaled.text);
  assert.equal(scaled.json.spec.replicas, 3);
  const deployment = (await get(base, `${DEPLOY}/web`)).json;
  assert.equal(deployment.spec.replicas, 3);
  const scaler = deployment.metadata.managedFields.find((e: { manager: string }) => e.manager === 'scaler');
  assert.deepEqual(scaler, { manager: 'scaler', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' });
  const conflict = await apply(`${DEPLOY}/web/scale?fieldManager=hpa`, 'apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 6\n');
  assertStatus(conflict, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale" using autoscaling/v1: .spec.replicas');
  const forced = await apply(`${DEPLOY}/web/scale?fieldManager=hpa&force=true`, 'apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 6\n');
  assert.equal(forced.status, 200, forced.text);
  assert.equal(forced.json.spec.replicas, 6);
});
