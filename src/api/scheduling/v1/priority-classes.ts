// scheduling.k8s.io/v1 PriorityClass defaults and validation (upstream
// pkg/apis/scheduling/v1/defaults.go and helpers.go, pkg/apis/scheduling/validation),
// and the two system priority classes every cluster has.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation.js';
import type { Loose } from '../../loose.js';

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
const SYSTEM_PREFIX = 'system-';
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

/** The system priority classes (schedulingapiv1.SystemPriorityClasses), with our own descriptions. */
export const SYSTEM_PRIORITY_CLASSES: readonly { name: string; value: number; description: string }[] = [
  { name: 'system-node-critical', value: SYSTEM_CRITICAL_PRIORITY + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: SYSTEM_CRITICAL_PRIORITY, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

export function isSystemPriorityClass(name: string): boolean {
  return SYSTEM_PRIORITY_CLASSES.some((c) => c.name === name);
}

export function defaultPriorityClass(obj: KubeObject): void {
  (obj as Loose).preemptionPolicy ??= 'PreemptLowerPriority';
}

/** Why a system-prefixed class is not a known one (IsKnownSystemPriorityClass's error). */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (known === undefined) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(obj: KubeObject): FieldError[] {
  const pc = obj as Loose;
  const name = obj.metadata.name ?? '';
  const value: number = pc.value ?? 0;
  const errs: FieldError[] = [];
  if (name.startsWith(SYSTEM_PREFIX)) {
    const why = systemClassError(name, value, pc.globalDefault === true);
    if (why !== undefined) {
      errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`));
    }
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = pc.preemptionPolicy;
  if (policy != null) {
    if (policy === '') errs.push(fieldErrors.required('preemptionPolicy'));
    else if (!PREEMPTION_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  }
  return errs;
}

export function validatePriorityClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a = obj as Loose;
  const b = old as Loose;
  // Upstream's update validation checks only what may not change.
  const errs: FieldError[] = [];
  if ((a.value ?? 0) !== (b.value ?? 0)) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if ((a.preemptionPolicy ?? null) !== (b.preemptionPolicy ?? null)) errs.push(fieldErrors.invalid('preemptionPolicy', a.preemptionPolicy ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}
