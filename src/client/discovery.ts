// Discovery: what resources the server serves (client-go discovery).
// serverPreferredResources() reads /api, /api/v1, /apis and every
// /apis/{group}/{version}, and keeps, for each group and resource, the entry
// from the most preferred version that serves it (the server lists a group's
// versions preferred first). serverPreferredNamespacedResources() keeps the
// namespaced ones: what the namespace controller must empty before a
// namespace can go. If some group versions cannot be read, the call rejects
// with GroupDiscoveryFailedError, which still carries the lists that were
// read (the namespace controller reports the failure and works on the rest).

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

export async function serverPreferredResources(client: RestClient): Promise<APIResourceList[]> {
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
export async function serverPreferredNamespacedResources(client: RestClient): Promise<APIResourceList[]> {
  const keepNamespaced = (lists: APIResourceList[]): APIResourceList[] =>
    lists
      .map((l) => ({ groupVersion: l.groupVersion, resources: l.resources.filter((r) => r.namespaced) }))
      .filter((l) => l.resources.length > 0);
  try {
    return keepNamespaced(await serverPreferredResources(client));
  } catch (err) {
    if (err instanceof GroupDiscoveryFailedError) throw new GroupDiscoveryFailedError(err.groups, keepNamespaced(err.partial));
    throw err;
  }
}
