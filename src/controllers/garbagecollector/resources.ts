// What the garbage collector watches and how it finds an owner's resource:
// - deletableResources(): aggregated discovery (two requests: /api and /apis
//   as apidiscovery.k8s.io/v2) read into (a) the preferred version of every
//   resource that can be listed, watched and deleted (upstream's
//   GetDeletableResources), less the ignored ones (events), and (b) a kind
//   mapper over every served version, since an ownerReference may name any
//   version (upstream's RESTMapper).
// - metadataListWatch(): a ListerWatcher that asks for PartialObjectMetadata
//   and keeps only what the graph needs, so the collector's caches hold a few
//   strings per object whatever the objects' size.

import type { KubeList, KubeObject, ObjectMeta } from '../../machinery/meta.js';
import type { GroupVersionResource } from '../../machinery/meta.js';
import { inProcessListWatch, type InProcessReads, type ListOptions, type ListerWatcher, type Query, type RestClient, type Watch } from '../../client/index.js';

const DISCOVERY_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
const LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** Resources the collector never watches (upstream's DefaultIgnoredResources). */
export const DEFAULT_IGNORED_RESOURCES: readonly string[] = ['events', 'events.events.k8s.io'];

export interface MonitoredResource {
  gvr: GroupVersionResource;
  /** "resource" or "resource.group", the key of the monitor. */
  id: string;
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

export interface ResourceMapping {
  gvr: GroupVersionResource;
  namespaced: boolean;
}

export interface DiscoveredResources {
  deletable: MonitoredResource[];
  /** "apiVersion/kind" → resource, over every served version. */
  byKind: Map<string, ResourceMapping>;
}

interface DiscoveryResource {
  resource: string;
  responseKind?: { kind?: string };
  scope?: string;
  verbs?: string[];
}
interface DiscoveryList {
  items?: Array<{ metadata?: { name?: string }; versions?: Array<{ version: string; resources?: DiscoveryResource[] }> }>;
}

export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

export async function discoverResources(client: RestClient, ignored: readonly string[] = DEFAULT_IGNORED_RESOURCES, signal?: AbortSignal): Promise<DiscoveredResources> {
  const [core, groups] = await Promise.all([
    client.request<DiscoveryList>({ method: 'GET', path: '/api', accept: DISCOVERY_ACCEPT, signal }),
    client.request<DiscoveryList>({ method: 'GET', path: '/apis', accept: DISCOVERY_ACCEPT, signal }),
  ]);
  const deletable: MonitoredResource[] = [];
  const byKind = new Map<string, ResourceMapping>();
  const skip = new Set(ignored);
  for (const group of [...(core?.items ?? []), ...(groups?.items ?? [])]) {
    const groupName = group.metadata?.name ?? '';
    const seen = new Set<string>();
    // Versions come preferred first: the first version serving a resource is the one watched.
    for (const version of group.versions ?? []) {
      const apiVersion = groupName === '' ? version.version : `${groupName}/${version.version}`;
      for (const r of version.resources ?? []) {
        const kind = r.responseKind?.kind ?? '';
        const gvr = { group: groupName, version: version.version, resource: r.resource };
        const namespaced = r.scope === 'Namespaced';
        if (kind !== '' && !byKind.has(kindKey(apiVersion, kind))) byKind.set(kindKey(apiVersion, kind), { gvr, namespaced });
        if (seen.has(r.resource)) continue;
        seen.add(r.resource);
        const id = groupName === '' ? r.resource : `${r.resource}.${groupName}`;
        const verbs = r.verbs ?? [];
        if (skip.has(id) || !['list', 'watch', 'delete'].every((v) => verbs.includes(v))) continue;
        deletable.push({ gvr, id, apiVersion, kind, namespaced });
      }
    }
  }
  return { deletable, byKind };
}

/** The API path of a resource (optionally of one object), as the REST client builds it. */
export function resourcePath(gvr: GroupVersionResource, namespace: string, name?: string): string {
  let p = gvr.group === '' ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
  if (namespace !== '') p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${gvr.resource}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  return p;
}

/** Only what the graph and the informer's bookkeeping need. */
export function stripToGraphMeta(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  const meta: ObjectMeta = {};
  if (m.name !== undefined) meta.name = m.name;
  if (m.namespace !== undefined && m.namespace !== '') meta.namespace = m.namespace;
  if (m.uid !== undefined) meta.uid = m.uid;
  if (m.resourceVersion !== undefined) meta.resourceVersion = m.resourceVersion;
  if (m.ownerReferences !== undefined && m.ownerReferences.length > 0) meta.ownerReferences = m.ownerReferences;
  if (m.finalizers !== undefined && m.finalizers.length > 0) meta.finalizers = m.finalizers;
  if (m.deletionTimestamp !== undefined && m.deletionTimestamp !== null) meta.deletionTimestamp = m.deletionTimestamp;
  return { metadata: meta } as KubeObject;
}

function query(options: ListOptions): Query {
  const { signal: _signal, ...rest } = options;
  return rest as Query;
}

/**
 * List and watch one resource (all namespaces) as metadata, stripped to the
 * graph's needs; through the server's in-process reads when it runs us.
 */
export function metadataListWatch(client: RestClient, gvr: GroupVersionResource, reads?: InProcessReads): ListerWatcher {
  const overHttp = metadataListWatchOverHttp(client, gvr);
  return reads === undefined ? overHttp : inProcessListWatch(reads, gvr, stripToGraphMeta, overHttp);
}

function metadataListWatchOverHttp(client: RestClient, gvr: GroupVersionResource): ListerWatcher {
  const path = resourcePath(gvr, '');
  return {
    list: async (options) => {
      const list = await client.request<KubeList>({ method: 'GET', path, query: query(options), accept: LIST_ACCEPT, signal: options.signal });
      list.items = (list.items ?? []).map(stripToGraphMeta);
      return list;
    },
    watch: (options): Promise<Watch<KubeObject>> =>
      client.watch<KubeObject>(path, query(options), options.signal, { accept: WATCH_ACCEPT, transform: stripToGraphMeta }),
  };
}

/** GET one object's metadata. */
export function getMetadata(client: RestClient, mapping: ResourceMapping, namespace: string, name: string, signal?: AbortSignal): Promise<KubeObject> {
  const ns = mapping.namespaced ? namespace : '';
  return client.request<KubeObject>({ method: 'GET', path: resourcePath(mapping.gvr, ns, name), accept: WATCH_ACCEPT, signal });
}
