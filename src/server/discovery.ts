// Discovery documents, built only from the served resource types (nothing per
// resource is written here):
//
//   /api                 APIVersions (with serverAddressByClientCIDRs)
//   /apis                APIGroupList
//   /apis/{group}        APIGroup
//   /api/v1, /apis/g/v   APIResourceList (subresources as "configmaps/status")
//   /api, /apis with Accept ...;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList
//                        aggregated discovery (apidiscovery.k8s.io v2 and v2beta1)
//
// Shapes and orderings follow kube-apiserver 1.32: resources sorted by name,
// verbs sorted (custom resources keep upstream's unsorted order: keepVerbOrder),
// groups in the order they are registered.

import { createHash } from 'node:crypto';
import type { ResourceType } from '../registry/rest.js';
import type { EndpointRestrictions } from './negotiation.js';

export const DISCOVERY_GROUP = 'apidiscovery.k8s.io';
export const DISCOVERY_VERSIONS = ['v2', 'v2beta1'];
export const DISCOVERY_KIND = 'APIGroupDiscoveryList';

/** /api and /apis accept the aggregated discovery conversion; nothing else. */
export const DISCOVERY_RESTRICTIONS: EndpointRestrictions = {
  allowsConversion: (t) => t.group === DISCOVERY_GROUP && DISCOVERY_VERSIONS.includes(t.version) && t.kind === DISCOVERY_KIND,
  allowsStreamSchema: () => false,
};

/** The Content-Type of an aggregated discovery response. */
export function aggregatedContentType(version: string): string {
  return `application/json;g=${DISCOVERY_GROUP};v=${version};as=${DISCOVERY_KIND}`;
}

interface GroupVersionEntry {
  groupVersion: string;
  version: string;
}

interface SubresourceFacts {
  verbs: string[];
  /** Set when the subresource answers with another kind (scale → autoscaling/v1 Scale). */
  responseKind?: { group: string; version: string; kind: string };
  /**
   * Served by the kubelet (or the pod or service) behind it, through a connect
   * handler (connect.ts), not by the store.
   */
  connect?: boolean;
}

// What each known subresource does; an unknown one is treated like status.
const SUBRESOURCES: Record<string, SubresourceFacts> = {
  status: { verbs: ['get', 'patch', 'update'] },
  finalize: { verbs: ['update'] },
  scale: { verbs: ['get', 'patch', 'update'], responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
  token: { verbs: ['create'], responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } },
  // Binding is the core group's own kind: group and version stay empty, as for a resource's own kind.
  binding: { verbs: ['create'], responseKind: { group: '', version: '', kind: 'Binding' } },
  eviction: { verbs: ['create'], responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
  // The kubelet-facing connect subresources (their options kinds, as upstream lists them).
  log: { verbs: ['get'], connect: true },
  exec: { verbs: ['create', 'get'], responseKind: { group: '', version: '', kind: 'PodExecOptions' }, connect: true },
  attach: { verbs: ['create', 'get'], responseKind: { group: '', version: '', kind: 'PodAttachOptions' }, connect: true },
  portforward: { verbs: ['create', 'get'], responseKind: { group: '', version: '', kind: 'PodPortForwardOptions' }, connect: true },
};

/** proxy answers with the options kind of its resource: PodProxyOptions, NodeProxyOptions, ServiceProxyOptions. */
const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'];

function subresourceFacts(name: string, type?: ResourceType): SubresourceFacts {
  if (name === 'proxy') {
    const facts: SubresourceFacts = { verbs: PROXY_VERBS, connect: true };
    if (type !== undefined) facts.responseKind = { group: '', version: '', kind: `${type.kind}ProxyOptions` };
    return facts;
  }
  return SUBRESOURCES[name] ?? { verbs: ['get', 'patch', 'update'] };
}

/** Whether a subresource is a connect one, served by connect.ts (see SubresourceFacts.connect). */
export function isConnectSubresource(name: string): boolean {
  return subresourceFacts(name).connect === true;
}

/** The verbs a subresource answers (used by routing as well as discovery). */
export function subresourceVerbs(name: string): string[] {
  return subresourceFacts(name).verbs;
}

/**
 * Upstream's StorageVersionHash: the first 8 bytes of the SHA-256 of
 * "group/version/kind" of the version objects are stored in, base64. Clients
 * (the storage version migrator) compare it to notice a storage version change.
 */
export function storageVersionHash(type: ResourceType): string {
  const stored = type.storageVersion ?? type;
  const digest = createHash('sha256').update(`${stored.group}/${stored.version}/${stored.kind}`).digest();
  return digest.subarray(0, 8).toString('base64');
}

function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Groups (other than core) with their versions, in registration order. */
function groupsOf(types: ResourceType[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const t of types) {
    if (t.group === '') continue;
    const versions = groups.get(t.group) ?? [];
    if (!versions.includes(t.version)) versions.push(t.version);
    groups.set(t.group, versions);
  }
  return groups;
}

export function apiVersions(types: ResourceType[], serverAddress: string): Record<string, unknown> {
  const versions = [...new Set(types.filter((t) => t.group === '').map((t) => t.version))];
  return {
    kind: 'APIVersions',
    versions: versions.length > 0 ? versions : ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroupOf(group: string, versions: string[]): Record<string, unknown> {
  const entries: GroupVersionEntry[] = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(types: ResourceType[]): Record<string, unknown> {
  const groups = [...groupsOf(types)].map(([group, versions]) => apiGroupOf(group, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(types: ResourceType[], group: string): Record<string, unknown> | undefined {
  const versions = groupsOf(types).get(group);
  if (versions === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(group, versions) };
}

function typesIn(types: ResourceType[], group: string, version: string): ResourceType[] {
  return types.filter((t) => t.group === group && t.version === version).sort((a, b) => (a.resource < b.resource ? -1 : 1));
}

export function servesGroupVersion(types: ResourceType[], group: string, version: string): boolean {
  return types.some((t) => t.group === group && t.version === version);
}

export function apiResourceList(types: ResourceType[], group: string, version: string): Record<string, unknown> | undefined {
  const served = typesIn(types, group, version);
  if (served.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of served) {
    const entry: Record<string, unknown> = {
      name: t.resource,
      singularName: t.singularName,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.keepVerbOrder === true ? [...t.verbs] : [...t.verbs].sort(),
    };
    if (t.shortNames.length > 0) entry['shortNames'] = [...t.shortNames];
    if (t.categories.length > 0) entry['categories'] = [...t.categories];
    if (t.unstored !== true) entry['storageVersionHash'] = storageVersionHash(t);
    resources.push(entry);
    for (const sub of [...t.subresources].sort()) {
      const facts = subresourceFacts(sub, t);
      const subEntry: Record<string, unknown> = { name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced };
      if (facts.responseKind !== undefined) {
        if (facts.responseKind.version !== '') {
          subEntry['group'] = facts.responseKind.group;
          subEntry['version'] = facts.responseKind.version;
        }
        subEntry['kind'] = facts.responseKind.kind;
      } else {
        subEntry['kind'] = t.kind;
      }
      subEntry['verbs'] = [...facts.verbs];
      resources.push(subEntry);
    }
  }
  // The core group's list carries no apiVersion upstream; named groups' do.
  const head: Record<string, unknown> = group === '' ? { kind: 'APIResourceList' } : { kind: 'APIResourceList', apiVersion: 'v1' };
  return { ...head, groupVersion: groupVersionString(group, version), resources };
}

/**
 * The responseKind of a resource that answers with its own kind: upstream's
 * built-in resources leave group and version empty there (they are the
 * entry's own); only a kind of another group (autoscaling/v1 Scale) names them.
 * (Upstream fills them in for custom resources.)
 */
function ownKind(t: ResourceType): { group: string; version: string; kind: string } {
  return { group: '', version: '', kind: t.kind };
}

function discoveryResource(t: ResourceType): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    resource: t.resource,
    responseKind: ownKind(t),
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singularName,
    verbs: t.keepVerbOrder === true ? [...t.verbs] : [...t.verbs].sort(),
  };
  if (t.shortNames.length > 0) entry['shortNames'] = [...t.shortNames];
  if (t.categories.length > 0) entry['categories'] = [...t.categories];
  if (t.subresources.length > 0) {
    entry['subresources'] = [...t.subresources].sort().map((sub) => {
      const facts = subresourceFacts(sub, t);
      return {
        subresource: sub,
        responseKind: facts.responseKind ?? ownKind(t),
        verbs: [...facts.verbs],
      };
    });
  }
  return entry;
}

function discoveryGroup(types: ResourceType[], group: string, versions: string[]): Record<string, unknown> {
  const metadata: Record<string, unknown> = group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null };
  return {
    metadata,
    versions: versions.map((version) => ({
      version,
      resources: typesIn(types, group, version).map(discoveryResource),
      freshness: 'Current',
    })),
  };
}

/** Aggregated discovery for /api (core group only) or /apis (every named group). */
export function aggregatedDiscovery(types: ResourceType[], root: 'api' | 'apis', version: string): Record<string, unknown> {
  let items: Record<string, unknown>[];
  if (root === 'api') {
    const versions = [...new Set(types.filter((t) => t.group === '').map((t) => t.version))];
    items = versions.length > 0 ? [discoveryGroup(types, '', versions)] : [];
  } else {
    items = [...groupsOf(types)].map(([group, versions]) => discoveryGroup(types, group, versions));
  }
  return { kind: DISCOVERY_KIND, apiVersion: `${DISCOVERY_GROUP}/${version}`, metadata: {}, items };
}
