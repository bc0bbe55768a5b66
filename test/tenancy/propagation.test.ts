// Propagation (issue 31): Roles and RoleBindings of a namespace are copied
// into every descendant, other kinds per the HNCConfiguration's modes and the
// exception annotations; copies carry hnc.x-k8s.io/inherited-from, follow
// their source (changed, deleted, tree changed), never overwrite a local
// object (a source, a move or a config that would is refused with HNC's 409;
// one that slips through is a condition and HNC's Warning events), are counted in status.resources, and nobody
// but the propagation controller may change or delete them (HNC's messages).
// A real server with security on; the propagation controller runs as
// `apiary controller-manager` runs it (impersonating the hierarchy's identity;
// `apiary serve` issues it that identity, see hns-plugin.test.ts).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RestClient } from '../../src/client/index.js';
import { startControllerManager, type RunningControllerManager } from '../../src/controllers/manager.js';
import { PROPAGATION_CONTROLLER_USER } from '../../src/tenancy/propagation-protection.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from '../security/helpers.js';

const G = '/apis/hnc.x-k8s.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const INHERITED = 'hnc.x-k8s.io/inherited-from';

let server: Awaited<ReturnType<typeof startSecureServer>>;
let manager: RunningControllerManager;
const clients: RestClient[] = [];

const asAdmin = (method: string, path: string, body?: unknown) =>
  secureRequest(server.url, server.ca, method, path, { cert: server.admin.certData!, key: server.admin.keyData!, ...(body !== undefined ? { body } : {}) });

async function ok(method: string, path: string, body?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
  const r = await asAdmin(method, path, body);
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

async function exists(path: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
  const r = await asAdmin('GET', path);
  return r.status === 200 ? r.json : undefined;
}

async function setParent(ns: string, parent: string): Promise<void> {
  await ok('POST', `${G}/namespaces/${ns}/hierarchyconfigurations`, {
    apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent },
  });
}

async function setResources(resources: unknown[]): Promise<void> {
  await until('the config exists', async () => (await exists(`${G}/hncconfigurations/config`)) !== undefined);
  for (;;) {
    const config = await exists(`${G}/hncconfigurations/config`);
    const r = await asAdmin('PUT', `${G}/hncconfigurations/config`, { ...config, spec: { resources } });
    if (r.status === 200) return;
    assert.equal(r.status, 409, r.text);
  }
}

const configMap = (name: string, data: Record<string, string>, annotations?: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(annotations !== undefined ? { annotations } : {}) }, data,
});

before(async () => {
  server = await startSecureServer();
  const client = new RestClient({ ...server.admin });
  // As `apiary controller-manager` runs it: the admin's credentials, impersonating the hierarchy's identity.
  const propagation = new RestClient({ ...server.admin, impersonate: { user: PROPAGATION_CONTROLLER_USER, groups: ['system:masters'] } });
  clients.push(client, propagation);
  manager = startControllerManager({
    client,
    clients: { hncPropagation: propagation },
    controllers: { namespace: false, systemNamespaces: false, resourceQuota: false, crdCleanup: false, pvcProtection: false, garbageCollector: false },
  });
  for (const ns of ['prop-root', 'prop-mid', 'prop-leaf', 'prop-side', 'prop-out']) await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await setParent('prop-mid', 'prop-root');
  await setParent('prop-leaf', 'prop-mid');
  await setParent('prop-side', 'prop-root');
});
after(async () => {
  await manager?.stop();
  for (const c of clients) await c.close();
  await server.stop();
});

test('Roles and RoleBindings propagate to every descendant, labelled with their source, and follow it', async () => {
  await ok('POST', `${RBAC}/namespaces/prop-root/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  });
  await ok('POST', `${RBAC}/namespaces/prop-root/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'readers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  });
  for (const ns of ['prop-mid', 'prop-leaf', 'prop-side']) {
    await until(`the copies in ${ns}`, async () => (await exists(`${RBAC}/namespaces/${ns}/rolebindings/readers`)) !== undefined && (await exists(`${RBAC}/namespaces/${ns}/roles/reader`)) !== undefined);
    const copy = await exists(`${RBAC}/namespaces/${ns}/rolebindings/readers`);
    assert.equal(copy.metadata.labels[INHERITED], 'prop-root');
    assert.deepEqual(copy.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }]);
  }
  assert.equal(await exists(`${RBAC}/namespaces/prop-out/rolebindings/readers`), undefined);
  const listed = await runKubectl(server.kubeconfigPath, ['get', 'rolebindings', '-n', 'prop-leaf', '-L', INHERITED]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^readers\s+Role\/reader\s+\S+\s+prop-root$/m);

  // A change of the source reaches every copy.
  const role = await exists(`${RBAC}/namespaces/prop-root/roles/reader`);
  await ok('PUT', `${RBAC}/namespaces/prop-root/roles/reader`, { ...role, rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list'] }] });
  await until('the copies follow the source', async () => {
    const copy = await exists(`${RBAC}/namespaces/prop-leaf/roles/reader`);
    return JSON.stringify(copy?.rules) === JSON.stringify([{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list'] }]);
  });
  // Leaving the tree removes them; the source's deletion removes the rest.
  const side = await exists(`${G}/namespaces/prop-side/hierarchyconfigurations/hierarchy`);
  await ok('PUT', `${G}/namespaces/prop-side/hierarchyconfigurations/hierarchy`, { ...side, spec: {} });
  await until('prop-side loses its copies', async () => (await exists(`${RBAC}/namespaces/prop-side/rolebindings/readers`)) === undefined);
  await ok('DELETE', `${RBAC}/namespaces/prop-root/rolebindings/readers`);
  await until('the copies go with their source', async () => (await exists(`${RBAC}/namespaces/prop-leaf/rolebindings/readers`)) === undefined && (await exists(`${RBAC}/namespaces/prop-mid/rolebindings/readers`)) === undefined);
  assert.notEqual(await exists(`${RBAC}/namespaces/prop-leaf/roles/reader`), undefined);
});

test('a copy cannot be changed or deleted, nor a labelled object created, by anyone but the hierarchy', async () => {
  await until('the role copy', async () => (await exists(`${RBAC}/namespaces/prop-mid/roles/reader`)) !== undefined);
  const copy = await exists(`${RBAC}/namespaces/prop-mid/roles/reader`);
  const changed = await asAdmin('PUT', `${RBAC}/namespaces/prop-mid/roles/reader`, { ...copy, rules: [] });
  assert.equal(changed.status, 403, changed.text);
  assert.equal(changed.json.message, 'roles.rbac.authorization.k8s.io "reader" is forbidden: cannot modify object propagated from namespace "prop-root"');
  const relabelled = await asAdmin('PUT', `${RBAC}/namespaces/prop-mid/roles/reader`, { ...copy, metadata: { ...copy.metadata, labels: {} } });
  assert.equal(relabelled.status, 403, relabelled.text);
  assert.equal(relabelled.json.message, 'roles.rbac.authorization.k8s.io "reader" is forbidden: cannot modify the label "hnc.x-k8s.io/inherited-from"');
  const deleted = await asAdmin('DELETE', `${RBAC}/namespaces/prop-mid/roles/reader`);
  assert.equal(deleted.status, 403, deleted.text);
  assert.equal(deleted.json.message, 'roles.rbac.authorization.k8s.io "reader" is forbidden: cannot delete object propagated from namespace "prop-root"');
  const kubectlDelete = await runKubectl(server.kubeconfigPath, ['delete', 'role', 'reader', '-n', 'prop-leaf']);
  assert.notEqual(kubectlDelete.code, 0);
  assert.match(kubectlDelete.stderr, /cannot delete object propagated from namespace "prop-root"/);
  const forged = await asAdmin('POST', '/api/v1/namespaces/prop-out/configmaps', { ...configMap('forged', {}), metadata: { name: 'forged', labels: { [INHERITED]: 'prop-root' } } });
  assert.equal(forged.status, 403, forged.text);
  assert.equal(forged.json.message, 'configmaps "forged" is forbidden: cannot create objects with the label "hnc.x-k8s.io/inherited-from"');
  assert.equal(await exists('/api/v1/namespaces/prop-out/configmaps/forged'), undefined);
  // Unchanged.
  assert.deepEqual((await exists(`${RBAC}/namespaces/prop-mid/roles/reader`)).rules, copy.rules);
});

test('a source that would overwrite a local object in a descendant is refused, HNC\'s 409; with an exception that spares it, allowed', async () => {
  const role = (annotations?: Record<string, string>) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role',
    metadata: { name: 'leaf-own', ...(annotations !== undefined ? { annotations } : {}) },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
  });
  await ok('POST', `${RBAC}/namespaces/prop-leaf/roles`, role());
  const refused = await asAdmin('POST', `${RBAC}/namespaces/prop-root/roles`, role());
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.json.reason, 'Conflict');
  assert.equal(
    refused.json.message,
    'Operation cannot be fulfilled on roles.rbac.authorization.k8s.io "leaf-own": would overwrite objects in the following descendant namespace(s): prop-leaf. To fix this, choose a different name for the object, or remove the conflicting objects from the listed namespaces',
  );
  assert.equal(await exists(`${RBAC}/namespaces/prop-root/roles/leaf-own`), undefined);
  const viaKubectl = await runKubectl(server.kubeconfigPath, ['create', 'role', 'leaf-own', '-n', 'prop-mid', '--verb=get', '--resource=pods']);
  assert.notEqual(viaKubectl.code, 0);
  assert.match(viaKubectl.stderr, /would overwrite objects in the following descendant namespace\(s\): prop-leaf/);
  // Kept out of prop-leaf's subtree: nothing to overwrite.
  await ok('POST', `${RBAC}/namespaces/prop-root/roles`, role({ 'propagate.hnc.x-k8s.io/treeSelect': '!prop-leaf' }));
  await until('the copy in prop-mid', async () => (await exists(`${RBAC}/namespaces/prop-mid/roles/leaf-own`))?.metadata.labels?.[INHERITED] === 'prop-root');
  assert.equal((await exists(`${RBAC}/namespaces/prop-leaf/roles/leaf-own`)).metadata.labels?.[INHERITED], undefined);
  // Dropping the exception would overwrite it: refused as well.
  const source = await exists(`${RBAC}/namespaces/prop-root/roles/leaf-own`);
  const widened = await asAdmin('PUT', `${RBAC}/namespaces/prop-root/roles/leaf-own`, { ...source, metadata: { ...source.metadata, annotations: {} } });
  assert.equal(widened.status, 409, widened.text);
  await ok('DELETE', `${RBAC}/namespaces/prop-root/roles/leaf-own`);
  await ok('DELETE', `${RBAC}/namespaces/prop-leaf/roles/leaf-own`);
});

test('a move that would make an ancestor\'s object overwrite a local one in the moved subtree is refused, HNC\'s 409 and list', async () => {
  await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prop-mover' } });
  await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prop-mover-kid' } });
  await setParent('prop-mover-kid', 'prop-mover');
  await ok('POST', `${RBAC}/namespaces/prop-root/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'shared-name' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  });
  await ok('POST', `${RBAC}/namespaces/prop-mover-kid/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'shared-name' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
  });
  // prop-mover may hold `hierarchy` already (the server writes its children there).
  const move = async () => {
    const current = await exists(`${G}/namespaces/prop-mover/hierarchyconfigurations/hierarchy`);
    return current === undefined
      ? asAdmin('POST', `${G}/namespaces/prop-mover/hierarchyconfigurations`, { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent: 'prop-mid' } })
      : asAdmin('PUT', `${G}/namespaces/prop-mover/hierarchyconfigurations/hierarchy`, { ...current, spec: { ...current.spec, parent: 'prop-mid' } });
  };
  // The server may write prop-mover's `hierarchy` (its children) between our read and write:
  // that plain version conflict is retried; the answer under test is HNC's 409.
  let moved = await move();
  for (let i = 0; i < 10 && moved.status === 409 && /the object has been modified/.test(moved.json.message); i++) moved = await move();
  assert.equal(moved.status, 409, moved.text);
  assert.equal(
    moved.json.message,
    'Operation cannot be fulfilled on hierarchyconfigurations.hnc.x-k8s.io "hierarchy": Cannot update hierarchy because it would overwrite the following object(s):\n' +
      '  * Namespace "prop-mover-kid": shared-name (rbac.authorization.k8s.io/v1, Kind=Role)\n' +
      'To fix this, please rename or remove the conflicting objects first.',
  );
  assert.equal((await exists(`${G}/namespaces/prop-mover/hierarchyconfigurations/hierarchy`))?.spec?.parent, undefined);
  // Without the local object the move goes through.
  await ok('DELETE', `${RBAC}/namespaces/prop-mover-kid/roles/shared-name`);
  await until('the move goes through', async () => (await move()).status < 300);
  await until('the copy reaches the moved subtree', async () => (await exists(`${RBAC}/namespaces/prop-mover-kid/roles/shared-name`))?.metadata.labels?.[INHERITED] === 'prop-root');
  await ok('DELETE', `${RBAC}/namespaces/prop-root/roles/shared-name`);
});

test('other kinds follow the HNCConfiguration: Propagate with exceptions, AllowPropagate, Remove; counts in status; conflicts refused or reported', async () => {
  await ok('POST', '/api/v1/namespaces/prop-root/configmaps', configMap('settings', { mode: 'fast' }));
  await ok('POST', '/api/v1/namespaces/prop-root/configmaps', configMap('not-leaf', { a: '1' }, { 'propagate.hnc.x-k8s.io/treeSelect': '!prop-leaf' }));
  await ok('POST', '/api/v1/namespaces/prop-root/configmaps', configMap('kept-home', { a: '1' }, { 'propagate.hnc.x-k8s.io/none': 'true' }));
  await ok('POST', '/api/v1/namespaces/prop-root/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', annotations: { 'propagate.hnc.x-k8s.io/select': 'tier=gold' } }, stringData: { t: 'x' } });
  await ok('POST', '/api/v1/namespaces/prop-root/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain' }, stringData: { t: 'y' } });
  // Local objects of sources' names in a descendant: never overwritten.
  await ok('POST', '/api/v1/namespaces/prop-leaf/configmaps', configMap('settings', { mode: 'mine' }));
  await ok('POST', '/api/v1/namespaces/prop-leaf/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, stringData: { t: 'mine' } });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await exists('/api/v1/namespaces/prop-mid/configmaps/settings'), undefined, 'configmaps are not propagated before the config names them');

  // Switching configmaps to Propagate would overwrite prop-leaf's own `settings`: HNC's 409, nothing changes.
  await until('the config exists', async () => (await exists(`${G}/hncconfigurations/config`)) !== undefined);
  const config = await exists(`${G}/hncconfigurations/config`);
  const refused = await asAdmin('PUT', `${G}/hncconfigurations/config`, { ...config, spec: { resources: [{ resource: 'configmaps', mode: 'Propagate' }, { resource: 'secrets', mode: 'AllowPropagate' }] } });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(
    refused.json.message,
    'Operation cannot be fulfilled on hncconfigurations.hnc.x-k8s.io "config": Cannot update configuration because setting type "/v1, Kind=ConfigMap" to \'Propagate\' mode or \'AllowPropagate\' mode would overwrite user-created object(s):\n' +
      '  Object "settings" in namespace "prop-root" would overwrite the one in "prop-leaf"\n' +
      'To fix this, please rename or remove the conflicting objects first.',
  );
  assert.equal((await exists(`${G}/hncconfigurations/config`)).spec?.resources, undefined);
  await ok('DELETE', '/api/v1/namespaces/prop-leaf/configmaps/settings');

  await setResources([{ resource: 'configmaps', mode: 'Propagate' }, { resource: 'secrets', mode: 'AllowPropagate' }]);
  await until('configmaps propagate', async () => (await exists('/api/v1/namespaces/prop-mid/configmaps/settings'))?.metadata.labels?.[INHERITED] === 'prop-root');
  await until('not-leaf reaches prop-mid', async () => (await exists('/api/v1/namespaces/prop-mid/configmaps/not-leaf')) !== undefined);
  await until('settings reaches prop-leaf', async () => (await exists('/api/v1/namespaces/prop-leaf/configmaps/settings'))?.metadata.labels?.[INHERITED] === 'prop-root');
  assert.equal(await exists('/api/v1/namespaces/prop-leaf/configmaps/not-leaf'), undefined);
  assert.equal(await exists('/api/v1/namespaces/prop-mid/configmaps/kept-home'), undefined);
  assert.equal(await exists('/api/v1/namespaces/prop-mid/secrets/token'), undefined, 'select: prop-mid is not gold');
  assert.equal(await exists('/api/v1/namespaces/prop-mid/secrets/plain'), undefined, 'AllowPropagate: only annotated sources');
  assert.equal(await exists('/api/v1/namespaces/prop-mid/configmaps/kube-root-ca.crt'), undefined);

  // prop-leaf turns gold: the selected secret now targets it, where its own `token` lives (no admission sees this
  // coming): the local object stays, the conflict is a condition and HNC's Warning events.
  const leafNs = await exists('/api/v1/namespaces/prop-leaf');
  await ok('PUT', '/api/v1/namespaces/prop-leaf', { ...leafNs, metadata: { ...leafNs.metadata, labels: { ...leafNs.metadata.labels, tier: 'gold' } } });
  await until('the conflict and the counts in the status', async () => {
    const status = (await exists(`${G}/hncconfigurations/config`))?.status;
    const conflict = status?.conditions?.find((c: { type: string }) => c.type === 'CannotPropagateObject');
    const cms = status?.resources?.find((r: { resource: string }) => r.resource === 'configmaps');
    const copies = (await exists(`/api/v1/configmaps?labelSelector=${encodeURIComponent(INHERITED)}`))?.items?.length;
    return conflict?.message?.includes('secrets "token" of namespace "prop-root" is not propagated to namespace "prop-leaf"') === true && cms?.numPropagatedObjects === copies;
  });
  const local = await exists('/api/v1/namespaces/prop-leaf/secrets/token');
  assert.equal(Buffer.from(local.data.t, 'base64').toString(), 'mine');
  assert.equal(local.metadata.labels?.[INHERITED], undefined);
  // HNC's Warning events, which `kubectl hns describe` lists: on the source, and on the local object.
  await until('the events', async () => {
    const leafEvents = (await exists('/api/v1/namespaces/prop-leaf/events'))?.items ?? [];
    const rootEvents = (await exists('/api/v1/namespaces/prop-root/events'))?.items ?? [];
    return (
      leafEvents.some((e: any) => e.reason === 'CannotUpdateObject' && e.type === 'Warning' && e.source?.component === 'hnc.x-k8s.io' && e.involvedObject.kind === 'Secret' && e.involvedObject.name === 'token' && e.message.startsWith('Could not write from source namespace "prop-root": ')) && // eslint-disable-line @typescript-eslint/no-explicit-any
      rootEvents.some((e: any) => e.reason === 'CannotPropagateObject' && e.involvedObject.name === 'token' && e.message.startsWith('Could not write to destination namespace "prop-leaf": ')) // eslint-disable-line @typescript-eslint/no-explicit-any
    );
  });
  const status = (await exists(`${G}/hncconfigurations/config`)).status;
  const byResource = Object.fromEntries(status.resources.map((r: { resource: string }) => [r.resource, r]));
  assert.deepEqual(Object.keys(byResource).sort(), ['configmaps', 'rolebindings', 'roles', 'secrets']);
  assert.equal(byResource.configmaps.mode, 'Propagate');
  assert.equal(byResource.configmaps.version, 'v1');
  assert.equal(byResource.secrets.mode, 'AllowPropagate');
  assert.equal(byResource.roles.mode, 'Propagate');
  assert.ok(byResource.roles.numSourceObjects >= 1);

  // The local object goes: the copy takes its place and the condition clears.
  await ok('DELETE', '/api/v1/namespaces/prop-leaf/secrets/token');
  await until('the copy replaces the local object', async () => (await exists('/api/v1/namespaces/prop-leaf/secrets/token'))?.metadata.labels?.[INHERITED] === 'prop-root');
  await until('the condition clears', async () => !(await exists(`${G}/hncconfigurations/config`))?.status?.conditions?.some((c: { type: string }) => c.type === 'CannotPropagateObject'));
  await until('one secret copy counted', async () => (await exists(`${G}/hncconfigurations/config`))?.status?.resources?.find((r: { resource: string }) => r.resource === 'secrets')?.numPropagatedObjects === 1);

  // Remove: every copy of the kind goes; sources stay.
  await setResources([{ resource: 'configmaps', mode: 'Remove' }, { resource: 'secrets', mode: 'AllowPropagate' }]);
  await until('Remove deletes the copies', async () => (await exists('/api/v1/namespaces/prop-mid/configmaps/settings')) === undefined && (await exists('/api/v1/namespaces/prop-leaf/configmaps/settings')) === undefined);
  assert.notEqual(await exists('/api/v1/namespaces/prop-root/configmaps/settings'), undefined);
  assert.notEqual(await exists('/api/v1/namespaces/prop-leaf/secrets/token'), undefined);
});

test('a kind the server does not serve is a BadConfiguration condition (ResourceNotFound)', async () => {
  await setResources([{ group: 'example.com', resource: 'widgets', mode: 'Propagate' }]);
  await until('the condition', async () =>
    (await exists(`${G}/hncconfigurations/config`))?.status?.conditions?.some(
      (c: { type: string; reason: string; message: string }) => c.type === 'BadConfiguration' && c.reason === 'ResourceNotFound' && c.message.includes('widgets'),
    ) === true,
  );
  await setResources([]);
  await until('the condition clears', async () => !(await exists(`${G}/hncconfigurations/config`))?.status?.conditions?.some((c: { type: string }) => c.type === 'BadConfiguration'));
});

test('RBAC kinds cannot be configured, nor a kind twice: HNC\'s 422, nothing stored', async () => {
  await until('the config exists', async () => (await exists(`${G}/hncconfigurations/config`)) !== undefined);
  const config = await exists(`${G}/hncconfigurations/config`);
  const enforced = await asAdmin('PUT', `${G}/hncconfigurations/config`, { ...config, spec: { resources: [{ group: 'rbac.authorization.k8s.io', resource: 'roles', mode: 'Ignore' }] } });
  assert.equal(enforced.status, 422, enforced.text);
  assert.equal(
    enforced.json.message,
    'HNCConfiguration.hnc.x-k8s.io "config" is invalid: spec.resources[0]: Invalid value: roles.rbac.authorization.k8s.io: always uses the \'Propagate\' mode and cannot be configured',
  );
  const twice = await asAdmin('PUT', `${G}/hncconfigurations/config`, { ...config, spec: { resources: [{ resource: 'secrets', mode: 'Ignore' }, { resource: 'secrets', mode: 'Remove' }] } });
  assert.equal(twice.status, 422, twice.text);
  assert.equal(twice.json.message, 'HNCConfiguration.hnc.x-k8s.io "config" is invalid: spec.resources[1]: Duplicate value: secrets');
  assert.deepEqual((await exists(`${G}/hncconfigurations/config`)).spec, config.spec);
});
