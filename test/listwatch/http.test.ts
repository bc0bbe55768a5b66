// List and watch over real HTTP against a real server (sqlite, watch cache
// on): ListOptions validation, 504 with Retry-After, 410 for compacted
// continue tokens and too-old watches, slow watchers ended without blocking
// writers, and the real kubectl's chunked list and watches.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runKubectl } from '../helpers/kubectl.js';
import { WatchStream, configMap, get, request } from '../helpers/http.js';

async function withNamespace(server: TestServer, ns: string): Promise<void> {
  const reply = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  assert.equal(reply.status, 201, reply.text);
}

async function create(server: TestServer, ns: string, name: string, data?: Record<string, string>): Promise<number> {
  const reply = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(name, data) });
  assert.equal(reply.status, 201, reply.text);
  return Number(reply.json.metadata.resourceVersion);
}

test('list/watch options over HTTP: upstream statuses, table-driven', async (t) => {
  const server = await startTestServer({ storage: 'sqlite', watchCache: { waitTimeoutMs: 300 } });
  t.after(() => server.stop());
  await withNamespace(server, 'lw');
  const rv = await create(server, 'lw', 'a');
  const base = '/api/v1/namespaces/lw/configmaps';
  const invalid = (detail: string) => `ListOptions.meta.k8s.io "" is invalid: ${detail}`;
  const rows: Array<{ query: string; code: number; reason?: string; message?: string }> = [
    { query: '', code: 200 },
    { query: 'resourceVersion=0', code: 200 },
    { query: `resourceVersion=${rv}&resourceVersionMatch=Exact`, code: 200 },
    { query: 'resourceVersionMatch=NotOlderThan', code: 422, reason: 'Invalid', message: invalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided') },
    { query: 'resourceVersion=0&resourceVersionMatch=Exact', code: 422, reason: 'Invalid', message: invalid('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"') },
    { query: 'resourceVersion=1&resourceVersionMatch=Newest', code: 422, reason: 'Invalid', message: invalid('resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""') },
    { query: 'resourceVersion=1&resourceVersionMatch=Exact&continue=abc', code: 422, reason: 'Invalid', message: invalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided') },
    { query: 'sendInitialEvents=true', code: 422, reason: 'Invalid', message: invalid('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list') },
    { query: 'watch=1&resourceVersionMatch=NotOlderThan', code: 422, reason: 'Invalid', message: invalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided') },
    { query: 'watch=1&sendInitialEvents=true', code: 422, reason: 'Invalid', message: invalid('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan') },
    { query: 'resourceVersion=abc', code: 400, reason: 'BadRequest', message: 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax' },
    { query: 'continue=%25%25', code: 400, reason: 'BadRequest', message: 'invalid continue token: continue key is not valid: illegal base64 data at input byte 0' },
    // The token is read before the resourceVersion is refused beside it (a valid token with one: registry.test.ts).
    { query: `limit=1&continue=x&resourceVersion=${rv}`, code: 400, reason: 'BadRequest', message: 'invalid continue token: continue key is not valid: illegal base64 data at input byte 0' },
    { query: `resourceVersion=${rv + 100}&resourceVersionMatch=NotOlderThan`, code: 504, reason: 'Timeout', message: `Timeout: Too large resource version: ${rv + 100}, current: ${rv}` },
    { query: `resourceVersion=${rv + 100}&resourceVersionMatch=Exact`, code: 500, reason: undefined, message: 'etcdserver: mvcc: required revision is a future revision' },
  ];
  for (const row of rows) {
    const response = await fetch(`${server.url}${base}?${row.query}`, { signal: AbortSignal.timeout(5000) });
    const body = (await response.json()) as { kind: string; code: number; reason?: string; message?: string };
    assert.equal(response.status, row.code, `${row.query}: ${JSON.stringify(body)}`);
    if (row.code === 200) continue;
    assert.equal(body.kind, 'Status', row.query);
    assert.equal(body.reason, row.reason, row.query);
    assert.equal(body.message, row.message, row.query);
    assert.equal(response.headers.get('retry-after'), row.code === 504 ? '1' : null, `Retry-After only on the 504 (${row.query})`);
  }
});

test('a compacted continue token is 410 with a fresh token; a too-old watch is an ERROR event', async (t) => {
  const server = await startTestServer({ storage: 'sqlite', compactionIntervalMs: 100, watchCache: { historySize: 4 } });
  t.after(() => server.stop());
  await withNamespace(server, 'lw');
  const first = await create(server, 'lw', 'a');
  for (const n of ['b', 'c', 'd', 'e', 'f']) await create(server, 'lw', n);
  const page = await get(server.url, '/api/v1/namespaces/lw/configmaps?limit=2');
  assert.equal(page.json.metadata.remainingItemCount, 4);
  const token = page.json.metadata.continue as string;
  await create(server, 'lw', 'g');
  // Compaction runs every 100 ms, to the revision read one round earlier.
  let reply = await get(server.url, `/api/v1/namespaces/lw/configmaps?limit=2&continue=${token}`);
  for (let i = 0; i < 40 && reply.status === 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    reply = await get(server.url, `/api/v1/namespaces/lw/configmaps?limit=2&continue=${token}`);
  }
  assert.equal(reply.status, 410, reply.text);
  assert.equal(reply.json.reason, 'Expired');
  assert.match(reply.json.message, /^The provided continue parameter is too old to display a consistent list result\./);
  const fresh = reply.json.metadata.continue as string;
  const rest = await get(server.url, `/api/v1/namespaces/lw/configmaps?limit=10&continue=${fresh}`);
  assert.equal(rest.status, 200, rest.text);
  assert.deepEqual(rest.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c', 'd', 'e', 'f', 'g']);

  const stream = await WatchStream.open(server.url, `/api/v1/namespaces/lw/configmaps?watch=1&resourceVersion=${first}`);
  assert.equal(stream.status, 200);
  const event = await stream.next();
  assert.equal(event?.type, 'ERROR');
  assert.equal(event?.object.code, 410);
  assert.equal(event?.object.reason, 'Expired');
  assert.match(event?.object.message, new RegExp(`^too old resource version: ${first} \\(\\d+\\)$`));
  assert.equal(await stream.next(), undefined, 'the stream ends after the ERROR');
});

test('bookmarks over HTTP: streaming list end marker and the clean end of timeoutSeconds', async (t) => {
  const server = await startTestServer({ storage: 'sqlite', bookmarkIntervalMs: 60_000 });
  t.after(() => server.stop());
  await withNamespace(server, 'lw');
  await create(server, 'lw', 'a');
  const stream = await WatchStream.open(
    server.url,
    '/api/v1/namespaces/lw/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1',
  );
  const types: string[] = [];
  const objects: Array<{ metadata?: { annotations?: Record<string, string>; resourceVersion?: string } }> = [];
  for (let e = await stream.next(); e !== undefined; e = await stream.next()) {
    types.push(e.type);
    objects.push(e.object);
  }
  assert.deepEqual(types, ['ADDED', 'BOOKMARK', 'BOOKMARK']);
  // The end marker carries the empty list's blueprint, in the stream's encoding (JSON, with its newline), as kube-apiserver 1.32.
  assert.deepEqual(objects[1]!.metadata?.annotations, {
    'k8s.io/initial-events-end': 'true',
    'kubernetes.io/initial-events-list-blueprint': Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null}\n').toString('base64'),
  });
  assert.deepEqual(Object.keys(objects[2]!).sort(), ['apiVersion', 'kind', 'metadata']);
  assert.deepEqual(objects[2]!.metadata, { resourceVersion: objects[2]!.metadata!.resourceVersion, creationTimestamp: null });
});

test('a watcher that stops reading is ended; the writer is never blocked', async (t) => {
  const server = await startTestServer({ storage: 'sqlite', maxWatchBufferedBytes: 256 * 1024 });
  t.after(() => server.stop());
  await withNamespace(server, 'lw');
  const url = new URL(`${server.url}/api/v1/namespaces/lw/configmaps?watch=1&resourceVersion=0`);
  // A raw client that reads the headers and then stops reading.
  let ended = false;
  let received = 0;
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.get(url, resolve);
    req.on('error', reject);
  });
  assert.equal(response.statusCode, 200);
  response.pause();
  response.on('end', () => (ended = true));
  response.on('error', () => (ended = true));
  response.on('close', () => (ended = true));

  const payload = { blob: 'x'.repeat(16 * 1024) };
  const total = 400;
  let slowest = 0;
  for (let i = 0; i < total; i += 8) {
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, (_, k) => create(server, 'lw', `big-${i + k}`, payload)));
    slowest = Math.max(slowest, Date.now() - started);
  }
  assert.ok(slowest < 2000, `writes kept going (slowest batch ${slowest} ms)`);
  response.on('data', (chunk: Buffer) => (received += chunk.toString().split('\n').length - 1));
  response.resume();
  for (let i = 0; i < 100 && !ended; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(ended, 'the server ended the slow watch');
  assert.ok(received < total, `the slow watcher did not get everything buffered (${received} of ${total})`);
});

/** Runs kubectl in the background, collecting stdout; stop() kills it. */
function kubectlStream(server: TestServer, args: string[]): { lines(): string[]; stop(): void; waitFor(pred: (lines: string[]) => boolean): Promise<void> } {
  const child = spawn('kubectl', ['--kubeconfig', server.kubeconfigPath, ...args], {
    env: { ...process.env, KUBECACHEDIR: `${server.kubeconfigPath}.cache` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const lines = () => out.split('\n').filter((l) => l.trim() !== '');
  return {
    lines,
    stop: () => child.kill('SIGKILL'),
    async waitFor(pred) {
      for (let i = 0; i < 200; i++) {
        if (pred(lines())) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`kubectl output did not arrive: ${out} / ${err}`);
    },
  };
}

test('the real kubectl: get --chunk-size, get -w, get -w --output-watch-events', async (t) => {
  const server = await startTestServer({ storage: 'sqlite' });
  t.after(() => server.stop());
  await withNamespace(server, 'lw');
  for (const n of ['k1', 'k2', 'k3', 'k4', 'k5']) await create(server, 'lw', n);

  const chunked = await runKubectl(server.kubeconfigPath, ['get', 'configmaps', '-n', 'lw', '--chunk-size=2', '-o', 'name']);
  assert.equal(chunked.code, 0, chunked.stderr);
  assert.deepEqual(chunked.stdout.trim().split('\n'), ['configmap/k1', 'configmap/k2', 'configmap/k3', 'configmap/k4', 'configmap/k5']);
  const table = await runKubectl(server.kubeconfigPath, ['get', 'configmaps', '-n', 'lw', '--chunk-size=2']);
  assert.equal(table.code, 0, table.stderr);
  assert.equal(table.stdout.trim().split('\n').length, 6, table.stdout);

  const watch = kubectlStream(server, ['get', 'configmaps', '-n', 'lw', '-w']);
  t.after(() => watch.stop());
  await watch.waitFor((l) => l.some((x) => x.startsWith('k5')));
  await create(server, 'lw', 'k6');
  await watch.waitFor((l) => l.some((x) => x.startsWith('k6')));
  watch.stop();

  const events = kubectlStream(server, ['get', 'configmaps', '-n', 'lw', '-w', '--output-watch-events']);
  t.after(() => events.stop());
  await events.waitFor((l) => l.some((x) => /^ADDED\s+k6/.test(x)));
  const del = await request(server.url, 'DELETE', '/api/v1/namespaces/lw/configmaps/k1');
  assert.equal(del.status, 200, del.text);
  await events.waitFor((l) => l.some((x) => /^DELETED\s+k1/.test(x)));
  events.stop();
});
