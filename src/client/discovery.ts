// Discovery: what resources the server serves (client-go discovery).
// serverPreferredResources() reads /api, /api/v1, /apis and every
// /apis/{group}/{version}, and keeps, for each group and resource, the entry
// from the most preferred version that serves it (the server lists a group's
// versions preferred first). serverPreferredNamespacedResources() keeps the
// namespaced ones: what the namespace controller must empty before a
// namespace can go. If some group versions cannot be read, the call rejects
// with GroupDiscoveryFailedError, which still carries the lists that were
// read (the namespace controller reports the failure and works on the rest).
//
// As client-go 1.30+, it asks /api and /apis for aggregated discovery first
// (apidiscovery.k8s.io/v2: every group version's resources in two requests,
// versions preferred first, a Stale group version counted as failed) and
// reads group version by group version only from a server without it. The
// namespace controller discovers once per namespace it empties: 2 requests
// instead of one per group version (30 and more), issue 30.

import type { RestClient } from './rest-client.js';

export interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface APIResourceList {
  kind?: 'APIResourceList';
  apiVersion?: string;
  groupVersion: string;
  resources: APIResource[];
}

interface APIGroupList {
  groups?: Array<{ name: string; versions?: Array<{ groupVersion: string; version: string }>; preferredVersion?: { groupVersion: string } }>;
}

export class GroupDiscoveryFailedError extends Error {
  constructor(
    /** groupVersion → the error reading it */
    readonly groups: Map<string, unknown>,
    /** What could be discovered. */
    readonly partial: APIResourceList[],
  ) {
    super(`unable to retrieve the complete list of server APIs: ${[...groups].map(([gv, e]) => `${gv}: ${e instanceof Error ? e.message : String(e)}`).join(', ')}`);
    this.name = 'GroupDiscoveryFailedError';
  }
}

/** Every group version the server serves, preferred version first within each group. */
async function groupVersions(client: RestClient): Promise<string[][]> {
  const core = await client.request<{ versions?: string[] }>({ method: 'GET', path: '/api' });
  const groups = await client.request<APIGroupList>({ method: 'GET', path: '/apis' });
  const out: string[][] = [core?.versions ?? []];
  for (const g of groups?.groups ?? []) {
    const versions = (g.versions ?? []).map((v) => v.groupVersion);
    const preferred = g.preferredVersion?.groupVersion;
    if (preferred && versions.includes(preferred)) {
      versions.splice(versions.indexOf(preferred), 1);
      versions.unshift(preferred);
    }
    out.push(versions);
  }
  return out;
}

const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface DiscoveredResource {
  resource: string;
  responseKind?: { kind?: string };
  scope?: string;
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: Array<{ subresource: string; responseKind?: { kind?: string }; verbs?: string[] }>;
}

interface APIGroupDiscoveryList {
  kind?: string;
  items?: Array<{ metadata?: { name?: string }; versions?: Array<{ version: string; resources?: DiscoveredResource[]; freshness?: string }> }>;
}

/** serverPreferredResources from aggregated discovery; undefined when the server does not serve it. */
async function fromAggregatedDiscovery(client: RestClient): Promise<{ lists: APIResourceList[]; failed: Map<string, unknown> } | undefined> {
  const [core, groups] = await Promise.all(
    ['/api', '/apis'].map((path) => client.request<APIGroupDiscoveryList>({ method: 'GET', path, accept: AGGREGATED_ACCEPT })),
  );
  if (core?.kind !== 'APIGroupDiscoveryList' || groups?.kind !== 'APIGroupDiscoveryList') return undefined;
  const lists: APIResourceList[] = [];
  const failed = new Map<string, unknown>();
  for (const group of [...(core.items ?? []), ...(groups.items ?? [])]) {
    const name = group.metadata?.name ?? '';
    // A resource (or subresource) is taken from the first, most preferred, version that serves it.
    const seen = new Set<string>();
    for (const v of group.versions ?? []) {
      const groupVersion = name === '' ? v.version : `${name}/${v.version}`;
      if (v.freshness === 'Stale') {
        failed.set(groupVersion, new Error(`the discovery document of ${groupVersion} is stale`));
        continue;
      }
      const resources: APIResource[] = [];
      const add = (r: APIResource): void => {
        if (seen.has(r.name)) return;
        seen.add(r.name);
        resources.push(r);
      };
      for (const r of v.resources ?? []) {
        const namespaced = r.scope === 'Namespaced';
        add({
          name: r.resource,
          ...(r.singularResource !== undefined ? { singularName: r.singularResource } : {}),
          namespaced,
          kind: r.responseKind?.kind ?? '',
          verbs: r.verbs ?? [],
          ...(r.shortNames !== undefined ? { shortNames: r.shortNames } : {}),
          ...(r.categories !== undefined ? { categories: r.categories } : {}),
        });
        for (const sub of r.subresources ?? []) add({ name: `${r.resource}/${sub.subresource}`, namespaced, kind: sub.responseKind?.kind ?? '', verbs: sub.verbs ?? [] });
      }
      if (resources.length > 0) lists.push({ groupVersion, resources });
    }
  }
  return { lists, failed };
}

export async function serverPreferredResources(client: RestClient, options: { aggregated?: boolean } = {}): Promise<APIResourceList[]> {
  if (options.aggregated !== false) {
    const aggregated = await fromAggregatedDiscovery(client);
    if (aggregated !== undefined) {
      if (aggregated.failed.size > 0) throw new GroupDiscoveryFailedError(aggregated.failed, aggregated.lists);
      return aggregated.lists;
    }
  }
  const failed = new Map<string, unknown>();
  const lists: APIResourceList[] = [];
  for (const versions of await groupVersions(client)) {
    const seen = new Set<string>();
    const fetched = await Promise.all(
      versions.map(async (gv) => {
        const path = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
        try {
          return await client.request<APIResourceList>({ method: 'GET', path });
        } catch (err) {
          failed.set(gv, err);
          return undefined;
        }
      }),
    );
    fetched.forEach((list, i) => {
      if (list === undefined) return;
      const gv = versions[i] as string;
      const resources = (list.resources ?? []).filter((r) => !seen.has(r.name));
      for (const r of resources) seen.add(r.name);
      if (resources.length > 0) lists.push({ groupVersion: gv, resources });
    });
  }
  if (failed.size > 0) throw new GroupDiscoveryFailedError(failed, lists);
  return lists;
}

/** Only the namespaced resources of serverPreferredResources(). */
export async function serverPreferredNamespacedResources(client: RestClient, options: { aggregated?: boolean } = {}): Promise<APIResourceList[]> {
  const keepNamespaced = (lists: APIResourceList[]): APIResourceList[] =>
    lists
      .map((l) => ({ groupVersion: l.groupVersion, resources: l.resources.filter((r) => r.namespaced) }))
      .filter((l) => l.resources.length > 0);
  try {
    return keepNamespaced(await serverPreferredResources(client, options));
  } catch (err) {
    if (err instanceof GroupDiscoveryFailedError) throw new GroupDiscoveryFailedError(err.groups, keepNamespaced(err.partial));
    throw err;
  }
}
