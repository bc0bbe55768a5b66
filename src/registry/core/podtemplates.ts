// PodTemplates: generation 1 on create, bumped by template changes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultPodTemplate, validatePodTemplate } from '../../api/core/v1/pv-validation.js';
import { sameJSON } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { generationOne } from '../strategy-helpers.js';
import { podTemplateObjectWarnings } from '../../api/core/v1/pod-warnings.js';

export const podTemplateStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPodTemplate,
  prepareForCreate: generationOne,
  prepareForUpdate(obj, old) {
    if (!sameJSON(obj['template'] ?? null, old['template'] ?? null)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
  },
  validate: validatePodTemplate,
  validateUpdate: (obj) => validatePodTemplate(obj),
  ...podTemplateObjectWarnings,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
};
