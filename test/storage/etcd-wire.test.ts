// The etcd client's hand-written protobuf (src/storage/etcd/wire.ts) against
// protobufjs reading etcd's own .proto files: every request shape the backend
// sends encodes to a message protobufjs reads back the same, and every answer
// decodes to what protobufjs decodes (int64s as numbers), unknown fields and
// all.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { loadProtocol } from '../../src/storage/etcd/protocol.js';
import { WireError, decodeRangeResponse } from '../../src/storage/etcd/wire.js';

const require = createRequire(import.meta.url);
const root = new protobuf.Root();
root.loadSync(join(dirname(require.resolve('etcd3/package.json')), 'proto', 'rpc.proto'), { keepCase: true });
root.resolveAll();
const type = (name: string): protobuf.Type => root.lookupType(`etcdserverpb.${name}`);
const plain = (t: protobuf.Type, bytes: Uint8Array): unknown =>
  t.toObject(t.decode(bytes), { longs: Number, bytes: String, defaults: true, oneofs: false }) as unknown;

/** What a decoded answer holds, bytes in base64 and Longs as numbers (as `plain` has them), for comparing. */
function normal(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(normal);
  if (typeof value === 'object') {
    if ('toNumber' in value && typeof value.toNumber === 'function') return (value as { toNumber(): number }).toNumber();
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normal(v)]));
  }
  return value;
}

const proto = loadProtocol();
const key = Buffer.from('/registry/configmaps/ns/name-é');
const value = Buffer.from(JSON.stringify({ kind: 'ConfigMap', data: { payload: 'x'.repeat(300) } }));
const LongClass = protobuf.util.Long as unknown as { fromString(text: string, unsigned?: boolean): { low: number; high: number } };
const bigLease = LongClass.fromString('7587869387455123456');

test('requests: each shape the backend sends reads back as protobufjs encodes it', () => {
  const cases: Array<[keyof typeof proto, object]> = [
    ['range', { key, revision: 0 }],
    ['range', { key, revision: 42 }],
    ['range', { key: Buffer.from('compact_rev_key'), count_only: true }],
    ['range', { key: Buffer.from('compact_rev_key'), count_only: true, revision: 1234567 }],
    ['range', { key, range_end: Buffer.from('/registry/configmaps/ns0'), revision: 99, limit: 500 }],
    ['range', { key: Buffer.alloc(0), range_end: Buffer.from([0]) }],
    ['deleteRange', { key, prev_kv: true }],
    ['txn', { compare: [{ key, target: 1, result: 0, create_revision: 0 }], success: [{ request_put: { key, value, lease: 0 } }], failure: [] }],
    ['txn', { compare: [{ key, target: 1, result: 0, create_revision: 0 }], success: [{ request_put: { key, value, lease: 694 } }], failure: [] }],
    ['txn', { compare: [{ key, target: 1, result: 0, create_revision: 0 }], success: [{ request_put: { key, value, lease: bigLease } }], failure: [] }],
    [
      'txn',
      {
        compare: [{ key, target: 2, result: 0, mod_revision: 300_000_000_123 }],
        success: [{ request_put: { key, value: Buffer.alloc(200_000, 'v'), lease: 0, prev_kv: true } }],
        failure: [{ request_range: { key } }],
      },
    ],
    ['txn', { compare: [{ key, target: 1, result: 1, create_revision: 0 }], success: [{ request_put: { key, value, lease: 0, prev_kv: true } }], failure: [{ request_range: { key } }] }],
    ['txn', { compare: [{ key, target: 2, result: 0, mod_revision: 7 }], success: [{ request_delete_range: { key, prev_kv: true } }], failure: [{ request_range: { key } }] }],
    ['txn', { compare: [{ key: Buffer.from('compact_rev_key'), target: 0, result: 0, version: 3 }], success: [{ request_put: { key: Buffer.from('compact_rev_key'), value: Buffer.from('12') } }], failure: [{ request_range: { key: Buffer.from('compact_rev_key') } }] }],
    // Not covered by wire.ts: protobufjs encodes it.
    ['txn', { compare: [{ key, target: 3, result: 0, value }], success: [], failure: [] }],
  ];
  const names = { range: 'RangeRequest', deleteRange: 'DeleteRangeRequest', txn: 'TxnRequest' } as Record<string, string>;
  for (const [method, request] of cases) {
    const m = proto[method];
    const frame = m.frame(request);
    assert.equal(frame[0], 0);
    assert.equal(frame.readUInt32BE(1), frame.length - 5);
    const t = type(names[method]!);
    assert.deepEqual(plain(t, frame.subarray(5)), plain(t, m.serialize(request)), `${method} ${JSON.stringify(normal(request)).slice(0, 200)}`);
  }
});

const header = { cluster_id: LongClass.fromString('14841639068965178418', true), member_id: 10276657743932975437, revision: 123456789, raft_term: 5 };
const kv = (n: number) => ({ key: Buffer.from(`/registry/k/${n}`), create_revision: 100 + n, mod_revision: 200 + n, version: n, value: Buffer.from(`value ${n} é`), lease: n === 2 ? bigLease : 0 });

test('answers: decoded as protobufjs decodes them', () => {
  const cases: Array<[keyof typeof proto, string, object]> = [
    ['range', 'RangeResponse', { header, kvs: [kv(1), kv(2), kv(3)], more: true, count: 3 }],
    ['range', 'RangeResponse', { header, kvs: [], more: false, count: 0 }],
    ['range', 'RangeResponse', { kvs: [{ key: Buffer.from('k') }] }],
    ['deleteRange', 'DeleteRangeResponse', { header, deleted: 1, prev_kvs: [kv(4)] }],
    ['txn', 'TxnResponse', { header, succeeded: true, responses: [{ response_put: { header, prev_kv: kv(5) } }] }],
    ['txn', 'TxnResponse', { header, succeeded: false, responses: [{ response_range: { header, kvs: [kv(6)], count: 1 } }] }],
    ['txn', 'TxnResponse', { header, succeeded: true, responses: [{ response_delete_range: { header, deleted: 1, prev_kvs: [kv(7)] } }] }],
    ['txn', 'TxnResponse', { header, succeeded: true, responses: [] }],
    ['watch', 'WatchResponse', { header, watch_id: 3, created: true }],
    ['watch', 'WatchResponse', { header, watch_id: 3, canceled: true, compact_revision: 77, cancel_reason: 'mvcc: required revision has been compacted' }],
    ['watch', 'WatchResponse', { header, watch_id: 3, fragment: true, events: [{ type: 0, kv: kv(8) }, { type: 1, kv: { key: Buffer.from('gone'), mod_revision: 300 }, prev_kv: kv(9) }, { type: 0, kv: kv(10), prev_kv: kv(11) }] }],
    ['watch', 'WatchResponse', { header }],
  ];
  for (const [method, name, answer] of cases) {
    const t = type(name);
    const bytes = Buffer.from(t.encode(t.fromObject(answer)).finish());
    const expected = plain(t, bytes) as Record<string, unknown>;
    const got = normal(proto[method].deserialize(bytes)) as Record<string, unknown>;
    // The fields the backend reads: wire.ts leaves the header's ids and the watch id out.
    const strip = (o: unknown): unknown => {
      if (Array.isArray(o)) return o.map(strip);
      if (o === null || typeof o !== 'object') return o;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(o)) {
        if (['cluster_id', 'member_id', 'raft_term', 'watch_id', 'fragment'].includes(k)) continue;
        if (k === 'header' && v !== null && Object.keys(v as object).length === 0) continue;
        out[k] = strip(v);
      }
      return out;
    };
    const e = strip(expected) as Record<string, unknown>;
    const g = strip(got) as Record<string, unknown>;
    // protobufjs leaves an absent message field out; wire.ts holds it as null.
    for (const k of Object.keys(g)) if (g[k] === null && !(k in e)) delete g[k];
    const h = e['header'] as { revision: number } | null | undefined;
    assert.deepEqual(g['header'] ?? null, h == null ? null : { revision: h.revision });
    delete e['header'];
    delete g['header'];
    const deepNulls = (o: unknown): unknown => {
      if (Array.isArray(o)) return o.map(deepNulls);
      if (o === null || typeof o !== 'object') return o;
      return Object.fromEntries(Object.entries(o).filter(([k, v]) => !(v === null || (k === 'header' && typeof v === 'object'))).map(([k, v]) => [k, deepNulls(v)]));
    };
    assert.deepEqual(deepNulls(g), deepNulls(e), `${name} ${JSON.stringify(answer).slice(0, 120)}`);
  }
});

test('answers: the lease of a key decodes to its value, above 2^53 approximately', () => {
  const t = type('RangeResponse');
  const bytes = Buffer.from(t.encode(t.fromObject({ kvs: [kv(2)] })).finish());
  const lease = decodeRangeResponse(bytes).kvs[0]!.lease as number;
  assert.ok(Math.abs(lease - 7587869387455123456) < 2048);
});

test('answers: a truncated or malformed message is an error', () => {
  const t = type('RangeResponse');
  const bytes = Buffer.from(t.encode(t.fromObject({ header, kvs: [kv(1)], count: 1 })).finish());
  for (let cut = 1; cut < bytes.length; cut += 7) {
    assert.throws(() => decodeRangeResponse(bytes.subarray(0, cut)), WireError, `cut at ${cut}`);
  }
  assert.throws(() => decodeRangeResponse(Buffer.from([0x0b])), WireError); // wire type 3 (groups)
});
