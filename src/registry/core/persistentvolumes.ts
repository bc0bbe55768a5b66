// PersistentVolumes (cluster-scoped): status starts Pending with its phase
// transition time; /status writes it and stamps a new transition time when the
// phase changes (upstream's persistentvolumeStatusStrategy). Times come from the
// registry's clock.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { formatTimestamp } from '../../machinery/names.js';
import type { KubeObject } from '../../machinery/meta.js';
import { defaultPersistentVolume, validatePersistentVolume, validatePersistentVolumeUpdate } from '../../api/core/v1/pv-validation.js';
import type { Loose } from '../../api/loose.js';
import type { Strategy, StrategyContext, SubresourceStrategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

function pvStatus({ clock }: StrategyContext): SubresourceStrategy {
  const status = statusSubresource();
  const prepareStatus = status.prepareForUpdate;
  status.prepareForUpdate = (obj: KubeObject, old: KubeObject): void => {
    prepareStatus(obj, old);
    const next: Loose = (obj.status ??= {}) as Loose;
    const prev: Loose = (old.status ?? {}) as Loose;
    if (prev.phase === next.phase && next.lastPhaseTransitionTime == null) {
      if (prev.lastPhaseTransitionTime != null) next.lastPhaseTransitionTime = prev.lastPhaseTransitionTime;
    } else if (prev.phase !== next.phase && (next.lastPhaseTransitionTime == null || next.lastPhaseTransitionTime === prev.lastPhaseTransitionTime)) {
      next.lastPhaseTransitionTime = formatTimestamp(clock());
    }
  };
  return status;
}

export function persistentVolumeStrategy(ctx: StrategyContext): Strategy {
  return {
    namespaced: false,
    nameValidator: nameIsDNSSubdomain,
    defaults: defaultPersistentVolume,
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending', lastPhaseTransitionTime: formatTimestamp(ctx.clock()) };
    },
    prepareForUpdate: keepStatus,
    validate: validatePersistentVolume,
    validateUpdate: validatePersistentVolumeUpdate,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: true,
    subresources: { status: pvStatus(ctx) },
  };
}
