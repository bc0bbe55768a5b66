// Services: DNS-1035 names, status reset on create and kept on spec writes,
// PUT may create, DELETE answers with the service.
import { nameIsDNS1035Label } from '../../machinery/validation.js';
import { defaultService } from '../../api/core/v1/defaults.js';
import { validateService, validateServiceUpdate } from '../../api/core/v1/validation.js';
import type { Service } from '../../api/core/v1/types.js';
import type { Strategy } from '../strategy.js';
import { fieldAt, keepStatus, statusSubresource } from './common.js';

export const serviceStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNS1035Label,
  defaults: defaultService,
  prepareForCreate(obj) {
    (obj as Service).status = { loadBalancer: {} };
  },
  prepareForUpdate: keepStatus,
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  fields: { 'spec.clusterIP': fieldAt('spec.clusterIP'), 'spec.type': fieldAt('spec.type') },
  subresources: { status: statusSubresource() },
};
