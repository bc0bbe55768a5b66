// Managed labels and annotations (HNC v1.1's --managed-namespace-label and
// --managed-namespace-annotation, apiary flags of the same names): keys
// matching the patterns are set only through HierarchyConfiguration (or
// anchor) spec.labels/spec.annotations and reach every descendant; any other
// key there is HNC's 422; a subnamespace takes its anchor's; a key edited on
// a namespace comes back; a value removed goes from the whole subtree; flat namespaces are never touched; a pattern
// that matches hnc.x-k8s.io refuses to start. Real server, real kubectl.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runKubectl } from '../helpers/kubectl.js';
import { request } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { HNC, createAnchor, createNamespace, getJson, setParent, waitAnchorState } from './hierarchy-helpers.js';

let server: TestServer;

before(async () => {
  server = await startTestServer({ managedNamespaceLabels: ['team', '.*\\.example\\.com/env'], managedNamespaceAnnotations: ['owner'] });
});
after(() => server?.stop());

const metadataOf = async (ns: string): Promise<{ labels: Record<string, string>; annotations: Record<string, string> }> => {
  const obj = await getJson(server.url, `/api/v1/namespaces/${ns}`);
  return { labels: obj?.metadata?.labels ?? {}, annotations: obj?.metadata?.annotations ?? {} };
};

test('a key that is not managed is HNC\'s 422, on a HierarchyConfiguration and on an anchor; nothing is stored', async () => {
  await createNamespace(server.url, 'mm-bad');
  const hc = await setParent(server.url, 'mm-bad', undefined, { labels: [{ key: 'other', value: 'x' }], annotations: [{ key: 'note', value: 'y' }] });
  assert.equal(hc.status, 422, hc.text);
  assert.equal(
    hc.json.message,
    'HierarchyConfiguration.hnc.x-k8s.io "hierarchy" is invalid: [spec.labels: Invalid value: "other": not a managed label and cannot be configured, spec.annotations: Invalid value: "note": not a managed annotation and cannot be configured]',
  );
  const value = await setParent(server.url, 'mm-bad', undefined, { labels: [{ key: 'team', value: 'not a value' }] });
  assert.equal(value.status, 422, value.text);
  assert.match(value.json.message, /spec\.labels\[team\]: Invalid value: "not a value": a valid label must be/);
  assert.equal(await getJson(server.url, `${HNC}/namespaces/mm-bad/hierarchyconfigurations/hierarchy`), undefined);
  const anchor = await request(server.url, 'POST', `${HNC}/namespaces/mm-bad/subnamespaceanchors`, {
    body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name: 'mm-bad-kid' }, spec: { labels: [{ key: 'other', value: 'x' }] } },
  });
  assert.equal(anchor.status, 422, anchor.text);
  assert.equal(anchor.json.message, 'SubnamespaceAnchor.hnc.x-k8s.io "mm-bad-kid" is invalid: spec.labels: Invalid value: "other": not a managed label and cannot be configured');
});

test('managed labels and annotations reach the whole subtree; a subnamespace takes its anchor\'s; removed, they go', async () => {
  await createNamespace(server.url, 'mm-root');
  await createNamespace(server.url, 'mm-flat', { labels: { team: 'green' } });
  const set = await setParent(server.url, 'mm-root', undefined, { labels: [{ key: 'team', value: 'blue' }], annotations: [{ key: 'owner', value: 'alice' }] });
  assert.ok(set.status === 201 || set.status === 200, set.text);
  assert.equal((await createAnchor(server.url, 'mm-root', 'mm-kid')).status, 201);
  await waitAnchorState(server.url, 'mm-root', 'mm-kid', 'Ok');
  const anchored = await request(server.url, 'POST', `${HNC}/namespaces/mm-kid/subnamespaceanchors`, {
    body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name: 'mm-leaf' }, spec: { labels: [{ key: 'app.example.com/env', value: 'prod' }] } },
  });
  assert.equal(anchored.status, 201, anchored.text);
  await waitAnchorState(server.url, 'mm-kid', 'mm-leaf', 'Ok');
  await until('the leaf carries the tree\'s and its anchor\'s metadata', async () => {
    const { labels, annotations } = await metadataOf('mm-leaf');
    return labels['team'] === 'blue' && labels['app.example.com/env'] === 'prod' && annotations['owner'] === 'alice';
  });
  assert.deepEqual((await getJson(server.url, `${HNC}/namespaces/mm-leaf/hierarchyconfigurations/hierarchy`)).spec.labels, [{ key: 'app.example.com/env', value: 'prod' }]);
  for (const ns of ['mm-root', 'mm-kid']) {
    const { labels, annotations } = await metadataOf(ns);
    assert.equal(labels['team'], 'blue', ns);
    assert.equal(annotations['owner'], 'alice', ns);
    assert.equal(labels['app.example.com/env'], undefined, ns);
  }
  const listed = await runKubectl(server.kubeconfigPath, ['get', 'ns', '-l', 'team=blue', '-o', 'name']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(listed.stdout.trim().split('\n').sort(), ['namespace/mm-kid', 'namespace/mm-leaf', 'namespace/mm-root']);
  // A flat namespace keeps what its owner wrote.
  assert.equal((await metadataOf('mm-flat')).labels['team'], 'green');
  // Edited or removed on a namespace directly, a managed key comes back as the tree says (HNC's reconciler does so).
  const kid = await getJson(server.url, '/api/v1/namespaces/mm-kid');
  const { owner: _owner, ...otherAnnotations } = kid.metadata.annotations as Record<string, string>;
  const edited = await request(server.url, 'PUT', '/api/v1/namespaces/mm-kid', {
    body: { ...kid, metadata: { ...kid.metadata, labels: { ...kid.metadata.labels, team: 'red' }, annotations: otherAnnotations } },
  });
  assert.equal(edited.status, 200, edited.text);
  await until('mm-kid is put back', async () => {
    const { labels, annotations } = await metadataOf('mm-kid');
    return labels['team'] === 'blue' && annotations['owner'] === 'alice';
  });

  // Removed at the root: gone from the subtree (the anchor's own stays on the leaf).
  const removed = await setParent(server.url, 'mm-root', undefined, { labels: [], annotations: [] });
  assert.equal(removed.status, 200, removed.text);
  await until('the subtree loses team and owner', async () => {
    for (const ns of ['mm-root', 'mm-kid', 'mm-leaf']) {
      const { labels, annotations } = await metadataOf(ns);
      if (labels['team'] !== undefined || annotations['owner'] !== undefined) return false;
    }
    return true;
  });
  assert.equal((await metadataOf('mm-leaf')).labels['app.example.com/env'], 'prod');
});

test('a pattern that matches hnc.x-k8s.io refuses to start, in HNC\'s words', async () => {
  await assert.rejects(startTestServer({ managedNamespaceLabels: ['hnc\\.x-k8s\\.io|team'] }), (err: Error) => {
    // Go's %q, as JSON, doubles the backslashes.
    assert.equal(err.message, 'illegal value for --managed-namespace-label "hnc\\\\.x-k8s\\\\.io|team": cannot specify a pattern that matches "hnc.x-k8s.io"');
    return true;
  });
});

test('a key no longer managed (the flags changed across a restart) is a BadConfiguration condition, HNC\'s reason and words', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-managed-'));
  try {
    const first = await startTestServer({ dataDir, managedNamespaceLabels: ['team'], managedNamespaceAnnotations: ['owner'] });
    try {
      await createNamespace(first.url, 'mm-later');
      const set = await setParent(first.url, 'mm-later', undefined, { labels: [{ key: 'team', value: 'blue' }], annotations: [{ key: 'owner', value: 'bob' }] });
      assert.equal(set.status, 201, set.text);
    } finally {
      await first.stop();
    }
    const second = await startTestServer({ dataDir, managedNamespaceAnnotations: ['owner'] });
    try {
      await until('the condition', async () => {
        const conditions = (await getJson(second.url, `${HNC}/namespaces/mm-later/hierarchyconfigurations/hierarchy`))?.status?.conditions ?? [];
        return conditions.some(
          (c: { type: string; reason: string; message: string }) =>
            c.type === 'BadConfiguration' && c.reason === 'IllegalManagedLabel' && c.message === 'Not a legal managed label (set via --managed-namespace-label): team',
        );
      });
      const conditions = (await getJson(second.url, `${HNC}/namespaces/mm-later/hierarchyconfigurations/hierarchy`)).status.conditions;
      assert.equal(conditions.length, 1, JSON.stringify(conditions));
    } finally {
      await second.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
