// Shared pieces of the hierarchical quota tests: namespaces placed in a tree
// through their `hierarchy` HierarchyConfiguration, HRQs created and waited
// for (the controller fills status.hard and status.used), raw HTTP throughout.

import assert from 'node:assert/strict';
import type { Hierarchy } from '../../src/tenancy/hierarchy.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

export const G = '/apis/hnc.x-k8s.io/v1alpha2';

export interface HRQ {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: { hard?: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string>; requestsSummary?: string; limitsSummary?: string };
}

export async function createNamespace(base: string, name: string, parent?: string): Promise<void> {
  const r = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  assert.equal(r.status, 201, r.text);
  if (parent !== undefined) await setParent(base, name, parent);
}

/** Sets (creating the `hierarchy` object when missing) the parent of `ns`. */
export async function setParent(base: string, ns: string, parent: string): Promise<void> {
  const path = `${G}/namespaces/${ns}/hierarchyconfigurations/hierarchy`;
  const current = await request(base, 'GET', path);
  const body = { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent } };
  const r =
    current.status === 404
      ? await request(base, 'POST', `${G}/namespaces/${ns}/hierarchyconfigurations`, { body })
      : await request(base, 'PUT', path, { body: { ...current.json, spec: { ...current.json.spec, parent } } });
  assert.ok(r.status === 200 || r.status === 201, r.text);
}

/** Waits until every server's hierarchy index puts `ns` under exactly these ancestors. */
export async function waitAncestors(hierarchies: Hierarchy[], ns: string, ancestors: string[]): Promise<void> {
  await until(`${ns} under ${ancestors.join('/')}`, () => hierarchies.every((h) => JSON.stringify(h.ancestorsOf(ns)) === JSON.stringify(ancestors)));
}

export async function getHrq(base: string, ns: string, name: string): Promise<HRQ> {
  const r = await request(base, 'GET', `${G}/namespaces/${ns}/hierarchicalresourcequotas/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.json as HRQ;
}

/** Creates an HRQ and waits until the controller has filled its status (hard = spec.hard, used set). */
export async function createHrq(base: string, ns: string, name: string, hard: Record<string, string>): Promise<HRQ> {
  const r = await request(base, 'POST', `${G}/namespaces/${ns}/hierarchicalresourcequotas`, {
    body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchicalResourceQuota', metadata: { name }, spec: { hard } },
  });
  assert.equal(r.status, 201, r.text);
  let q: HRQ | undefined;
  await until(`status of hrq ${ns}/${name}`, async () => {
    q = await getHrq(base, ns, name);
    const names = (l: Record<string, string> | undefined) => JSON.stringify(Object.keys(l ?? {}).sort());
    return names(q.status?.hard) === names(hard) && names(q.status?.used) === names(hard);
  });
  return q!;
}

/** Waits until the HRQ's status.used has these values (names not given are not compared). */
export async function waitUsed(base: string, ns: string, name: string, used: Record<string, string>, timeoutMs = 10_000): Promise<HRQ> {
  let q: HRQ | undefined;
  await until(
    `hrq ${ns}/${name} used ${JSON.stringify(used)}`,
    async () => {
      q = await getHrq(base, ns, name);
      return Object.entries(used).every(([k, v]) => q!.status?.used?.[k] === v);
    },
    timeoutMs,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; last status ${JSON.stringify(q?.status)}`);
  });
  return q!;
}

export async function createConfigMap(base: string, ns: string, name: string) {
  return request(base, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name }, data: { k: name } } });
}

export async function countConfigMaps(base: string, namespaces: string[]): Promise<number> {
  let n = 0;
  for (const ns of namespaces) {
    const r = await request(base, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(r.status, 200, r.text);
    n += (r.json.items as unknown[]).length;
  }
  return n;
}
