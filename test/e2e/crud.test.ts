// Every verb over real HTTP on a namespaced resource (configmaps), a
// cluster-scoped one (namespaces) and apps/v1 deployments, in JSON and YAML.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { configMap, get, request } from '../helpers/http.js';

let server: TestServer;
let base: string;
const CM = '/api/v1/namespaces/default/configmaps';

before(async () => {
  server = await startTestServer();
  base = server.url;
  // A fresh server without controllers has no namespaces yet: create the ones we use.
  for (const name of ['default', 'crud']) {
    const reply = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    assert.equal(reply.status, 201, reply.text);
  }
});
after(() => server.stop());

describe('configmaps (namespaced)', () => {
  test('create 201, get, list with a label selector', async () => {
    const created = await request(base, 'POST', CM, { body: configMap('one', { a: '1' }, { labels: { app: 'x' } }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.name, 'one');
    assert.equal(created.json.metadata.namespace, 'default');
    assert.match(created.json.metadata.resourceVersion, /^\d+$/);
    assert.ok(created.json.metadata.uid);
    await request(base, 'POST', CM, { body: configMap('two', { b: '2' }, { labels: { app: 'y' } }) });

    const got = await get(base, `${CM}/one`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json.data, { a: '1' });
    assert.equal(got.json.kind, 'ConfigMap');
    assert.equal(got.json.apiVersion, 'v1');

    const list = await get(base, `${CM}?labelSelector=app%3Dx`);
    assert.equal(list.status, 200);
    assert.equal(list.json.kind, 'ConfigMapList');
    assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['one']);
    assert.match(list.json.metadata.resourceVersion, /^\d+$/);

    const all = await get(base, '/api/v1/configmaps');
    assert.equal(all.status, 200);
    assert.ok(all.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'two'));
  });

  test('list pages with limit and continue', async () => {
    for (const name of ['p1', 'p2', 'p3']) await request(base, 'POST', '/api/v1/namespaces/crud/configmaps', { body: configMap(name) });
    const first = await get(base, '/api/v1/namespaces/crud/configmaps?limit=2');
    assert.equal(first.json.items.length, 2);
    assert.ok(first.json.metadata.continue);
    const second = await get(base, `/api/v1/namespaces/crud/configmaps?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.deepEqual(second.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['p3']);
  });

  test('update 200 keeps the name and bumps resourceVersion', async () => {
    const current = (await get(base, `${CM}/one`)).json;
    current.data = { a: 'changed' };
    const updated = await request(base, 'PUT', `${CM}/one`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.data, { a: 'changed' });
    assert.notEqual(updated.json.metadata.resourceVersion, current.metadata.resourceVersion);
  });

  test('merge patch and JSON patch', async () => {
    const merged = await request(base, 'PATCH', `${CM}/one`, {
      raw: JSON.stringify({ data: { extra: 'e' }, metadata: { labels: { patched: 'yes' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual(merged.json.data, { a: 'changed', extra: 'e' });
    assert.equal(merged.json.metadata.labels.patched, 'yes');

    const jsonPatched = await request(base, 'PATCH', `${CM}/one`, {
      raw: JSON.stringify([{ op: 'remove', path: '/data/extra' }, { op: 'add', path: '/data/j', value: 'p' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(jsonPatched.status, 200, jsonPatched.text);
    assert.deepEqual(jsonPatched.json.data, { a: 'changed', j: 'p' });
  });

  test('dryRun=All create answers 201 and writes nothing', async () => {
    const reply = await request(base, 'POST', `${CM}?dryRun=All`, { body: configMap('dry') });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.json.metadata.name, 'dry');
    assert.equal((await get(base, `${CM}/dry`)).status, 404);
  });

  test('YAML in and YAML out', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  greeting: hello\n';
    const created = await request(base, 'POST', CM, {
      raw: manifest,
      headers: { 'content-type': 'application/yaml', accept: 'application/yaml' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.contentType, 'application/yaml');
    const parsed = YAML.parse(created.text);
    assert.equal(parsed.metadata.name, 'yml');
    assert.deepEqual(parsed.data, { greeting: 'hello' });
    // sorted keys, as upstream's YAML
    assert.ok(created.text.indexOf('apiVersion:') < created.text.indexOf('data:'));
    assert.ok(created.text.indexOf('data:') < created.text.indexOf('kind:'));
  });

  test('delete 200, then 404; deletecollection by label', async () => {
    const deleted = await request(base, 'DELETE', `${CM}/two`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await get(base, `${CM}/two`)).status, 404);

    const withOptions = await request(base, 'DELETE', `${CM}/yml?gracePeriodSeconds=0&propagationPolicy=Background`);
    assert.equal(withOptions.status, 200, withOptions.text);

    const body = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' };
    const withBody = await request(base, 'DELETE', `${CM}/one`, { body });
    assert.equal(withBody.status, 200, withBody.text);

    const collection = await request(base, 'DELETE', '/api/v1/namespaces/crud/configmaps?labelSelector=');
    assert.equal(collection.status, 200, collection.text);
    assert.equal(collection.json.kind, 'ConfigMapList');
    assert.equal((await get(base, '/api/v1/namespaces/crud/configmaps')).json.items.length, 0);
  });
});

describe('namespaces (cluster-scoped)', () => {
  test('create, get, list, update labels, delete', async () => {
    const created = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scoped' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.namespace, undefined);
    const got = await get(base, '/api/v1/namespaces/scoped');
    assert.equal(got.status, 200);
    assert.equal(got.json.status.phase, 'Active');
    const list = await get(base, '/api/v1/namespaces');
    assert.ok(list.json.items.some((n: { metadata: { name: string } }) => n.metadata.name === 'scoped'));

    got.json.metadata.labels = { team: 'a' };
    const updated = await request(base, 'PUT', '/api/v1/namespaces/scoped', { body: got.json });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.metadata.labels.team, 'a');

    const deleted = await request(base, 'DELETE', '/api/v1/namespaces/scoped');
    assert.equal(deleted.status, 200, deleted.text);
  });
});

describe('apps/v1 deployments', () => {
  const DEP = '/apis/apps/v1/namespaces/default/deployments';
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    },
  };

  test('create applies defaults, get, patch, list, delete', async () => {
    const created = await request(base, 'POST', DEP, { body: deployment });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.replicas, 1);
    assert.equal(created.json.metadata.generation, 1);

    const patched = await request(base, 'PATCH', `${DEP}/web`, {
      raw: JSON.stringify({ spec: { replicas: 3 } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.spec.replicas, 3);
    assert.equal(patched.json.metadata.generation, 2);

    const list = await get(base, '/apis/apps/v1/deployments');
    assert.equal(list.json.kind, 'DeploymentList');
    assert.equal(list.json.apiVersion, 'apps/v1');
    assert.equal(list.json.items.length, 1);

    assert.equal((await request(base, 'DELETE', `${DEP}/web`)).status, 200);
    assert.equal((await get(base, `${DEP}/web`)).status, 404);
  });
});
