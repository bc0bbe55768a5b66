// Discovery of the extension servers' groups, merged into ours
// (kube-aggregator's apis handler, group handler and aggregated discovery
// manager):
//
// - /apis lists every APIService's group after the groups served here, groups
//   by their highest groupPriorityMinimum, versions by versionPriority then
//   Kubernetes version order (v1 > v1beta1 > v1alpha1);
// - /apis/GROUP of such a group is built from its APIServices (available or not);
// - aggregated discovery carries the resources each extension server listed
//   in its last successful discovery check (its /apis/GROUP/VERSION), marked
//   Stale once the server fails its checks; a version whose server never
//   answered is listed Stale with no resources (kube-aggregator's empty entry).

import type { KubeObject } from '../../machinery/meta.js';
import type { APIServiceSpec } from '../../api/apiregistration/v1/types.js';

/** Kubernetes version order: GA > beta > alpha, then by numbers; other strings after, by name. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return undefined;
    return [m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) {
    if (pa !== undefined) return -1;
    if (pb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (pa[0] !== pb[0]) return pb[0] - pa[0];
  if (pa[1] !== pb[1]) return pb[1] - pa[1];
  return pb[2] - pa[2];
}

interface GroupVersions {
  group: string;
  priority: number;
  versions: { version: string; priority: number; name: string }[];
}

/** The groups of the given APIServices, each with its versions in preference order, groups in discovery order. */
export function groupsOf(apiServices: readonly Readonly<KubeObject>[]): GroupVersions[] {
  const groups = new Map<string, GroupVersions>();
  for (const svc of apiServices) {
    const spec = (svc['spec'] ?? {}) as APIServiceSpec;
    const group = spec.group ?? '';
    if (group === '') continue;
    let g = groups.get(group);
    if (g === undefined) {
      g = { group, priority: 0, versions: [] };
      groups.set(group, g);
    }
    g.priority = Math.max(g.priority, spec.groupPriorityMinimum ?? 0);
    g.versions.push({ version: spec.version ?? '', priority: spec.versionPriority ?? 0, name: svc.metadata.name ?? '' });
  }
  const out = [...groups.values()];
  for (const g of out) g.versions.sort((a, b) => b.priority - a.priority || compareKubeVersions(a.version, b.version));
  return out.sort((a, b) => b.priority - a.priority || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/** An APIGroup document (the /apis list entry, or /apis/GROUP with kind and apiVersion). */
export function apiGroupDocument(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.group}/${v.version}`, version: v.version }));
  return { name: g.group, versions, preferredVersion: versions[0] };
}

interface LegacyResource {
  name?: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/** An APIResourceList (legacy discovery) as one aggregated discovery version entry. */
export function aggregatedVersion(version: string, document: Record<string, unknown>, freshness: 'Current' | 'Stale'): Record<string, unknown> {
  const resources = (Array.isArray(document['resources']) ? document['resources'] : []) as LegacyResource[];
  const parents = new Map<string, Record<string, unknown>>();
  const out: Record<string, unknown>[] = [];
  for (const r of resources) {
    const name = r.name ?? '';
    if (name === '' || name.includes('/')) continue;
    const entry: Record<string, unknown> = {
      resource: name,
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' },
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '',
      verbs: [...(r.verbs ?? [])],
    };
    if ((r.shortNames ?? []).length > 0) entry['shortNames'] = [...r.shortNames!];
    if ((r.categories ?? []).length > 0) entry['categories'] = [...r.categories!];
    parents.set(name, entry);
    out.push(entry);
  }
  for (const r of resources) {
    const [parent, sub] = (r.name ?? '').split('/');
    if (sub === undefined) continue;
    const entry = parents.get(parent!);
    if (entry === undefined) continue;
    const subs = (entry['subresources'] ??= []) as Record<string, unknown>[];
    subs.push({ subresource: sub, responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' }, verbs: [...(r.verbs ?? [])] });
  }
  out.sort((a, b) => ((a['resource'] as string) < (b['resource'] as string) ? -1 : 1));
  return { version, resources: out, freshness };
}
