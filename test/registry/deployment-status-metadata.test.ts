// A Deployment's /status write keeps its metadata changes except labels, and
// never its spec, as upstream's deploymentStatusStrategy (found by
// controller-runtime's pkg/client suite: "should patch status and preserve
// type information" patches an annotation through /status).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../src/testing/index.js';

interface Deployment {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string>; generation?: number; resourceVersion?: string };
  spec: { replicas: number };
  status?: { observedGeneration?: number };
}

test('deployment /status: annotations kept, labels and spec as stored', async (t) => {
  const server = await startTestServer({ kubeConfig: false });
  t.after(() => server.stop());
  const base = `${server.url}/apis/apps/v1/namespaces/default/deployments`;
  const send = async (method: string, url: string, body: unknown, type = 'application/json'): Promise<{ status: number; body: Deployment }> => {
    const res = await fetch(url, { method, headers: { 'content-type': type }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Deployment };
  };
  const created = await send('POST', base, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { tier: 'front' } },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const patched = await send(
    'PATCH',
    `${base}/web/status`,
    { metadata: { annotations: { note: 'kept' }, labels: { tier: 'back' } }, spec: { replicas: 5 }, status: { observedGeneration: 1 } },
    'application/merge-patch+json',
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  const stored = (await (await fetch(`${base}/web`)).json()) as Deployment;
  assert.deepEqual(stored.metadata.annotations, { note: 'kept' });
  assert.deepEqual(stored.metadata.labels, { tier: 'front' });
  assert.equal(stored.spec.replicas, 1);
  assert.equal(stored.metadata.generation, 1);
  assert.equal(stored.status?.observedGeneration, 1);
});
