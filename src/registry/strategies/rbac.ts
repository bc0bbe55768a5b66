// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding:
// no status; names are path segments (upstream's ValidateRBACName); a binding's
// roleRef cannot change. Escalation checks wrap these stores in the server.
import { pathSegmentName } from '../../machinery/validation.js';
import { defaultBinding } from '../../api/rbac/v1/defaults.js';
import {
  validateBindingUpdate,
  validateClusterRole,
  validateClusterRoleBinding,
  validateRole,
  validateRoleBinding,
} from '../../api/rbac/v1/validation.js';
import type { Strategy } from '../strategy.js';

const common = { nameValidator: pathSegmentName, allowCreateOnUpdate: true, allowUnconditionalUpdate: true, returnDeletedObject: false } as const;

export const roleStrategy: Strategy = { ...common, namespaced: true, validate: validateRole, validateUpdate: (obj) => validateRole(obj) };
export const clusterRoleStrategy: Strategy = { ...common, namespaced: false, validate: validateClusterRole, validateUpdate: (obj) => validateClusterRole(obj) };
export const roleBindingStrategy: Strategy = {
  ...common,
  namespaced: true,
  defaults: defaultBinding,
  validate: validateRoleBinding,
  validateUpdate: validateBindingUpdate(true),
};
export const clusterRoleBindingStrategy: Strategy = {
  ...common,
  namespaced: false,
  defaults: defaultBinding,
  validate: validateClusterRoleBinding,
  validateUpdate: validateBindingUpdate(false),
};
