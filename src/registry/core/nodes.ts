// Nodes: cluster-scoped; status may be set on create (kubelets register that
// way) and is kept on spec writes; selectable by spec.unschedulable.
import type { KubeObject } from '../../machinery/meta.js';
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultNode } from '../../api/core/v1/defaults.js';
import { validateNode, validateNodeUpdate } from '../../api/core/v1/node-validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

export const nodeStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultNode,
  validate: validateNode,
  validateUpdate: validateNodeUpdate,
  prepareForUpdate: keepStatus,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  fields: {
    'spec.unschedulable': (obj: KubeObject) =>
      (obj.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true ? 'true' : 'false',
  },
  // No metadata.namespace: nodes register their own field label conversion.
  fieldLabels: ['metadata.name', 'spec.unschedulable'],
  subresources: { status: statusSubresource() },
};
