// rbac.authorization.k8s.io/v1 Roles.
import { validateRole } from '../../api/rbac/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { rbacCommon } from './shared.js';

export const roleStrategy: Strategy = { ...rbacCommon, namespaced: true, validate: validateRole, validateUpdate: (obj) => validateRole(obj) };
