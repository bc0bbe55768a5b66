// ResourceQuotas: status reset on create (the quota controller fills it) and
// kept on spec writes; only /status writes it (ResourceQuota admission and the
// controller), guarded by the resourceVersion they computed it from.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import {
  validateResourceQuota,
  validateResourceQuotaStatusUpdate,
  validateResourceQuotaUpdate,
} from '../../api/core/v1/quota-validation.js';
import type { ResourceQuota } from '../../api/core/v1/types.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

export const resourceQuotaStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate(obj) {
    (obj as ResourceQuota).status = {};
  },
  prepareForUpdate: keepStatus,
  validate: validateResourceQuota,
  validateUpdate: validateResourceQuotaUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // DELETE answers with the deleted quota, as upstream's store does.
  returnDeletedObject: true,
  subresources: { status: statusSubresource((obj) => validateResourceQuotaStatusUpdate(obj)) },
};
