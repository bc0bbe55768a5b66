// Shared pieces of the tenancy tests: plain HTTP helpers for HNC's objects on a
// real server, and waits on what the hierarchy reconciler does.
import assert from 'node:assert/strict';
import { request, get, type Reply } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

export const HNC = '/apis/hnc.x-k8s.io/v1alpha2';

export async function createNamespace(base: string, name: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const r = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...extra } } });
  assert.equal(r.status, 201, r.text);
  return r;
}

export function anchorBody(name: string): Record<string, unknown> {
  return { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name } };
}

export function createAnchor(base: string, parent: string, child: string): Promise<Reply> {
  return request(base, 'POST', `${HNC}/namespaces/${parent}/subnamespaceanchors`, { body: anchorBody(child) });
}

export async function getJson(base: string, path: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
  const r = await get(base, path);
  return r.status === 200 ? r.json : undefined;
}

/** Waits for the anchor's state and returns the anchor. */
export async function waitAnchorState(base: string, parent: string, child: string, state: string): Promise<void> {
  await until(`anchor ${parent}/${child} in state ${state}`, async () => (await getJson(base, `${HNC}/namespaces/${parent}/subnamespaceanchors/${child}`))?.status?.status === state);
}

export async function waitNamespaceGone(base: string, name: string, timeoutMs = 15_000): Promise<void> {
  await until(`namespace ${name} gone`, async () => (await get(base, `/api/v1/namespaces/${name}`)).status === 404, timeoutMs);
}

/** The tree labels of a namespace. */
export async function treeLabels(base: string, name: string): Promise<Record<string, string>> {
  const ns = await getJson(base, `/api/v1/namespaces/${name}`);
  return Object.fromEntries(Object.entries((ns?.metadata?.labels ?? {}) as Record<string, string>).filter(([k]) => k.endsWith('.tree.hnc.x-k8s.io/depth')));
}

export async function setParent(base: string, ns: string, parent: string | undefined, extraSpec: Record<string, unknown> = {}): Promise<Reply> {
  // The hierarchy's reconciler writes status.children meanwhile: a stale read is retried, as kubectl edit would be.
  for (let attempt = 0; ; attempt++) {
    const existing = await getJson(base, `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`);
    const spec = { ...(existing?.spec ?? {}), ...extraSpec };
    if (parent === undefined) delete spec.parent;
    else spec.parent = parent;
    const reply =
      existing === undefined
        ? await request(base, 'POST', `${HNC}/namespaces/${ns}/hierarchyconfigurations`, {
            body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec },
          })
        : await request(base, 'PUT', `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`, { body: { ...existing, spec } });
    const stale = reply.status === 409 && /the object has been modified|already exists/.test(reply.text);
    if (!stale || attempt >= 10) return reply;
  }
}
