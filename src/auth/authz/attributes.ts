// What an authorizer decides on (upstream's authorizer.Attributes) and the
// Forbidden text a refusal carries (endpoints/handlers/responsewriters).

import type { UserInfo } from '../../machinery/user.js';

export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface Decision {
  allowed: boolean;
  /** Why not (RBAC's evaluation errors), or '' . */
  reason: string;
}

/** Upstream's forbiddenMessage: the part after "<resource> is forbidden: ". */
export function forbiddenMessage(a: Attributes): string {
  if (!a.isResourceRequest) return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace !== '') {
    return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} in the namespace ${JSON.stringify(a.namespace)}`;
  }
  return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} at the cluster scope`;
}
