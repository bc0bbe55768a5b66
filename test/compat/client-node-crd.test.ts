// @kubernetes/client-node 1.x with CustomResourceDefinitions: its typed
// ApiextensionsV1Api installs a CRD, its CustomObjectsApi creates, reads,
// lists, patches and deletes custom resources, a schema violation comes back
// as the client's ApiException carrying upstream's 422 Status, and its Watch
// streams the custom resources' events.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, Watch, setHeaderOptions } from '@kubernetes/client-node';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const group = 'clientnode.example.com';
const version = 'v1';
const plural = 'gizmos';

test('client-node: install a CRD, then create, get, list, patch, watch and delete its custom resources', { timeout: 30_000 }, async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const loaded = new KubeConfig();
  loaded.loadFromFile(server.kubeconfigPath);
  // client-node 1.x refuses a plain http:// server unless the cluster says skipTLSVerify.
  const kc = new KubeConfig();
  kc.loadFromOptions({ ...loaded, clusters: loaded.clusters.map((c) => ({ ...c, skipTLSVerify: true })), currentContext: loaded.currentContext });
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'gadgets' } } });

  await extensions.createCustomResourceDefinition({
    body: {
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: 'gizmo', kind: 'Gizmo' },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1, _default: 1 } } } },
              },
            },
          },
        ],
      },
    },
  });
  await until('Established', async () => {
    const crd = await extensions.readCustomResourceDefinition({ name: `${plural}.${group}` });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
  });

  const events: string[] = [];
  const controller = await new Watch(kc).watch(
    `/apis/${group}/${version}/namespaces/gadgets/${plural}`,
    {},
    (phase, obj: { metadata?: { name?: string }; spec?: { size?: number } }) => void events.push(`${phase} ${obj.metadata?.name} ${obj.spec?.size}`),
    () => {},
  );
  t.after(() => controller.abort());

  const body = { apiVersion: `${group}/${version}`, kind: 'Gizmo', metadata: { name: 'g1' }, spec: {} };
  const created = (await custom.createNamespacedCustomObject({ group, version, namespace: 'gadgets', plural, body })) as { spec: { size: number } };
  assert.equal(created.spec.size, 1, 'the schema default applies');
  const read = (await custom.getNamespacedCustomObject({ group, version, namespace: 'gadgets', plural, name: 'g1' })) as { kind: string };
  assert.equal(read.kind, 'Gizmo');
  const list = (await custom.listNamespacedCustomObject({ group, version, namespace: 'gadgets', plural })) as { kind: string; items: unknown[] };
  assert.equal(list.kind, 'GizmoList');
  assert.equal(list.items.length, 1);

  await custom.patchNamespacedCustomObject(
    { group, version, namespace: 'gadgets', plural, name: 'g1', body: { spec: { size: 3 } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await assert.rejects(
    custom.createNamespacedCustomObject({ group, version, namespace: 'gadgets', plural, body: { ...body, metadata: { name: 'g2' }, spec: { size: 0 } } }),
    (err: unknown) => {
      assert.ok(err instanceof ApiException);
      assert.equal(err.code, 422);
      const status = JSON.parse(String(err.body)) as { reason: string; message: string };
      assert.equal(status.reason, 'Invalid');
      assert.equal(status.message, `Gizmo.${group} "g2" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`);
      return true;
    },
  );
  await custom.deleteNamespacedCustomObject({ group, version, namespace: 'gadgets', plural, name: 'g1' });
  await until('watch events', () => events.length === 3);
  assert.deepEqual(events, ['ADDED g1 1', 'MODIFIED g1 3', 'DELETED g1 3']);
});
