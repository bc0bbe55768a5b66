// autoscaling HorizontalPodAutoscalers: stored as autoscaling/v2, served as v2
// and v1 (v1 through ../../api/autoscaling/v1/conversion.ts, wired by the
// catalog's `storedAs`). Status reset on create and kept on spec writes;
// validation on the v2 form, so v1 errors name v2's paths as upstream's do
// (upstream validates its internal type, which is v2's).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { defaultHorizontalPodAutoscalerV2 } from '../../api/autoscaling/v2/defaults.js';
import { validateHorizontalPodAutoscaler } from '../../api/autoscaling/v2/validation.js';
import { METRICS_ANNOTATION, hpaToV2 } from '../../api/autoscaling/v1/conversion.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

const base = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate(obj: KubeObject) {
    obj.status = {};
  },
  prepareForUpdate: keepStatus,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource() },
} satisfies Partial<Strategy>;

export const horizontalPodAutoscalerV2Strategy: Strategy = {
  ...base,
  defaults: defaultHorizontalPodAutoscalerV2,
  validate: validateHorizontalPodAutoscaler,
  validateUpdate: (obj) => validateHorizontalPodAutoscaler(obj),
};

/** v1: minReplicas 1, and 80% CPU when no metric at all is asked for (v2's default, seen through v1). */
function defaultV1(obj: KubeObject): void {
  const spec = ((obj as Record<string, any>)['spec'] ??= {}) as Record<string, unknown>;
  if (spec['minReplicas'] === undefined || spec['minReplicas'] === null) spec['minReplicas'] = 1;
  const hasOtherMetrics = obj.metadata?.annotations?.[METRICS_ANNOTATION] !== undefined;
  if ((spec['targetCPUUtilizationPercentage'] === undefined || spec['targetCPUUtilizationPercentage'] === null) && !hasOtherMetrics) {
    spec['targetCPUUtilizationPercentage'] = 80;
  }
}

export const horizontalPodAutoscalerV1Strategy: Strategy = {
  ...base,
  defaults: defaultV1,
  validate: (obj) => validateHorizontalPodAutoscaler(hpaToV2(obj)),
  validateUpdate: (obj) => validateHorizontalPodAutoscaler(hpaToV2(obj)),
};
