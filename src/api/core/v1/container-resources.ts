// A container's resource requirements as kube-apiserver 1.32 validates them
// (ValidateResourceRequirements): a request may not exceed its limit, and a
// resource that may not be overcommitted (hugepages, extended resources)
// needs a limit, which its request must equal. Quantities that do not parse
// are refused earlier, by the typed decode.

import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import { isQualifiedName } from '../../../machinery/validation.js';
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

const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

/** validateContainerResourceName: a qualified name; unprefixed ones standard (and for containers); prefixed ones native or extended. */
function resourceNameErrors(name: string, path: string): FieldError[] {
  const shown = new GoValue(name); // a core.ResourceName prints unquoted
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, shown, m));
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.has(name) && !name.startsWith('requests.hugepages-')) errs.push(fieldErrors.invalid(path, shown, 'must be a standard resource type or fully qualified'));
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('hugepages-')) errs.push(fieldErrors.invalid(path, shown, 'must be a standard resource for containers'));
  } else if (!name.includes('kubernetes.io/') && (name.startsWith('requests.') || isQualifiedName(`requests.${name}`).length > 0)) {
    errs.push(fieldErrors.invalid(path, shown, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue's sign check (the integer check of extended resources is not made). */
function quantityErrors(raw: unknown, path: string): FieldError[] {
  const q = quantity(raw);
  return q !== undefined && q.sign() < 0 ? [fieldErrors.invalid(path, q.toString(), 'must be greater than or equal to 0')] : [];
}

/** The resource names, quantities and request-versus-limit rules for `resources` at `path` (e.g. spec.containers[0].resources). */
export function validateResourceRequirements(resources: Requirements | null | undefined, path: string): FieldError[] {
  if (resources === null || resources === undefined) return [];
  const errs: FieldError[] = [];
  const limits = resources.limits ?? {};
  for (const [name, raw] of Object.entries(limits)) {
    errs.push(...resourceNameErrors(name, `${path}.limits[${name}]`), ...quantityErrors(raw, `${path}.limits[${name}]`));
  }
  for (const [name, raw] of Object.entries(resources.requests ?? {})) {
    errs.push(...resourceNameErrors(name, `${path}.requests[${name}]`), ...quantityErrors(raw, `${path}.requests[${name}]`));
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
