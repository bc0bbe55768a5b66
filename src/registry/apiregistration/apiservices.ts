// APIServices: cluster-scoped, with a status subresource (the Available
// condition); no generation (kube-aggregator's apiservice strategy: create
// starts with an empty status, main-resource writes keep the stored one).

import { pathSegmentName } from '../../machinery/validation.js';
import { defaultAPIService } from '../../api/apiregistration/v1/defaults.js';
import { validateAPIService, validateAPIServiceStatus } from '../../api/apiregistration/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

export const apiServiceStrategy: Strategy = {
  namespaced: false,
  nameValidator: pathSegmentName,
  defaults: defaultAPIService,
  prepareForCreate(obj) {
    obj.status = {};
  },
  prepareForUpdate: keepStatus,
  validate: validateAPIService,
  validateUpdate: (obj) => validateAPIService(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateAPIServiceStatus(obj)) },
};
