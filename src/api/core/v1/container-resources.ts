// A container's resource requirements as kube-apiserver 1.32 validates them
// (ValidateResourceRequirements): a request may not exceed its limit, and a
// resource that may not be overcommitted (hugepages, extended resources)
// needs a limit, which its request must equal. Quantities that do not parse
// are refused earlier, by the typed decode.

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { type Quantity, parseQuantity } from '../../../machinery/quantity.js';

/** helper.IsOvercommitAllowed: native resources (no domain, or a kubernetes.io one) except hugepages. */
export function overcommitAllowed(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return native && !name.startsWith('hugepages-');
}

function quantity(value: unknown): Quantity | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return parseQuantity(String(value));
  } catch {
    return undefined;
  }
}

interface Requirements {
  limits?: Record<string, unknown> | null;
  requests?: Record<string, unknown> | null;
}

/** The request-versus-limit rules for `resources` at `path` (e.g. spec.containers[0].resources). */
export function validateResourceRequirements(resources: Requirements | null | undefined, path: string): FieldError[] {
  if (resources === null || resources === undefined) return [];
  const errs: FieldError[] = [];
  const limits = resources.limits ?? {};
  for (const [name, raw] of Object.entries(resources.requests ?? {})) {
    const request = quantity(raw);
    if (request === undefined) continue;
    if (!Object.hasOwn(limits, name)) {
      if (!overcommitAllowed(name)) errs.push(fieldErrors.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
      continue;
    }
    const limit = quantity(limits[name]);
    if (limit === undefined) continue;
    const order = request.cmp(limit);
    if (order !== 0 && !overcommitAllowed(name)) {
      errs.push(fieldErrors.invalid(`${path}.requests`, request.toString(), `must be equal to ${name} limit of ${limit.toString()}`));
    } else if (order > 0) {
      errs.push(fieldErrors.invalid(`${path}.requests`, request.toString(), `must be less than or equal to ${name} limit of ${limit.toString()}`));
    }
  }
  return errs;
}
