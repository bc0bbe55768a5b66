// rbac.authorization.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { clusterRoleBindingStrategy } from './clusterrolebindings.js';
import { clusterRoleStrategy } from './clusterroles.js';
import { roleBindingStrategy } from './rolebindings.js';
import { roleStrategy } from './roles.js';

const rbac = { group: 'rbac.authorization.k8s.io', version: 'v1', plainKey: true } as const;

export function rbacEntries(): CatalogEntry[] {
  return [
    entry({ ...rbac, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', singular: 'clusterrolebinding', strategy: clusterRoleBindingStrategy }),
    entry({ ...rbac, resource: 'clusterroles', kind: 'ClusterRole', singular: 'clusterrole', strategy: clusterRoleStrategy }),
    entry({ ...rbac, resource: 'rolebindings', kind: 'RoleBinding', singular: 'rolebinding', strategy: roleBindingStrategy }),
    entry({ ...rbac, resource: 'roles', kind: 'Role', singular: 'role', strategy: roleStrategy }),
  ];
}
