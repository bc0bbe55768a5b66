// storage.k8s.io/v1 CSINodes (cluster-scoped, named as their nodes).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateCSINode, validateCSINodeUpdate } from '../../api/storage/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const csiNodeStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  validate: validateCSINode,
  validateUpdate: validateCSINodeUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
};
