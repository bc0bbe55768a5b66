// ControllerRevisions: immutable data snapshots; no status.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateControllerRevision, validateControllerRevisionUpdate } from '../../api/apps/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const controllerRevisionStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateControllerRevision,
  validateUpdate: validateControllerRevisionUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
