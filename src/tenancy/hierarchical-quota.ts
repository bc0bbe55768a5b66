// Hierarchical quota for admission: the HierarchicalResourceQuotas (HNC's
// hnc.x-k8s.io/v1alpha2, `hrq`) that bound a namespace, handed to the
// ResourceQuota plugin (src/admission/resource-quota.ts) so it charges them in
// the same batches, by the same check and with the same compare-and-swap on
// status.used as the namespace's own ResourceQuotas.
//
// An HRQ in P bounds the sum of usage over P and all its descendants, so a
// request in N is bounded by the HRQs of N and of each of its ancestors (the
// scope). The quotas are read from this server's watch cache (the plugin
// prefers its own newer writes and re-reads live after a conflict), and
// written through the status subresource with the resourceVersion they were
// computed from as the precondition (the main resource: as HNC's CRD, the kind
// has no status subresource). Each write also refreshes the summaries
// `kubectl get hrq` prints.
//
// The shape is the plugin's HierarchicalQuotaAccess (structural: tenancy/ does
// not import admission/); HRQ objects have ResourceQuota's status fields.

import type { ResourceQuota } from '../api/core/v1/types.js';
import { HNC_GROUP, HNC_VERSION } from '../api/hnc/v1alpha2/types.js';
import { quotaSummaries } from '../api/quota/v1/summary.js';
import { deepCopy } from '../machinery/deep-copy.js';
import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore } from '../registry/rest.js';
import type { Hierarchy } from './hierarchy.js';

export const HRQ_RESOURCE = 'hierarchicalresourcequotas';
const HRQ_KIND = 'HierarchicalResourceQuota';

/** What the access needs of the registry: the HRQ store, looked up when a request runs (undefined: not served). */
export type HierarchicalQuotaStore = () => RESTStore | undefined;

export interface HierarchicalQuotaAccess {
  scopeOf(namespace: string): readonly string[];
  peekCached(namespace: string): readonly ResourceQuota[] | undefined;
  listCached(namespace: string): Promise<ResourceQuota[]>;
  listLive(namespace: string): Promise<ResourceQuota[]>;
  updateStatus(quota: ResourceQuota): Promise<ResourceQuota>;
}

const NONE: readonly ResourceQuota[] = Object.freeze([]);

/** The HRQ with its status summaries recomputed from status.hard and status.used. */
export function withSummaries<T extends ResourceQuota>(q: T): T {
  const { requestsSummary: _r, limitsSummary: _l, ...status } = (q.status ?? {}) as NonNullable<ResourceQuota['status']> & {
    requestsSummary?: string;
    limitsSummary?: string;
  };
  return { ...q, status: { ...status, ...quotaSummaries(status.hard, status.used) } };
}

export function hierarchicalQuotaAccess(store: HierarchicalQuotaStore, hierarchy: () => Hierarchy): HierarchicalQuotaAccess {
  const asQuotas = (items: readonly KubeObject[]): ResourceQuota[] => items as ResourceQuota[];
  return {
    scopeOf: (namespace) => [namespace, ...hierarchy().ancestorsOf(namespace)],
    peekCached: (namespace) => {
      const s = store();
      if (s === undefined) return NONE;
      const items = s.listCached?.(namespace);
      return items === undefined ? undefined : (items as readonly ResourceQuota[]);
    },
    listCached: async (namespace) => {
      const s = store();
      if (s === undefined) return [];
      return asQuotas((await s.list(namespace, { resourceVersion: '0' })).items);
    },
    listLive: async (namespace) => {
      const s = store();
      if (s === undefined) return [];
      return asQuotas((await s.list(namespace, {})).items);
    },
    updateStatus: async (q) => {
      const s = store();
      if (s === undefined) throw new Error('hierarchicalresourcequotas are not served');
      const body = withSummaries({ ...deepCopy(q), apiVersion: `${HNC_GROUP}/${HNC_VERSION}`, kind: HRQ_KIND } as ResourceQuota);
      const res = await s.update(q.metadata.namespace ?? '', q.metadata.name ?? '', body, {});
      return res.object as ResourceQuota;
    },
  };
}
