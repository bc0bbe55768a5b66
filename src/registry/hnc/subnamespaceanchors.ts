// hnc.x-k8s.io/v1alpha2 SubnamespaceAnchors, served as HNC's CRD declares them.
import { nameIsDNSLabel } from '../../machinery/validation.js';
import { validateSubnamespaceAnchor } from '../../api/hnc/v1alpha2/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnChange, generationOne } from './common.js';

export const subnamespaceAnchorStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSLabel,
  prepareForCreate: generationOne,
  prepareForUpdate: bumpGenerationOnChange,
  validate: validateSubnamespaceAnchor,
  validateUpdate: (obj) => validateSubnamespaceAnchor(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
