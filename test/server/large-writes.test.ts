// Large writes (bodies of 256 KiB and more: decoded on a worker thread, the
// creator's field set walked there, the answer written in slices) answer as
// any write does: warnings, strict field validation, owner reference dedup,
// the creator's managedFields, the stored object, an update.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const CM = '/api/v1/namespaces/large/configmaps';

before(async () => {
  server = await startTestServer({ storage: 'memory' });
  const ns = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'large' } }) });
  assert.equal(ns.status, 201);
});
after(() => server.stop());

function bigConfigMap(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const data = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`key-${i}`, 'value']));
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data, ...extra };
}

async function send(method: string, path: string, body: unknown): Promise<{ status: number; json: Record<string, any>; warnings: string[] }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const text = JSON.stringify(body);
  assert.ok(text.length >= 256 * 1024);
  const res = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json', 'user-agent': 'large-writes-test' }, body: text });
  const warnings = res.headers.get('warning');
  return { status: res.status, json: (await res.json()) as Record<string, any>, warnings: warnings === null ? [] : warnings.split(/, (?=299 )/) }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

test('a large create: warnings, deduplicated owner references, the creator\'s managedFields, stored as answered', async () => {
  const owner = { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' };
  const created = await send('POST', CM, bigConfigMap('big', { extra: 1, metadata: { name: 'big', labels: { a: 'b' }, ownerReferences: [owner, owner] } }));
  assert.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
  assert.deepEqual(created.warnings, [
    '299 - "unknown field \\"extra\\""',
    '299 - ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: u1"',
  ]);
  assert.deepEqual(created.json['metadata'].ownerReferences, [owner]);
  assert.equal(created.json['extra'], undefined);
  const [entry, ...more] = created.json['metadata'].managedFields;
  assert.equal(more.length, 0);
  assert.equal(entry.manager, 'large-writes-test');
  assert.equal(entry.operation, 'Update');
  const fields = entry.fieldsV1;
  assert.deepEqual(Object.keys(fields), ['f:data', 'f:metadata']);
  assert.equal(Object.keys(fields['f:data']).length, 30_001);
  assert.deepEqual(fields['f:data']['.'], {});
  assert.deepEqual(fields['f:data']['f:key-29999'], {});
  assert.deepEqual(Object.keys(fields['f:metadata']), ['f:labels', 'f:ownerReferences']);
  const stored = await fetch(`${server.url}${CM}/big`).then((r) => r.json());
  assert.deepEqual(stored, created.json);
});

test('a large body with an unknown field and fieldValidation=Strict is a 400 that stores nothing', async () => {
  const refused = await send('POST', `${CM}?fieldValidation=Strict`, bigConfigMap('strict', { extra: 1 }));
  assert.equal(refused.status, 400);
  assert.equal(refused.json['message'], 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra"');
  assert.equal((await fetch(`${server.url}${CM}/strict`)).status, 404);
});

test('a large update is decoded the same way and stored', async () => {
  const current = await fetch(`${server.url}${CM}/big`).then((r) => r.json() as Promise<Record<string, any>>); // eslint-disable-line @typescript-eslint/no-explicit-any
  const next = bigConfigMap('big', { metadata: { name: 'big', resourceVersion: current['metadata'].resourceVersion } });
  (next['data'] as Record<string, string>)['key-0'] = 'changed';
  const updated = await send('PUT', `${CM}/big`, next);
  assert.equal(updated.status, 200, JSON.stringify(updated.json).slice(0, 300));
  assert.equal(updated.json['data']['key-0'], 'changed');
  assert.equal(updated.json['metadata'].labels, undefined);
});

/** A large request with a content type of its own and a field manager; its status and JSON answer. */
async function sendAs(method: string, path: string, text: string, contentType: string): Promise<{ status: number; json: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.ok(text.length >= 256 * 1024);
  const res = await fetch(server.url + path, { method, headers: { 'content-type': contentType }, body: text });
  return { status: res.status, json: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The managers of an object's entries with how many data keys each owns. */
function owners(obj: Record<string, any>): Record<string, number> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out: Record<string, number> = {};
  for (const e of obj['metadata'].managedFields ?? []) out[`${e.manager}/${e.operation}`] = Object.keys(e.fieldsV1?.['f:data'] ?? {}).filter((k) => k !== '.').length;
  return out;
}

test('a large update, merge patch and apply (their field manager, patch and merge on the worker thread) track fields and answer as small ones', async () => {
  const values = (value: string, n = 30_000): string => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`key-${i}`, value])));
  const created = await sendAs('POST', `${CM}?fieldManager=a`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned"},"data":${values('v')}}`, 'application/json');
  assert.equal(created.status, 201);
  assert.deepEqual(owners(created.json), { 'a/Update': 30_000 });
  // b's merge patch changes every value but one: b takes them, a keeps the one.
  const patchData = JSON.parse(values('w')) as Record<string, string>;
  delete patchData['key-7'];
  const patched = await sendAs('PATCH', `${CM}/owned?fieldManager=b`, JSON.stringify({ data: patchData, metadata: { labels: { l: 'x' } } }), 'application/merge-patch+json');
  assert.equal(patched.status, 200, JSON.stringify(patched.json).slice(0, 300));
  assert.deepEqual(owners(patched.json), { 'a/Update': 1, 'b/Update': 29_999 });
  assert.equal(patched.json['data']['key-0'], 'w');
  assert.equal(patched.json['data']['key-7'], 'v');
  assert.deepEqual(patched.json['metadata'].labels, { l: 'x' });
  // A strict patch with an unknown field and a malformed one change nothing.
  const strict = await sendAs('PATCH', `${CM}/owned?fieldManager=b&fieldValidation=Strict`, JSON.stringify({ data: patchData, extra: 1 }), 'application/merge-patch+json');
  assert.equal(strict.status, 422);
  assert.match(strict.json['message'], /^ "" is invalid: patch: Invalid value: .*strict decoding error: unknown field "extra"/s);
  const malformed = await sendAs('PATCH', `${CM}/owned?fieldManager=b`, JSON.stringify({ data: patchData }).slice(0, -1), 'application/merge-patch+json');
  assert.equal(malformed.status, 400);
  assert.match(malformed.json['message'], /^error decoding patch: /);
  const missing = await sendAs('PATCH', `${CM}/nothere?fieldManager=b`, JSON.stringify({ data: patchData }).slice(0, -1), 'application/merge-patch+json');
  assert.equal(missing.status, 400, 'a malformed patch is refused before the object is read');
  // c's apply of other values conflicts with b (and a); forced, c takes every key it applies (a keeps the data map
  // itself, b its label).
  const config = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned"},"data":${values('x')}}`;
  const conflicted = await sendAs('PATCH', `${CM}/owned?fieldManager=c`, config, 'application/apply-patch+yaml');
  assert.equal(conflicted.status, 409);
  assert.equal(conflicted.json['reason'], 'Conflict');
  assert.equal(conflicted.json['details'].causes.length, 30_000);
  assert.deepEqual(conflicted.json['details'].causes[0], { reason: 'FieldManagerConflict', message: 'conflict with "a" using v1', field: '.data.key-7' });
  const applied = await sendAs('PATCH', `${CM}/owned?fieldManager=c&force=true`, config, 'application/apply-patch+yaml');
  assert.equal(applied.status, 200, JSON.stringify(applied.json).slice(0, 300));
  assert.deepEqual(owners(applied.json), { 'a/Update': 0, 'b/Update': 0, 'c/Apply': 30_000 });
  assert.equal(applied.json['data']['key-7'], 'x');
  // d's update (a PUT of the stored object with one value changed) takes that one from c.
  const next = structuredClone(applied.json);
  next['data']['key-3'] = 'y';
  const updated = await sendAs('PUT', `${CM}/owned?fieldManager=d`, JSON.stringify(next), 'application/json');
  assert.equal(updated.status, 200, JSON.stringify(updated.json).slice(0, 300));
  assert.deepEqual(owners(updated.json), { 'a/Update': 0, 'b/Update': 0, 'c/Apply': 29_999, 'd/Update': 1 });
  const stored = await fetch(`${server.url}${CM}/owned`).then((r) => r.json());
  assert.deepEqual(stored, updated.json);
});
