// A create that carries metadata.resourceVersion, as upstream answers it
// (found by controller-runtime's own pkg/client suite, dryrun_test.go): the
// storage write refuses it with a 500 "resourceVersion should not be set on
// objects to be created", so validation speaks first (422 for an invalid
// object) and a dry run, which writes nothing, succeeds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../src/testing/index.js';

test('create with a resourceVersion: 500 after validation, 422 when invalid, a dry run succeeds and stores nothing', async (t) => {
  const server = await startTestServer({ kubeConfig: false });
  t.after(() => server.stop());
  const post = async (body: unknown, query = ''): Promise<{ status: number; body: { message?: string; reason?: string; details?: unknown; metadata?: { resourceVersion?: string } } }> => {
    const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { message?: string } };
  };
  const cm = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '42' }, data: { a: '1' } });

  const dry = await post(cm('dry'), '?dryRun=All');
  assert.equal(dry.status, 201, JSON.stringify(dry.body));
  assert.equal(dry.body.metadata?.resourceVersion, '42', 'a dry run answers the object as sent');
  assert.equal((await fetch(`${server.url}/api/v1/namespaces/default/configmaps/dry`)).status, 404);

  const invalid = await post({ ...cm('Not_Valid') }, '?dryRun=All');
  assert.equal(invalid.status, 422, JSON.stringify(invalid.body));
  const invalidReal = await post({ ...cm('Not_Valid') });
  assert.equal(invalidReal.status, 422, JSON.stringify(invalidReal.body));

  const real = await post(cm('real'));
  assert.equal(real.status, 500, JSON.stringify(real.body));
  // A plain storage error upstream: 500 with its text, no reason and no details (ErrorToAPIStatus).
  assert.equal(real.body.message, 'resourceVersion should not be set on objects to be created');
  assert.equal(real.body.reason, undefined);
  assert.equal(real.body.details, undefined);
  assert.equal((await fetch(`${server.url}/api/v1/namespaces/default/configmaps/real`)).status, 404);
});
