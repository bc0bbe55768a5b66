// rbac.authorization.k8s.io/v1 defaults (upstream pkg/apis/rbac/v1/defaults.go).
import type { KubeObject } from '../../../machinery/meta.js';
import { RBAC_GROUP, type RoleBinding } from './types.js';

/** roleRef.apiGroup and the apiGroup of User and Group subjects default to the RBAC group. */
export function defaultBinding(obj: KubeObject): void {
  const b = obj as RoleBinding;
  if (b.roleRef !== null && typeof b.roleRef === 'object' && (b.roleRef.apiGroup === undefined || b.roleRef.apiGroup === '')) b.roleRef.apiGroup = RBAC_GROUP;
  for (const s of Array.isArray(b.subjects) ? b.subjects : []) {
    if (s === null || typeof s !== 'object') continue;
    if ((s.apiGroup === undefined || s.apiGroup === '') && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}
