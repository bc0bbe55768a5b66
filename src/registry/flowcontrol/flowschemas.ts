// FlowSchemas: cluster-scoped, with a status subresource (the Dangling
// condition); a spec change bumps generation (upstream's flowschema strategy).

import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultFlowSchema } from '../../api/flowcontrol/v1/defaults.js';
import { validateFlowSchema, validateFlowSchemaStatus } from '../../api/flowcontrol/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, statusSubresource } from '../strategy-helpers.js';

export const flowSchemaStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultFlowSchema,
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
    delete obj.status;
  },
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateFlowSchema,
  validateUpdate: (obj) => validateFlowSchema(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateFlowSchemaStatus(obj)) },
};
