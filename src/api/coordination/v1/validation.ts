// coordination.k8s.io/v1 Lease validation (upstream pkg/apis/coordination/validation).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation.js';
import type { Lease } from './types.js';

export function validateLease(obj: KubeObject): FieldError[] {
  const spec = (obj as Lease).spec ?? {};
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    errs.push(fieldErrors.invalid('spec.leaseTransitions', spec.leaseTransitions, IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}
