// A list served from the watch cache splices each item's kept JSON bytes
// (machinery/json-memo.ts) instead of parsing and stringifying it. The body
// must be byte for byte what stringifying the list gives: the items as GET
// returns them without kind and apiVersion, in key order, with multi-byte
// text, after updates and deletions (no older revision's bytes), with
// selectors, as a Table, and with a kept-object budget so small it is dropped
// and refilled while lists run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { configMap, request } from '../helpers/http.js';
import { isImmutable, jsonBytes, listJSONBytes, markImmutable } from '../../src/machinery/json-memo.js';
import { decodeProtobuf, encodeProtobuf } from '../../src/api/schema/protobuf.js';
import type { KubeObject } from '../../src/machinery/meta.js';

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFrozen(v);
    Object.freeze(value);
  }
  return value;
}

test('listJSONBytes is JSON.stringify of the list, for marked, unmarked and non-object items', () => {
  const a = markImmutable(Object.freeze({ metadata: Object.freeze({ name: 'a' }), data: Object.freeze({ k: 'é✓😀' }) }));
  const b = { metadata: { name: 'b' }, skipped: undefined };
  const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '7' }, items: [a, b, null, a] };
  assert.equal(listJSONBytes(list, '\n')!.toString(), JSON.stringify(list) + '\n');
  assert.equal(jsonBytes(a), jsonBytes(a), 'a marked object keeps its bytes');
  assert.ok(!isImmutable(b));
  // Not spliced: no marked item, or items not last.
  assert.equal(listJSONBytes({ ...list, items: [b] }), undefined);
  const itemsFirst: { items: unknown[]; kind: string } = { items: [a], kind: 'List' };
  assert.equal(listJSONBytes(itemsFirst), undefined);
});

test('a protobuf list of kept objects is the bytes of the same list of fresh ones', () => {
  const item = (name: string) => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '5', labels: { b: '2', a: '1' } }, data: { k: 'é✓😀', j: 'x' } });
  const fresh = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: [item('a'), item('b')] } as unknown as KubeObject;
  const kept = { ...fresh, items: [markImmutable(deepFrozen(item('a'))), markImmutable(deepFrozen(item('b')))] } as unknown as KubeObject;
  const expected = Buffer.from(encodeProtobuf(fresh));
  assert.deepEqual(Buffer.from(encodeProtobuf(kept)), expected);
  assert.deepEqual(Buffer.from(encodeProtobuf(kept)), expected, 'and again, from the kept bytes');
  assert.equal(((decodeProtobuf(expected) as unknown as { items: unknown[] }).items).length, 2);
});

for (const listMemoBytes of [undefined, 3000]) {
  test(`lists from the watch cache are byte-exact (kept-object budget ${listMemoBytes ?? 'default'})`, async (t) => {
    const server = await startTestServer({ storage: 'sqlite', watchCache: listMemoBytes === undefined ? {} : { listMemoBytes } });
    t.after(() => server.stop());
    const ns = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'enc' } } });
    assert.equal(ns.status, 201, ns.text);
    const base = '/api/v1/namespaces/enc/configmaps';
    for (let i = 0; i < 12; i++) {
      const labels = { parity: i % 2 === 0 ? 'even' : 'odd' };
      const reply = await request(server.url, 'POST', base, { body: configMap(`cm-${String(i).padStart(2, '0')}`, { text: `ünïcødé ✓ 😀 ${i}`, big: 'x'.repeat(200 + i) }, { labels }) });
      assert.equal(reply.status, 201, reply.text);
    }

    /** The list body as stringifying the items GET returns would write it. */
    const expected = async (query: string, rv: string): Promise<string> => {
      const names = ((await request(server.url, 'GET', `${base}${query}`)).json as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name);
      const items = [];
      for (const name of names) {
        const { kind: _k, apiVersion: _a, ...rest } = (await request(server.url, 'GET', `${base}/${name}`)).json as Record<string, unknown>;
        items.push(rest);
      }
      return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: rv }, items }) + '\n';
    };
    const check = async (query: string, count: number): Promise<void> => {
      for (let round = 0; round < 3; round++) {
        const res = await fetch(`${server.url}${base}${query}`);
        const body = Buffer.from(await res.arrayBuffer());
        assert.equal(res.status, 200);
        assert.equal(Number(res.headers.get('content-length')), body.length, 'Content-Length counts bytes');
        const text = body.toString('utf8');
        const list = JSON.parse(text) as { metadata: { resourceVersion: string }; items: unknown[] };
        assert.equal(list.items.length, count);
        assert.equal(text, await expected(query, list.metadata.resourceVersion), `list ${query} round ${round}`);
      }
    };
    await check('', 12);
    await check('?labelSelector=parity%3Deven', 6);

    // A GET of a cached object is served from the same kept bytes: exact, and never an older revision's.
    const getBody = async (name: string): Promise<string> => {
      const res = await fetch(`${server.url}${base}/${name}`);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200);
      assert.equal(Number(res.headers.get('content-length')), body.length);
      const text = body.toString('utf8');
      assert.equal(text, JSON.stringify(JSON.parse(text)) + '\n');
      return text;
    };
    const once = await getBody('cm-05');
    assert.equal(await getBody('cm-05'), once);
    const patched = await request(server.url, 'PATCH', `${base}/cm-05`, { raw: JSON.stringify({ data: { text: 'patched ✓' } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    const afterPatch = JSON.parse(await getBody('cm-05')) as { data: Record<string, string>; metadata: { resourceVersion: string } };
    assert.deepEqual(afterPatch.data, { text: 'patched ✓', big: 'x'.repeat(205) });
    assert.equal(afterPatch.metadata.resourceVersion, (patched.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    await check('', 12);

    // Updates and deletions: the next list shows the new state, never kept bytes of the old one.
    const got = (await request(server.url, 'GET', `${base}/cm-03`)).json as Record<string, unknown>;
    const updated = await request(server.url, 'PUT', `${base}/cm-03`, { body: { ...got, data: { text: 'changed ✓' } } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await request(server.url, 'DELETE', `${base}/cm-04`)).status, 200);
    const after = (await request(server.url, 'GET', base)).json as { items: Array<{ metadata: { name: string }; data: Record<string, string> }> };
    assert.deepEqual(after.items.find((i) => i.metadata.name === 'cm-03')!.data, { text: 'changed ✓' });
    assert.equal(after.items.find((i) => i.metadata.name === 'cm-04'), undefined);
    await check('', 11);
    await check('?resourceVersion=0', 11);

    // Other encodings of the same cached objects still work: a Table, and pretty JSON.
    const table = await request(server.url, 'GET', base, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(table.status, 200, table.text);
    assert.equal((table.json as { rows: unknown[] }).rows.length, 11);
    const pretty = await request(server.url, 'GET', `${base}?pretty=true`);
    assert.equal(pretty.text, JSON.stringify(JSON.parse(pretty.text), null, 2) + '\n');
    // Protobuf: the same bytes list after list, and the same objects as the JSON list.
    const protobufList = async (): Promise<Buffer> => {
      const res = await fetch(`${server.url}${base}`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    };
    const first = await protobufList();
    assert.deepEqual(await protobufList(), first);
    const asJson = (await request(server.url, 'GET', base)).json as { items: unknown[] };
    assert.deepEqual((decodeProtobuf(first) as unknown as { items: unknown[] }).items, asJson.items);
  });
}
