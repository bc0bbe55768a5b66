// policy/v1 PodDisruptionBudget validation (upstream pkg/apis/policy/validation).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors, GoValue } from '../../../machinery/field-errors.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation.js';
import { labelSelectorFromMeta } from '../../../machinery/labels.js';
import { StatusError } from '../../../machinery/errors.js';
import { goLabelSelector } from '../../../machinery/go-syntax.js';
import type { PodDisruptionBudget } from './types.js';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

/** An intstr.IntOrString as %#v prints it (the policy validation quotes the struct, not its value). */
function goIntOrString(value: number | string): GoValue {
  return typeof value === 'number'
    ? new GoValue(`intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`)
    : new GoValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(value)}}`);
}

function intOrPercent(value: number | string | undefined, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'number') return value < 0 ? [fieldErrors.invalid(path, goIntOrString(value), IS_NEGATIVE_ERROR_MSG)] : [];
  const m = /^(\d+)%$/.exec(value);
  if (m === null) return [fieldErrors.invalid(path, goIntOrString(value), "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  if (Number(m[1]) > 100) return [fieldErrors.invalid(path, goIntOrString(value), 'must not be greater than 100%')];
  return [];
}

export function validatePodDisruptionBudget(obj: KubeObject): FieldError[] {
  const spec = (obj as PodDisruptionBudget).spec ?? {};
  const errs: FieldError[] = [];
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) {
    errs.push(fieldErrors.invalid('spec', new GoValue('policy.PodDisruptionBudgetSpec{…}'), 'minAvailable and maxUnavailable cannot be both set'));
  }
  errs.push(...intOrPercent(spec.minAvailable, 'spec.minAvailable'));
  errs.push(...intOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  if (spec.selector !== undefined && spec.selector !== null) {
    try {
      labelSelectorFromMeta(spec.selector);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), err.message));
    }
  }
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== null && !EVICTION_POLICIES.includes(policy)) {
    errs.push(fieldErrors.notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  }
  return errs;
}

export function validatePodDisruptionBudgetStatus(obj: KubeObject): FieldError[] {
  const status = (obj as PodDisruptionBudget).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) {
    const v = status[f];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(`status.${f}`, v, IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}
