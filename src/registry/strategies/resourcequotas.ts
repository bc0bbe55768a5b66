// ResourceQuotas: status reset on create (the quota controller fills it) and
// kept on spec writes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateResourceQuota, validateResourceQuotaStatus } from '../../api/core/v1/validation.js';
import type { ResourceQuota } from '../../api/core/v1/types.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from './common.js';

export const resourceQuotaStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate(obj) {
    (obj as ResourceQuota).status = {};
  },
  prepareForUpdate: keepStatus,
  validate: validateResourceQuota,
  validateUpdate: (obj) => validateResourceQuota(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateResourceQuotaStatus(obj)) },
};
