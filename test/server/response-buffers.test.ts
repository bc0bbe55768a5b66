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
import { splicedListJSON } from '../../src/server/list-json.js';
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
  assert.equal(splicedListJSON({ items: [a], kind: 'List' }, '', Buffer.allocUnsafe), undefined, 'items not last: not spliced');
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
  const lists: Record<string, object> = { '/a': listOf('aaaa', 5800), '/b': listOf('bbbb', 5800), '/c': listOf('cccc', 5800) };
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
    const [b, c] = await Promise.all([fetchText('/b'), fetchText('/c')]);
    assert.equal(b, JSON.stringify(lists['/b']) + '\n');
    assert.equal(c, JSON.stringify(lists['/c']) + '\n');
  }
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
