// Writes through pods/ephemeralcontainers (upstream ValidatePodEphemeralContainersUpdate):
// ephemeral containers may be added, never changed or removed; a new one needs
// a unique name and an image, and may not set what only regular containers have.
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { defaultContainer } from './defaults.js';
import type { Container, Pod } from './types.js';
import { sameJSON } from './validation.js';
import { privilegedAllowed } from './capabilities.js';

type Ephemeral = Container & Record<string, unknown>;

/** The fields an ephemeral container may not set, in the Go struct's order (the order of upstream's errors). */
const FORBIDDEN_FIELDS = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** Set as Go sees it: a non-zero value (empty resources are the zero struct). */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'object' && !Array.isArray(v)) return Object.values(v as Record<string, unknown>).some(isSet);
  return !(Array.isArray(v) && v.length === 0);
}

function ephemeralOf(pod: Pod): Ephemeral[] {
  return ((pod.spec as { ephemeralContainers?: Ephemeral[] } | undefined)?.ephemeralContainers ?? []) as Ephemeral[];
}

export function validateEphemeralContainersUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const next = ephemeralOf(pod);
  for (const c of next) defaultContainer(c);
  const before = new Map(ephemeralOf(old).map((c) => [c.name, c]));
  const seen = new Set([...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].map((c) => c.name));
  next.forEach((c, i) => {
    const path = `spec.ephemeralContainers[${i}]`;
    const previous = before.get(c.name);
    if (previous !== undefined) {
      if (!sameJSON(previous, c)) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(c.name)} may not be changed`));
      seen.add(c.name);
      return;
    }
    if ((c.name ?? '') === '') errs.push(fieldErrors.required(`${path}.name`));
    else if (seen.has(c.name)) errs.push(fieldErrors.duplicate(`${path}.name`, c.name));
    seen.add(c.name);
    if ((c.image ?? '') === '') errs.push(fieldErrors.required(`${path}.image`));
    for (const f of FORBIDDEN_FIELDS) if (isSet(c[f])) errs.push(fieldErrors.forbidden(`${path}.${f}`, 'cannot be set for an Ephemeral Container'));
    // Subpaths are bind mounts that outlive the container until the pod exits.
    ((c['volumeMounts'] as { subPath?: string; subPathExpr?: string }[] | undefined) ?? []).forEach((m, i) => {
      if ((m.subPath ?? '') !== '') errs.push(fieldErrors.forbidden(`${path}.volumeMounts[${i}].subPath`, 'cannot be set for an Ephemeral Container'));
      if ((m.subPathExpr ?? '') !== '') errs.push(fieldErrors.forbidden(`${path}.volumeMounts[${i}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
    if (c.securityContext?.privileged === true && !privilegedAllowed()) errs.push(fieldErrors.forbidden(`${path}.securityContext.privileged`, 'disallowed by cluster policy'));
  });
  const names = new Set(next.map((c) => c.name));
  for (const name of before.keys()) {
    if (!names.has(name)) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed`));
  }
  return errs;
}
