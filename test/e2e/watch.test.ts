// Watch streams over real HTTP: newline-delimited JSON events in order, the
// legacy /watch/ paths, timeoutSeconds, and streams ending when the server stops.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WatchStream, configMap, get, request } from '../helpers/http.js';

let server: TestServer;
let base: string;
const CM = '/api/v1/namespaces/watched/configmaps';

before(async () => {
  server = await startTestServer();
  base = server.url;
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } } });
});
after(() => server.stop());

test('ADDED, MODIFIED, DELETED arrive in order on ?watch=true', async (t) => {
  const list = await get(base, CM);
  const stream = await WatchStream.open(base, `${CM}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  assert.equal(stream.contentType, 'application/json');

  await request(base, 'POST', CM, { body: configMap('w1') });
  await request(base, 'PATCH', `${CM}/w1`, { raw: JSON.stringify({ data: { key: 'v2' } }), headers: { 'content-type': 'application/merge-patch+json' } });
  await request(base, 'DELETE', `${CM}/w1`);

  const added = await stream.next();
  assert.equal(added?.type, 'ADDED');
  assert.equal(added?.object.metadata.name, 'w1');
  assert.equal(added?.object.kind, 'ConfigMap');
  const modified = await stream.next();
  assert.equal(modified?.type, 'MODIFIED');
  assert.deepEqual(modified?.object.data, { key: 'v2' });
  const deleted = await stream.next();
  assert.equal(deleted?.type, 'DELETED');
  assert.equal(deleted?.object.metadata.name, 'w1');
  assert.ok(Number(modified?.object.metadata.resourceVersion) > Number(added?.object.metadata.resourceVersion));
});

test('the legacy /api/v1/watch/ path watches one named object', async (t) => {
  await request(base, 'POST', CM, { body: configMap('named') });
  await request(base, 'POST', CM, { body: configMap('other') });
  const stream = await WatchStream.open(base, `/api/v1/watch/namespaces/watched/configmaps/named`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  // Without a resourceVersion the watch starts with the current state.
  const initial = await stream.next();
  assert.equal(initial?.type, 'ADDED');
  assert.equal(initial?.object.metadata.name, 'named');
  await request(base, 'PATCH', `${CM}/other`, { raw: '{"data":{"x":"1"}}', headers: { 'content-type': 'application/merge-patch+json' } });
  await request(base, 'PATCH', `${CM}/named`, { raw: '{"data":{"x":"2"}}', headers: { 'content-type': 'application/merge-patch+json' } });
  const modified = await stream.next();
  assert.equal(modified?.type, 'MODIFIED');
  assert.equal(modified?.object.metadata.name, 'named');
});

test('timeoutSeconds ends the stream cleanly', async (t) => {
  const started = Date.now();
  const stream = await WatchStream.open(base, `/api/v1/watch/namespaces/watched/secrets?timeoutSeconds=1`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  assert.equal(await stream.next(4000), undefined);
  assert.ok(Date.now() - started >= 900);
});

test('a watch asked for in YAML is 406', async () => {
  const reply = await get(base, `${CM}?watch=true`, { accept: 'application/yaml' });
  assert.equal(reply.status, 406);
  // The error itself is negotiated like any response: this client reads YAML.
  assert.equal(reply.contentType, 'application/yaml');
  assert.equal(YAML.parse(reply.text).message, 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch');
});

test('stopping the server ends open watches', async () => {
  const own = await startTestServer({ storage: 'memory' });
  const stream = await WatchStream.open(own.url, '/api/v1/namespaces?watch=1');
  try {
    assert.equal(stream.status, 200);
    const stopped = own.stop();
    // Drain whatever initial events there are; the stream must then end.
    for (let i = 0; i < 100; i++) if ((await stream.next(5000)) === undefined) break;
    await stopped;
  } finally {
    stream.close();
    await own.stop();
  }
});
