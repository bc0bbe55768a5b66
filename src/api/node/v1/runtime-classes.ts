// node.k8s.io/v1 RuntimeClass validation (upstream pkg/apis/node/validation):
// the handler is a DNS label and immutable; overhead quantities are valid and
// non-negative; scheduling's node selector and tolerations as on pods.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { parseQuantity } from '../../../machinery/quantity.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Label, isQualifiedName, isValidLabelValue, validateLabels } from '../../../machinery/validation.js';
import type { Loose } from '../../loose.js';

const OPERATORS = ['Equal', 'Exists'];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** core/validation.ValidateTolerations. */
export function validateTolerations(tolerations: Loose[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  tolerations.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key: string = t.key ?? '';
    const operator: string = t.operator ?? '';
    const value: string = t.value ?? '';
    const effect: string = t.effect ?? '';
    if (key !== '') for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${p}.key`, key, m));
    if (key === '' && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds != null && effect !== 'NoExecute') errs.push(fieldErrors.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(fieldErrors.invalid(`${p}.operator`, value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') errs.push(fieldErrors.invalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(fieldErrors.notSupported(`${p}.operator`, operator, OPERATORS));
    }
    if (effect !== '' && !EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(`${p}.effect`, effect, EFFECTS));
  });
  return errs;
}

export function validateRuntimeClass(obj: KubeObject): FieldError[] {
  const rc = obj as Loose;
  const handler: string = rc.handler ?? '';
  const errs = isDNS1123Label(handler).map((m) => fieldErrors.invalid('handler', handler, m));
  for (const [name, q] of Object.entries((rc.overhead?.podFixed ?? {}) as Record<string, unknown>)) {
    // Upstream reports podFixed under the name of the requirements it checks them as.
    const p = `overhead.limits[${name}]`;
    try {
      const quantity = parseQuantity(String(q));
      if (quantity.sign() < 0) errs.push(fieldErrors.invalid(p, quantity.toString(), 'must be greater than or equal to 0'));
    } catch (err) {
      errs.push(fieldErrors.invalid(p, String(q), err instanceof Error ? err.message : String(err)));
    }
  }
  const scheduling: Loose | undefined = rc.scheduling ?? undefined;
  if (scheduling != null) {
    errs.push(...validateLabels(scheduling.nodeSelector ?? undefined, 'scheduling.nodeSelector'));
    const tolerations: Loose[] = scheduling.tolerations ?? [];
    errs.push(...validateTolerations(tolerations, 'scheduling.tolerations.tolerations'));
    const seen = new Set<string>();
    tolerations.forEach((t, i) => {
      const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(key)) errs.push(fieldErrors.duplicate(`scheduling.tolerations[${i}]`, t));
      seen.add(key);
    });
  }
  return errs;
}

export function validateRuntimeClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a: string = (obj as Loose).handler ?? '';
  // Upstream's update checks only metadata and the handler.
  return a !== ((old as Loose).handler ?? '') ? [fieldErrors.invalid('handler', a, FIELD_IMMUTABLE_ERROR_MSG)] : [];
}
