// discovery.k8s.io/v1 EndpointSlices: no spec and no status; generation is 1
// on create and grows with any change outside metadata, or of the labels.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultEndpointSlice, validateEndpointSlice, validateEndpointSliceUpdate } from '../../api/discovery/v1/validation.js';
import { sameJSON } from '../../api/core/v1/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { Strategy } from '../strategy.js';

function body(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

export const endpointSliceStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultEndpointSlice,
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    if (!sameJSON(body(obj), body(old)) || !sameJSON(obj.metadata.labels ?? {}, old.metadata.labels ?? {})) {
      obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
  },
  validate: validateEndpointSlice,
  validateUpdate: validateEndpointSliceUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
