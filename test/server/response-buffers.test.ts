// Large list bodies are spliced into reused buffers (src/server/response-buffers.ts,
// list-json.ts). The bytes must be JSON.stringify's, and a buffer must never be
// reused while a client is still being sent the body it holds: a slow reader's
// multi-megabyte list stays pending in the socket while other lists of the
// same size are answered, and must arrive intact.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { markImmutable } from '../../src/machinery/json-memo.js';
import { ItemRuns, listJSONParts, splicedListJSON } from '../../src/server/list-json.js';
import { BODY_MIN, ResponseBuffers, responseBuffers } from '../../src/server/response-buffers.js';
import { writeNegotiated } from '../../src/server/responses.js';

const frozen = <T extends object>(value: T): T => markImmutable(Object.freeze(value));

test('splicedListJSON writes JSON.stringify(list) + trailer into the buffer it is given', () => {
  const a = frozen({ metadata: frozen({ name: 'a' }), data: frozen({ k: 'é✓😀' }) });
  const b = { metadata: { name: 'b' }, skipped: undefined };
  const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '7' }, items: [a, b, null, 3, a] };
  const sizes: number[] = [];
  const body = splicedListJSON(list, '\n', (n) => {
    sizes.push(n);
    return Buffer.alloc(n, 0xff);
  });
  assert.equal(body!.toString(), JSON.stringify(list) + '\n');
  assert.deepEqual(sizes, [body!.length], 'one allocation of the exact size');
  assert.equal(splicedListJSON({ ...list, items: [b] }, '', Buffer.allocUnsafe), undefined, 'no kept item: not spliced');
  assert.equal(splicedListJSON({ items: [a], kind: 'List' } as { items?: unknown }, '', Buffer.allocUnsafe), undefined, 'items not last: not spliced');
});

test('the pool hands a released buffer out again, holds no small ones and keeps to its limit', () => {
  const pool = new ResponseBuffers(3 * 1024 * 1024);
  const small = pool.acquire(BODY_MIN - 1);
  pool.release(small);
  assert.equal(pool.idle, 0);
  const first = pool.acquire(700_000);
  assert.equal(first.length, 700_000);
  first[0] = 42;
  pool.release(first);
  assert.equal(pool.idle, 1024 * 1024);
  const again = pool.acquire(600_000);
  assert.equal(again.length, 600_000);
  assert.equal(again.buffer, first.buffer, 'the same memory serves a body of about its size');
  assert.equal(pool.idle, 0);
  const other = pool.acquire(600_000);
  assert.notEqual(other.buffer, again.buffer, 'a buffer in use is not handed out twice');
  pool.release(again);
  pool.release(again);
  assert.equal(pool.idle, 1024 * 1024, 'a second release of the same view is ignored');
  pool.release(other);
  pool.release(pool.acquire(2 * 1024 * 1024));
  assert.equal(pool.idle, 2 * 1024 * 1024, 'beyond the limit a buffer is left to the collector');
});

test('a sequence of kept items served again is written from its kept run, and only while it is the same', () => {
  const runs = new ItemRuns({ bytes: 1000, entries: 2, items: 10 });
  const item = (name: string): object => frozen({ metadata: frozen({ name }), data: frozen({ k: 'é✓' }) });
  const [a, b, c] = [item('a'), item('b'), item('c')];
  const list = (rv: string, items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: rv }, items });
  const allocated: number[] = [];
  const allocate = (n: number): Buffer => {
    allocated.push(n);
    return Buffer.allocUnsafe(n);
  };
  const served = (l: object): { text: string; parts: number } => {
    const body = listJSONParts(l, '\n', runs, allocate)!;
    const bytes = Buffer.concat(body.parts);
    assert.equal(bytes.length, body.size);
    return { text: bytes.toString(), parts: body.parts.length };
  };
  for (const [rv, items, parts] of [
    ['1', [a, b], 1], // first seen: spliced whole
    ['2', [a, b], 3], // seen again: head, kept run, tail (a new resourceVersion in the head)
    ['3', [a, b], 3],
    ['4', [a, c], 1], // changed: spliced again
    ['5', [a, b, c], 1],
    ['6', [a, b, c], 3],
  ] as const) {
    const l = list(rv, [...items]);
    const got = served(l);
    assert.equal(got.text, JSON.stringify(l) + '\n', `list ${rv}`);
    assert.equal(got.parts, parts, `list ${rv}: parts`);
  }
  assert.ok(runs.heldBytes > 0 && runs.heldBytes <= 1000);
  // Not kept objects are never kept as a run.
  const loose = [{ metadata: { name: 'x' } }, a];
  for (let i = 0; i < 3; i++) assert.equal(served(list('7', loose)).parts, 1);
  // A run over the byte limit is not kept.
  const many = Array.from({ length: 10 }, (_, i) => frozen({ metadata: frozen({ name: `m${i}` }), data: frozen({ k: 'x'.repeat(200) }) }));
  for (let i = 0; i < 3; i++) assert.equal(served(list('8', many)).parts, 1);
});

/** A list of `count` kept items whose payloads all carry `tag` (so two lists differ in every item but not in size). */
function listOf(tag: string, count: number): object {
  const items = [];
  for (let i = 0; i < count; i++) {
    items.push(frozen({ metadata: frozen({ name: `cm-${String(i).padStart(5, '0')}` }), data: frozen({ payload: `${tag}-${'x'.repeat(1000)}` }) }));
  }
  return { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: tag }, items };
}

test('a slow reader gets its whole list while other lists of the same size are answered from the pool', async (t) => {
  // About 6 MB: far more than the kernel buffers of a connection whose reader does not read.
  // /b and /c are new lists each round (new objects): never a kept run of items (list-json.ts), always the pool's.
  const lists: Record<string, object> = { '/a': listOf('aaaa', 5800) };
  const server = http.createServer((req, res) => writeNegotiated(req, res, 200, lists[req.url!], { mediaType: 'application/json', pretty: false }));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const port = (server.address() as net.AddressInfo).port;

  // The slow reader: asks for /a and reads nothing until the others are done.
  const slow = net.connect(port, '127.0.0.1');
  await once(slow, 'connect');
  slow.pause();
  slow.write('GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  // Its answer is written (and stays pending) before the others ask.
  await new Promise((resolve) => setTimeout(resolve, 200));

  const fetchText = async (path: string): Promise<string> => (await fetch(`http://127.0.0.1:${port}${path}`)).text();
  for (let round = 0; round < 3; round++) {
    lists['/b'] = listOf(`b${round}b`, 5800);
    lists['/c'] = listOf(`c${round}c`, 5800);
    const [b, c] = await Promise.all([fetchText('/b'), fetchText('/c')]);
    assert.equal(b, JSON.stringify(lists['/b']) + '\n');
    assert.equal(c, JSON.stringify(lists['/c']) + '\n');
  }
  // The server learns that its last bytes left a moment after the client has read them.
  for (let i = 0; i < 100 && responseBuffers.idle === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(responseBuffers.idle > 0, 'the fast lists gave their buffers back');

  const chunks: Buffer[] = [];
  slow.on('data', (chunk: Buffer) => chunks.push(chunk));
  slow.resume();
  await once(slow, 'end');
  const raw = Buffer.concat(chunks).toString();
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  assert.equal(body.length, JSON.stringify(lists['/a']).length + 1);
  assert.ok(body === JSON.stringify(lists['/a']) + '\n', 'the slow reader got its own list, byte for byte');
});
