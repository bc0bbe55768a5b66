// The foundation of hierarchical namespaces: HNC's four kinds served as
// built-in resources (discovery, CRUD, watch, Table columns through real
// kubectl) and the hierarchy index following HierarchyConfigurations and
// subnamespace annotations.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { get, request } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

const G = '/apis/hnc.x-k8s.io/v1alpha2';

describe('tenancy foundation', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const createNs = async (name: string, annotations?: Record<string, string>) => {
    // (annotations: a namespace's own, as a client may set them)
    const r = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(annotations ? { annotations } : {}) } } });
    assert.equal(r.status, 201, r.text);
  };
  const setParent = async (ns: string, parent: string) => {
    const r = await request(server.url, 'POST', `${G}/namespaces/${ns}/hierarchyconfigurations`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent } },
    });
    assert.equal(r.status, 201, r.text);
    return r.json;
  };

  it('lists the group and its four resources in discovery, with HNC scopes and short names', async () => {
    const r = await get(server.url, G);
    assert.equal(r.status, 200, r.text);
    const byName = new Map<string, { namespaced: boolean; kind: string; shortNames?: string[] }>(r.json.resources.map((x: { name: string }) => [x.name, x]));
    assert.equal(byName.get('subnamespaceanchors')?.namespaced, true);
    assert.deepEqual(byName.get('subnamespaceanchors')?.shortNames, ['subns']);
    assert.equal(byName.get('hierarchyconfigurations')?.kind, 'HierarchyConfiguration');
    assert.equal(byName.get('hncconfigurations')?.namespaced, false);
    assert.deepEqual(byName.get('hierarchicalresourcequotas')?.shortNames, ['hrq']);
    const groups = await get(server.url, '/apis');
    assert.ok(groups.json.groups.some((g: { name: string }) => g.name === 'hnc.x-k8s.io'));
  });

  it('creates, gets, lists and watches each kind; bad input is a 422 and stores nothing', async () => {
    await createNs('crud');
    const hrq = await request(server.url, 'POST', `${G}/namespaces/crud/hierarchicalresourcequotas`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchicalResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '3' } } },
    });
    assert.equal(hrq.status, 201, hrq.text);
    assert.equal(hrq.json.metadata.generation, 1);
    const config = await request(server.url, 'POST', `${G}/hncconfigurations`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HNCConfiguration', metadata: { name: 'config' }, spec: { resources: [{ resource: 'secrets', mode: 'Propagate' }] } },
    });
    assert.equal(config.status, 201, config.text);
    const badMode = await request(server.url, 'PUT', `${G}/hncconfigurations/config`, {
      body: { ...config.json, spec: { resources: [{ resource: 'secrets', mode: 'Sometimes' }] } },
    });
    assert.equal(badMode.status, 422, badMode.text);
    assert.match(badMode.json.message, /spec\.resources\[0\]\.mode: Unsupported value: "Sometimes"/);
    const wrongName = await request(server.url, 'POST', `${G}/namespaces/crud/hierarchyconfigurations`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'other' } },
    });
    assert.equal(wrongName.status, 422, wrongName.text);
    const unknownResource = await request(server.url, 'POST', `${G}/namespaces/crud/hierarchicalresourcequotas`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchicalResourceQuota', metadata: { name: 'bad' }, spec: { hard: { 'unicorns': '3' } } },
    });
    assert.equal(unknownResource.status, 422, unknownResource.text);
    assert.equal((await get(server.url, `${G}/namespaces/crud/hierarchicalresourcequotas/bad`)).status, 404);

    const list = await get(server.url, `${G}/namespaces/crud/hierarchicalresourcequotas`);
    assert.equal(list.json.kind, 'HierarchicalResourceQuotaList');
    assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['q']);

    // A watch sees a new anchor.
    const ac = new AbortController();
    const watch = await fetch(`${server.url}${G}/namespaces/crud/subnamespaceanchors?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`, { signal: ac.signal });
    const reader = watch.body!.getReader();
    const anchor = await request(server.url, 'POST', `${G}/namespaces/crud/subnamespaceanchors`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name: 'crud-child' } },
    });
    assert.equal(anchor.status, 201, anchor.text);
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    const event = JSON.parse(text.split('\n')[0]!);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.kind, 'SubnamespaceAnchor');
    ac.abort();
  });

  it('kubectl gets them by short name with HNC\'s printer columns', async () => {
    await createNs('printed');
    await request(server.url, 'POST', `${G}/namespaces/printed/hierarchicalresourcequotas`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchicalResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '3' } }, status: { requestsSummary: 'pods: 0/3' } },
    });
    const hrq = await runKubectl(server.kubeconfigPath, ['get', 'hrq', '-n', 'printed']);
    assert.equal(hrq.code, 0, hrq.stderr);
    assert.match(hrq.stdout, /^NAME\s+REQUEST\s+LIMIT\n/);
    const subns = await runKubectl(server.kubeconfigPath, ['get', 'subns', '-n', 'printed']);
    assert.equal(subns.code, 0, subns.stderr);
    assert.match(subns.stderr + subns.stdout, /No resources found in printed namespace/);
  });

  it('creates by POST on the object\'s own path, as kubectl hns does (custom resources upstream)', async () => {
    await createNs('posted');
    const r = await request(server.url, 'POST', `${G}/namespaces/posted/hierarchyconfigurations/hierarchy`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy', namespace: 'posted' }, spec: { allowCascadingDeletion: true } },
    });
    assert.equal(r.status, 201, r.text);
    const config = await request(server.url, 'POST', `${G}/hncconfigurations/config`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HNCConfiguration', metadata: { name: 'config' } },
    });
    assert.ok(config.status === 201 || config.status === 409, config.text);
    // Built-in kinds keep upstream's 405 there.
    const cm = await request(server.url, 'POST', '/api/v1/namespaces/posted/configmaps/x', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
    assert.equal(cm.status, 405, cm.text);
  });

  it('negotiates as custom resources do (no protobuf form), and takes server-side apply', async () => {
    const pb = await fetch(`${server.url}${G}/subnamespaceanchors`, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    assert.equal(pb.status, 200);
    assert.match(pb.headers.get('content-type') ?? '', /^application\/json/);
    const only = await fetch(`${server.url}${G}/subnamespaceanchors`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(only.status, 406);
    await createNs('applied');
    const manifest = 'apiVersion: hnc.x-k8s.io/v1alpha2\nkind: HierarchicalResourceQuota\nmetadata:\n  name: q\n  namespace: applied\nspec:\n  hard:\n    pods: "2"\n';
    const first = await runKubectl(server.kubeconfigPath, ['apply', '--server-side', '-f', '-'], { stdin: manifest });
    assert.equal(first.code, 0, first.stderr);
    const second = await runKubectl(server.kubeconfigPath, ['apply', '--server-side', '-f', '-'], { stdin: manifest.replace('"2"', '"5"') });
    assert.equal(second.code, 0, second.stderr);
    const got = await get(server.url, `${G}/namespaces/applied/hierarchicalresourcequotas/q`);
    assert.equal(got.json.spec.hard.pods, '5');
    assert.equal(got.json.metadata.managedFields[0].manager, 'kubectl');
    assert.equal(got.json.metadata.managedFields[0].operation, 'Apply');
    const explained = await runKubectl(server.kubeconfigPath, ['explain', 'subns.status']);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /GROUP:\s+hnc.x-k8s.io/);
  });

  it('a namespace managed by another tool gets no parent', async () => {
    await createNs('ext-parent');
    await createNs('external', { 'hnc.x-k8s.io/managed-by': 'other-tool' });
    const r = await request(server.url, 'POST', `${G}/namespaces/external/hierarchyconfigurations`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent: 'ext-parent' } },
    });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'hierarchyconfigurations.hnc.x-k8s.io "hierarchy" is forbidden: namespace "external" is managed by "other-tool", not HNC, so it cannot have a parent in HNC');
  });

  it('follows parents from HierarchyConfigurations and subnamespace annotations', async () => {
    await createNs('root');
    await createNs('mid');
    // Clients may not set the annotation (the server's anchors do): written as the server writes it.
    await server.registry.storeFor('', 'namespaces')!.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'leaf', annotations: { 'hnc.x-k8s.io/subnamespace-of': 'mid' } } }, {});
    await setParent('mid', 'root');
    const h = server.hierarchy;
    await until('mid under root', () => h.parentOf('mid') === 'root');
    await until('leaf under mid', () => h.parentOf('leaf') === 'mid');
    assert.deepEqual(h.ancestorsOf('leaf'), ['mid', 'root']);
    assert.deepEqual(h.childrenOf('root'), ['mid']);
    assert.deepEqual(h.descendantsOf('root'), ['leaf', 'mid']);
    assert.equal(h.isSubnamespace('leaf'), true);
    assert.equal(h.isSubnamespace('mid'), false);

    let changes = 0;
    const off = h.onChange(() => changes++);
    const del = await request(server.url, 'DELETE', `${G}/namespaces/mid/hierarchyconfigurations/hierarchy`);
    assert.equal(del.status, 200, del.text);
    await until('mid a root again', () => h.parentOf('mid') === undefined);
    assert.ok(changes > 0);
    off();
    assert.deepEqual(h.ancestorsOf('leaf'), ['mid']);
    assert.deepEqual(h.descendantsOf('root'), []);
  });
});
