// The resource quota controller, a client of the API: it fills a new quota's
// status, follows spec.hard changes, releases usage on deletes, and a full
// resync (--resource-quota-sync-period) puts back the truth when status.used
// went wrong (here: written by hand through /status).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import { request } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createNamespace, createQuota, getQuota, waitUsed } from './helpers.js';
import { until } from '../helpers/wait.js';

let server: TestServer;
let client: RestClient;
let controllers: RunningControllerManager;

before(async () => {
  server = await startTestServer();
  client = new RestClient({ server: server.url });
  controllers = startControllerManager({
    client,
    controllers: { namespace: false, systemNamespaces: false, resourceQuota: true },
    resourceQuotaSyncPeriodMs: 500,
  });
  await createNamespace(server.url, 'c');
});
after(async () => {
  await controllers?.stop();
  await client?.close();
  await server?.stop();
});

const mergePatch = (path: string, body: unknown) =>
  request(server.url, 'PATCH', path, { raw: JSON.stringify(body), headers: { 'content-type': 'application/merge-patch+json' } });

describe('resource quota controller', () => {
  test('a new quota gets status.hard and the usage already there', async () => {
    for (const name of ['a', 'b', 'c']) {
      assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/c/configmaps', { body: { metadata: { name } } })).status, 201);
    }
    const q = await createQuota(server.url, 'c', 'existing', { hard: { configmaps: '10', 'count/secrets': '5', 'requests.cpu': '2' } });
    assert.deepEqual(q.status, {
      hard: { configmaps: '10', 'count/secrets': '5', 'requests.cpu': '2' },
      used: { configmaps: '3', 'count/secrets': '0', 'requests.cpu': '0' },
    });
  });

  test('a spec.hard change is followed: new names measured, removed names dropped', async () => {
    const r = await mergePatch('/api/v1/namespaces/c/resourcequotas/existing', { spec: { hard: { 'count/secrets': null, 'count/configmaps': '20' } } });
    assert.equal(r.status, 200, r.text);
    await until('status follows spec', async () => {
      const q = await getQuota(server.url, 'c', 'existing');
      return JSON.stringify(q.status) === JSON.stringify({
        hard: { configmaps: '10', 'count/configmaps': '20', 'requests.cpu': '2' },
        used: { configmaps: '3', 'count/configmaps': '3', 'requests.cpu': '0' },
      });
    });
  });

  test('deletes release usage; the full resync corrects a wrong status.used', async () => {
    assert.equal((await request(server.url, 'DELETE', '/api/v1/namespaces/c/configmaps/a')).status, 200);
    await waitUsed(server.url, 'c', 'existing', { configmaps: '2', 'count/configmaps': '2' }, 2000);
    const wrong = await mergePatch('/api/v1/namespaces/c/resourcequotas/existing/status', { status: { used: { configmaps: '9' } } });
    assert.equal(wrong.status, 200, wrong.text);
    assert.equal(wrong.json.status.used.configmaps, '9');
    // Nothing in the namespace changes: only the periodic resync (500 ms here) can fix it.
    await waitUsed(server.url, 'c', 'existing', { configmaps: '2' }, 3000);
  });
});
