// rbac.authorization.k8s.io/v1 ClusterRoleBindings: the roleRef cannot change.
import { defaultBinding } from '../../api/rbac/v1/defaults.js';
import { validateBindingUpdate, validateClusterRoleBinding } from '../../api/rbac/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { rbacCommon } from './shared.js';

export const clusterRoleBindingStrategy: Strategy = {
  ...rbacCommon,
  namespaced: false,
  defaults: defaultBinding,
  validate: validateClusterRoleBinding,
  validateUpdate: validateBindingUpdate(false),
};
