// A request whose client leaves before the answer goes on, as upstream's
// does: the object is created, and the request is counted in
// apiserver_request_total with the code it got (201), not with the 200 a
// response starts with. A slow admission webhook holds the create.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request as undiciRequest } from 'undici';
import { startTestServer } from '../helpers/server.js';
import { get, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { allow, configMapHook, startWebhookServer, webhookConfiguration } from '../helpers/webhook-server.js';

test('a create whose client left is still made and counted with its own code', async (t) => {
  const hook = await startWebhookServer();
  t.after(() => hook.stop());
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  hook.on('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return allow();
  });
  assert.equal((await request(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'gone' } } })).status, 201);
  const config = webhookConfiguration('ValidatingWebhookConfiguration', 'slow', [
    configMapHook('slow.example.com', hook.url('/slow'), hook.caBundle, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gone' } } }),
  ]);
  assert.equal((await request(base, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: config })).status, 201);
  // Creates until one goes through the webhook: its configuration is then in effect.
  let creates = 0;
  await until('the webhook in effect', async () => {
    assert.equal((await request(base, 'POST', '/api/v1/namespaces/gone/configmaps', { body: { metadata: { name: `probe-${creates++}` } } })).status, 201);
    return (hook.received.get('/slow')?.length ?? 0) > 0;
  }, 10_000, 20);

  const abort = new AbortController();
  const leaving = undiciRequest(`${base}/api/v1/namespaces/gone/configmaps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'left-behind' } }),
    signal: abort.signal,
  });
  setTimeout(() => abort.abort(), 100);
  await assert.rejects(leaving);
  creates++;

  await until('the create done without its client', async () => (await get(base, '/api/v1/namespaces/gone/configmaps/left-behind')).status === 200, 5000, 50);
  const metrics = (await get(base, '/metrics')).text;
  assert.match(metrics, new RegExp(`apiserver_request_total\\{verb="POST",resource="configmaps",code="201"\\} ${creates}\n`));
  assert.doesNotMatch(metrics, /apiserver_request_total\{verb="POST",resource="configmaps",code="200"\}/);
});
