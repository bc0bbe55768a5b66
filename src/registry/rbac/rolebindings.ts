// rbac.authorization.k8s.io/v1 RoleBindings: the roleRef cannot change.
import { defaultBinding } from '../../api/rbac/v1/defaults.js';
import { validateBindingUpdate, validateRoleBinding } from '../../api/rbac/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { rbacCommon } from './shared.js';

export const roleBindingStrategy: Strategy = {
  ...rbacCommon,
  namespaced: true,
  defaults: defaultBinding,
  validate: validateRoleBinding,
  validateUpdate: validateBindingUpdate(true),
};
