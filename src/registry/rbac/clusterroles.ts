// rbac.authorization.k8s.io/v1 ClusterRoles.
import { validateClusterRole } from '../../api/rbac/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { rbacCommon } from './shared.js';

export const clusterRoleStrategy: Strategy = { ...rbacCommon, namespaced: false, validate: validateClusterRole, validateUpdate: (obj) => validateClusterRole(obj) };
