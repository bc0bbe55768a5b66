// apps/v1 Deployment validation (upstream pkg/apis/apps/validation, main rules).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation.js';
import { labelSelectorFromMeta } from '../../../machinery/labels.js';
import { StatusError } from '../../../machinery/errors.js';
import { goLabelSelector, goStringMap } from '../../../machinery/go-syntax.js';
import { sameJSON, validatePodTemplateSpec, validateRestartAlways } from '../../core/v1/validation.js';
import type { Deployment, LabelSelector } from './types.js';

const STRATEGY_TYPES = ['Recreate', 'RollingUpdate'];

function isEmptySelector(sel: LabelSelector | undefined): boolean {
  return Object.keys(sel?.matchLabels ?? {}).length === 0 && (sel?.matchExpressions ?? []).length === 0;
}

function nonNegative(value: number | undefined, path: string): FieldError[] {
  return value !== undefined && value < 0 ? [fieldErrors.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** An int or a percentage ("25%"); both non-negative. */
function validateIntOrPercent(value: number | string | undefined, path: string): FieldError[] {
  if (value === undefined) return [];
  if (typeof value === 'number') return nonNegative(value, path);
  const m = /^(\d+)%$/.exec(value);
  if (m === null) return [fieldErrors.invalid(path, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  if (Number(m[1]) > 100) return [fieldErrors.invalid(path, value, 'must not be greater than 100%')];
  return [];
}

export function validateDeployment(obj: KubeObject): FieldError[] {
  const d = obj as Deployment;
  const spec = d.spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  if (spec.selector === undefined || spec.selector === null) {
    errs.push(fieldErrors.required('spec.selector'));
  } else if (isEmptySelector(spec.selector)) {
    errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for deployment'));
  } else {
    let matches = true;
    try {
      const selector = labelSelectorFromMeta(spec.selector);
      matches = selector.matches(spec.template?.metadata?.labels ?? {});
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), err.message));
    }
    if (!matches) {
      errs.push(
        fieldErrors.invalid('spec.template.metadata.labels', goStringMap(spec.template?.metadata?.labels), '`selector` does not match template `labels`'),
      );
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...validateRestartAlways(spec.template, 'spec.template'));
  const type = spec.strategy?.type ?? '';
  if (type === '') errs.push(fieldErrors.required('spec.strategy.type'));
  else if (!STRATEGY_TYPES.includes(type)) errs.push(fieldErrors.notSupported('spec.strategy.type', type, STRATEGY_TYPES));
  if (type === 'Recreate' && spec.strategy?.rollingUpdate !== undefined) {
    errs.push(fieldErrors.forbidden('spec.strategy.rollingUpdate', 'may not be specified when strategy `type` is \'Recreate\''));
  }
  const ru = spec.strategy?.rollingUpdate;
  if (type === 'RollingUpdate' && ru !== undefined) {
    errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
    errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
    if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
      errs.push(fieldErrors.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
    errs.push(fieldErrors.invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

function isZero(v: number | string | undefined): boolean {
  return v === 0 || v === '0%';
}

export function validateDeploymentUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateDeployment(obj);
  const a = (obj as Deployment).spec?.selector;
  const b = (old as Deployment).spec?.selector;
  if (!sameJSON(a ?? null, b ?? null)) errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(a), FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

export function validateDeploymentStatus(obj: KubeObject): FieldError[] {
  const status = (obj as Deployment).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'] as const) {
    errs.push(...nonNegative(status[f], `status.${f}`));
  }
  return errs;
}
