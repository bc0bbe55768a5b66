// The etcd client's own HTTP/2 connection (src/storage/etcd/h2.ts, hpack.ts)
// under the unary gRPC channel (unary.ts): RFC 7541's decoding examples, and
// calls against a real HTTP/2 server (node:http2, nghttp2's framing and
// HPACK) for what etcd rarely shows: error statuses, trailers-only answers,
// bodies beyond the flow-control windows, CONTINUATION frames, GOAWAY,
// deadlines, dropped connections and reconnection. The calls against etcd
// itself are the conformance suite (etcd.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { HpackDecoder } from '../../src/storage/etcd/hpack.js';
import { UnaryCallError, UnaryChannel } from '../../src/storage/etcd/unary.js';
import type { Method } from '../../src/storage/etcd/protocol.js';
import { neverSent } from '../../src/storage/etcd/errors.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

test('HPACK: RFC 7541 C.4, requests with Huffman coding and the dynamic table', () => {
  const decoder = new HpackDecoder();
  assert.deepEqual(decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'www.example.com'],
  ]);
  assert.deepEqual(decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf')), [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'www.example.com'],
    ['cache-control', 'no-cache'],
  ]);
  assert.deepEqual(decoder.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), [
    [':method', 'GET'],
    [':scheme', 'https'],
    [':path', '/index.html'],
    [':authority', 'www.example.com'],
    ['custom-key', 'custom-value'],
  ]);
});

test('HPACK: RFC 7541 C.6, responses evicting from a 256-byte table', () => {
  const decoder = new HpackDecoder(256);
  // The table size is the encoder's choice within the limit; C.6 runs at 256.
  decoder.decode(Buffer.from([0x3f, 0xe1, 0x01]));
  assert.deepEqual(
    decoder.decode(hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3')),
    [
      [':status', '302'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['location', 'https://www.example.com'],
    ],
  );
  assert.deepEqual(decoder.decode(hex('4883 640e ffc1 c0bf')), [
    [':status', '307'],
    ['cache-control', 'private'],
    ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
    ['location', 'https://www.example.com'],
  ]);
  assert.deepEqual(
    decoder.decode(
      hex(
        '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
      ),
    ),
    [
      [':status', '200'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
      ['location', 'https://www.example.com'],
      ['content-encoding', 'gzip'],
      ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
    ],
  );
});

test('HPACK: a bad Huffman code or padding, an index past the table', () => {
  assert.throws(() => new HpackDecoder().decode(Buffer.from([0x00, 0x81, 0x00, 0x81, 0x00])), /Huffman/);
  assert.throws(() => new HpackDecoder().decode(Buffer.from([0xbe])), /out of range/);
});

/** A method whose messages are the raw bytes. */
function grpcFrame(message: Buffer): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

const raw: Method = {
  path: '/test.Echo/Call',
  serialize: (v) => (v as { bytes: Buffer }).bytes,
  deserialize: (b) => Buffer.from(b),
  frame: (v) => grpcFrame((v as { bytes: Buffer }).bytes),
};

type Handler = (stream: http2.ServerHttp2Stream, body: Buffer, headers: http2.IncomingHttpHeaders) => void;

async function server(handler: Handler): Promise<{ endpoint: string; server: http2.Http2Server; sessions: Set<http2.ServerHttp2Session> }> {
  const sessions = new Set<http2.ServerHttp2Session>();
  const srv = http2.createServer({ maxSessionMemory: 100 });
  srv.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  srv.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => handler(stream, Buffer.concat(chunks), headers));
    stream.on('error', () => {});
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, server: srv, sessions };
}

function stop(srv: http2.Http2Server, sessions: Set<http2.ServerHttp2Session>): Promise<void> {
  for (const s of sessions) s.destroy();
  return new Promise((resolve) => srv.close(() => resolve()));
}

async function failure(p: Promise<unknown>): Promise<UnaryCallError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof UnaryCallError, String(err));
    return err;
  }
  assert.fail('the call succeeded');
}

test('unary calls over h2.ts against a real HTTP/2 server', async (t) => {
  const seen: http2.IncomingHttpHeaders[] = [];
  const { endpoint, server: srv, sessions } = await server((stream, body, headers) => {
    seen.push(headers);
    const message = body.subarray(5);
    const text = message.toString('latin1');
    if (text === 'status') {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.end();
      stream.on('wantTrailers', () => {});
      return;
    }
    if (text === 'trailers-only') {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '9', 'grpc-message': 'etcdserver: mvcc: required revision has been compacted' }, { endStream: true });
      return;
    }
    if (text === 'http-503') {
      stream.respond({ ':status': 503 }, { endStream: true });
      return;
    }
    if (text === 'silent') return; // never answers
    if (text === 'big-answer') {
      // Past this client's 16 MiB stream and connection windows: it must send WINDOW_UPDATEs.
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(grpcFrame(Buffer.alloc(20 * 1024 * 1024 + 3, 'a')));
      return;
    }
    if (text === 'refuse') {
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    if (text === 'drop') {
      stream.session?.destroy();
      return;
    }
    if (text === 'big-headers') {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'x-big': 'b'.repeat(40_000) }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(grpcFrame(Buffer.from('ok')));
      return;
    }
    const fail = /^fail (\d+) (.*)$/s.exec(text);
    if (text === 'slow') {
      setTimeout(() => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(grpcFrame(message));
      }, 150);
      return;
    }
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () =>
      stream.sendTrailers(fail ? { 'grpc-status': fail[1]!, 'grpc-message': encodeURIComponent(fail[2]!) } : { 'grpc-status': '0' }),
    );
    stream.end(fail ? undefined : grpcFrame(message));
  });
  const channel = new UnaryChannel(endpoint);
  const call = (text: string | Buffer, deadlineMs = 5000): Promise<unknown> =>
    channel.call(raw, { bytes: typeof text === 'string' ? Buffer.from(text, 'latin1') : text }, Date.now() + deadlineMs);
  t.after(async () => {
    channel.close();
    await stop(srv, sessions);
  });

  await t.test('an echo, and the request headers gRPC needs', async () => {
    assert.deepEqual(await call('hello'), Buffer.from('hello'));
    const h = seen.at(-1)!;
    assert.equal(h[':method'], 'POST');
    assert.equal(h[':path'], '/test.Echo/Call');
    assert.equal(h['content-type'], 'application/grpc');
    assert.equal(h['te'], 'trailers');
    assert.match(String(h['grpc-timeout']), /^\d+m$/);
  });

  await t.test('many calls at once share the connection', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(`n${i}`)));
    assert.deepEqual(answers, Array.from({ length: 200 }, (_, i) => Buffer.from(`n${i}`)));
    assert.equal(sessions.size, 1);
  });

  await t.test('bodies beyond the flow-control windows, both ways', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 'v');
    const answers = await Promise.all([call(big), call(big), call('small')]);
    assert.ok((answers[0] as Buffer).equals(big));
    assert.ok((answers[1] as Buffer).equals(big));
    assert.deepEqual(answers[2], Buffer.from('small'));
    const [first, second] = await Promise.all([call('big-answer', 20_000), call('big-answer', 20_000)]);
    assert.equal((first as Buffer).length, 20 * 1024 * 1024 + 3);
    assert.ok((second as Buffer).equals(first as Buffer));
  });

  await t.test('grpc-status and its percent-encoded, Huffman-coded message', async () => {
    const err = await failure(call('fail 5 etcdserver: key not found / 100% sure'));
    assert.equal(err.code, 5);
    assert.equal(err.details, 'etcdserver: key not found / 100% sure');
  });

  await t.test('a trailers-only answer', async () => {
    const err = await failure(call('trailers-only'));
    assert.equal(err.code, 9);
    assert.equal(err.details, 'etcdserver: mvcc: required revision has been compacted');
  });

  await t.test('no grpc-status, or an HTTP error', async () => {
    const missing = await failure(call('status'));
    assert.equal(missing.code, 14);
    const http = await failure(call('http-503'));
    assert.equal(http.code, 14);
    assert.equal(http.details, 'Received HTTP status code 503');
  });

  await t.test('headers in CONTINUATION frames', async () => {
    assert.deepEqual(await call('big-headers'), Buffer.from('ok'));
  });

  await t.test('a deadline cancels the stream', async () => {
    const started = Date.now();
    const err = await failure(call('silent', 200));
    assert.equal(err.code, 4);
    assert.ok(Date.now() - started < 2000);
    assert.deepEqual(await call('after'), Buffer.from('after'));
  });

  await t.test('a dropped connection fails what was sent; the next call reconnects', async () => {
    const pending = failure(call('silent'));
    const dropped = await failure(call('drop'));
    assert.equal(dropped.code, 14);
    assert.match(dropped.details, /^Connection dropped/);
    assert.equal(neverSent(dropped), false);
    assert.match((await pending).details, /^Connection dropped/);
    assert.deepEqual(await call('again'), Buffer.from('again'));
  });

  await t.test('a stream refused unprocessed fails as never sent', async () => {
    const err = await failure(call('refuse'));
    assert.equal(err.code, 14);
    assert.equal(neverSent(err), true, err.details);
  });

  await t.test('a GOAWAY lets the streams it covers finish; later calls use a new connection', async () => {
    const pending = call('slow');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const before = [...sessions];
    for (const s of before) s.close();
    assert.deepEqual(await pending, Buffer.from('slow'));
    assert.deepEqual(await call('after goaway'), Buffer.from('after goaway'));
    assert.ok([...sessions].every((s) => !before.includes(s)));
  });
});

test('unary calls: no server to connect to', async () => {
  const srv = await server(() => {});
  const endpoint = srv.endpoint;
  await stop(srv.server, srv.sessions);
  const channel = new UnaryChannel(endpoint);
  const err = await failure(channel.call(raw, { bytes: Buffer.from('x') }, Date.now() + 2000));
  channel.close();
  assert.equal(err.code, 14);
  assert.equal(neverSent(err), true, err.details);
});

test('bidirectional calls (the watch) over h2.ts', async (t) => {
  const closed: number[] = [];
  const srv = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  srv.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  srv.on('stream', (stream, headers) => {
    stream.on('close', () => closed.push(stream.rstCode));
    stream.on('error', () => {});
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    let buffered = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
        const message = buffered.subarray(5, 5 + buffered.readUInt32BE(1));
        buffered = buffered.subarray(5 + message.length);
        const text = message.length < 100 ? message.toString('latin1') : '';
        if (text === 'end ok' || text === 'end 14') {
          stream.on('wantTrailers', () => stream.sendTrailers(text === 'end ok' ? { 'grpc-status': '0' } : { 'grpc-status': '14', 'grpc-message': 'etcdserver: no leader' }));
          stream.end();
          return;
        }
        // Echo, with the metadata it was opened with for the first message.
        stream.write(grpcFrame(text === 'meta' ? Buffer.from(String(headers['hasleader'])) : message));
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const channel = new UnaryChannel(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`);
  t.after(async () => {
    channel.close();
    await stop(srv, sessions);
  });
  const open = (): { stream: ReturnType<UnaryChannel['stream']>; messages: Buffer[]; ended: Promise<UnaryCallError | 'ok'> } => {
    const messages: Buffer[] = [];
    let settle: (v: UnaryCallError | 'ok') => void = () => {};
    const ended = new Promise<UnaryCallError | 'ok'>((resolve) => (settle = resolve));
    const stream = channel.stream(raw, [['hasleader', 'true']], {
      onMessage: (m) => messages.push(m as Buffer),
      onEnd: () => settle('ok'),
      onError: (err) => settle(err),
    });
    return { stream, messages, ended };
  };
  const until = async (check: () => boolean): Promise<void> => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(check());
  };

  await t.test('messages both ways, the metadata, an OK end', async () => {
    const { stream, messages, ended } = open();
    stream.write({ bytes: Buffer.from('meta') });
    stream.write({ bytes: Buffer.from('one') });
    const big = Buffer.alloc(200_000, 'w');
    stream.write({ bytes: big });
    await until(() => messages.length === 3);
    assert.deepEqual(messages.slice(0, 2), [Buffer.from('true'), Buffer.from('one')]);
    assert.ok(messages[2]!.equals(big));
    stream.write({ bytes: Buffer.from('end ok') });
    assert.equal(await ended, 'ok');
  });

  await t.test('an error status ends it with that status', async () => {
    const { stream, ended } = open();
    stream.write({ bytes: Buffer.from('end 14') });
    const err = await ended;
    assert.ok(err instanceof UnaryCallError);
    assert.equal(err.code, 14);
    assert.equal(err.details, 'etcdserver: no leader');
  });

  await t.test('cancel resets the stream and silences its handlers', async () => {
    const { stream, messages, ended } = open();
    stream.write({ bytes: Buffer.from('x') });
    await until(() => messages.length === 1);
    const before = closed.length;
    stream.cancel();
    await until(() => closed.length === before + 1);
    assert.equal(closed.at(-1), http2.constants.NGHTTP2_CANCEL);
    const outcome = await Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve('silent'), 100))]);
    assert.equal(outcome, 'silent');
  });

  await t.test('a dropped connection ends it as Unavailable', async () => {
    const { stream, messages, ended } = open();
    stream.write({ bytes: Buffer.from('y') });
    await until(() => messages.length === 1);
    for (const s of sessions) s.destroy();
    const err = await ended;
    assert.ok(err instanceof UnaryCallError);
    assert.equal(err.code, 14);
  });
});
