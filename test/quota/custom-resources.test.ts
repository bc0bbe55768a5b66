// Quota on custom resources: `count/<plural>.<group>` of a CRD's resource is
// charged by admission and counted by the quota controller like a built-in
// kind's (both find the resource at run time), and deleting a custom resource
// frees its quota. The message is kube-apiserver 1.32's for object counts.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { get, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { createNamespace, createQuota, startQuotaCluster, waitUsed, type QuotaCluster } from './helpers.js';

let c: QuotaCluster;
before(async () => {
  c = await startQuotaCluster();
});
after(async () => {
  await c?.stop();
});

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.quota.example.com' },
  spec: {
    group: 'quota.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const widget = (name: string) => ({ apiVersion: 'quota.example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } });
const WIDGETS = '/apis/quota.example.com/v1/namespaces/cr-quota/widgets';
const NAME = 'count/widgets.quota.example.com';

test('count/<plural>.<group> limits custom resources; a delete frees the quota', async () => {
  assert.equal((await request(c.server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD })).status, 201);
  await until('widgets served', async () => (await get(c.server.url, '/apis/quota.example.com/v1/widgets')).status === 200);
  await createNamespace(c.server.url, 'cr-quota');
  await createQuota(c.server.url, 'cr-quota', 'q', { hard: { [NAME]: '1' } });
  await waitUsed(c.server.url, 'cr-quota', 'q', { [NAME]: '0' });

  assert.equal((await c.post(WIDGETS, widget('a'))).status, 201);
  const refused = await c.post(WIDGETS, widget('b'));
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.json.reason, 'Forbidden');
  assert.equal(
    refused.json.message,
    `widgets.quota.example.com "b" is forbidden: exceeded quota: q, requested: ${NAME}=1, used: ${NAME}=1, limited: ${NAME}=1`,
  );
  assert.equal((await get(c.server.url, `${WIDGETS}/b`)).status, 404);
  await waitUsed(c.server.url, 'cr-quota', 'q', { [NAME]: '1' });

  assert.equal((await request(c.server.url, 'DELETE', `${WIDGETS}/a`)).status, 200);
  await waitUsed(c.server.url, 'cr-quota', 'q', { [NAME]: '0' });
  assert.equal((await c.post(WIDGETS, widget('b'))).status, 201);
});
