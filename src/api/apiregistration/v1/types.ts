// apiregistration.k8s.io/v1 APIService: the registration of one group/version
// with the aggregator, served either by this server (no spec.service: a
// "local" APIService) or by an extension API server behind a Service
// (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/types.go).

import type { ObjectMeta } from '../../../machinery/meta.js';

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  /** Defaults to 443. */
  port?: number;
}

export interface APIServiceSpec {
  service?: ServiceReference | null;
  group?: string;
  version?: string;
  insecureSkipTLSVerify?: boolean;
  /** base64 in JSON (a Go []byte). */
  caBundle?: string;
  groupPriorityMinimum?: number;
  versionPriority?: number;
}

export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface APIService {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: APIServiceSpec;
  status?: { conditions?: APIServiceCondition[] };
}

/** The Available condition, when set. */
export function availableCondition(svc: object): APIServiceCondition | undefined {
  const conditions = ((svc as { status?: unknown }).status as { conditions?: APIServiceCondition[] } | undefined)?.conditions;
  return Array.isArray(conditions) ? conditions.find((c) => c?.type === 'Available') : undefined;
}

/** Whether the APIService is served by an extension server (it names a Service). */
export function isRemote(svc: object): boolean {
  const service = ((svc as { spec?: unknown }).spec as APIServiceSpec | undefined)?.service;
  return service !== undefined && service !== null;
}
