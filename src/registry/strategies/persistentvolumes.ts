// PersistentVolumes (cluster-scoped): status starts Pending with its phase
// transition time; /status writes it and stamps a new transition time when the
// phase changes (upstream's persistentvolumeStatusStrategy). Pod templates:
// generation 1 on create, bumped by template changes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { formatTimestamp } from '../../machinery/names.js';
import type { KubeObject } from '../../machinery/meta.js';
import {
  defaultPersistentVolume,
  defaultPodTemplate,
  validatePersistentVolume,
  validatePersistentVolumeUpdate,
  validatePodTemplate,
} from '../../api/core/v1/pv-validation.js';
import { sameJSON } from '../../api/core/v1/validation.js';
import type { Loose } from '../../api/loose.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from './common.js';

const pvStatus = statusSubresource();
const prepareStatus = pvStatus.prepareForUpdate;
pvStatus.prepareForUpdate = (obj: KubeObject, old: KubeObject): void => {
  prepareStatus(obj, old);
  const next: Loose = (obj.status ??= {}) as Loose;
  const prev: Loose = (old.status ?? {}) as Loose;
  if (prev.phase === next.phase && next.lastPhaseTransitionTime == null) {
    if (prev.lastPhaseTransitionTime != null) next.lastPhaseTransitionTime = prev.lastPhaseTransitionTime;
  } else if (prev.phase !== next.phase && (next.lastPhaseTransitionTime == null || next.lastPhaseTransitionTime === prev.lastPhaseTransitionTime)) {
    next.lastPhaseTransitionTime = formatTimestamp(new Date());
  }
};

export const persistentVolumeStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPersistentVolume,
  prepareForCreate(obj) {
    obj.status = { phase: 'Pending', lastPhaseTransitionTime: formatTimestamp(new Date()) };
  },
  prepareForUpdate: keepStatus,
  validate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  subresources: { status: pvStatus },
};

export const podTemplateStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPodTemplate,
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    if (!sameJSON(obj['template'] ?? null, old['template'] ?? null)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
  },
  validate: validatePodTemplate,
  validateUpdate: (obj) => validatePodTemplate(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
};
