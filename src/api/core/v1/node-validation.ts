// Node validation as kube-apiserver 1.32 makes it (ValidateNode,
// ValidateNodeUpdate): taints (reported under metadata.taints, upstream's
// path), pod CIDRs, and on update the pod CIDRs and provider ID that may only
// be set once.

import { FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { goQuote } from '../../../machinery/go-syntax.js';
import { validateCIDR } from '../../../machinery/selector-validation.js';
import { isQualifiedName, isValidLabelValue } from '../../../machinery/validation.js';
import { isObject, list, str } from '../../loose.js';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function taints(value: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  list(value).forEach((raw, i) => {
    const t = isObject(raw) ? raw : {};
    const p = `metadata.taints[${i}]`;
    const key = str(t['key']);
    const effect = str(t['effect']);
    const taintValue = str(t['value']);
    errs.push(...isQualifiedName(key).map((m) => fieldErrors.invalid(`${p}.key`, key, m)));
    const valueErrs = isValidLabelValue(taintValue);
    if (valueErrs.length > 0) errs.push(fieldErrors.invalid(`${p}.value`, taintValue, valueErrs.join(';')));
    if (effect === '') errs.push(fieldErrors.required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      const added = t['timeAdded'] === undefined || t['timeAdded'] === null ? '<nil>' : `"${str(t['timeAdded'])}"`;
      const shown = new GoValue(`core.Taint{Key:${goQuote(key)}, Value:${goQuote(taintValue)}, Effect:${goQuote(effect)}, TimeAdded:${added}}`);
      errs.push(new FieldError('Duplicate', p, shown, 'taints must be unique by key and effect pair'));
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  return errs;
}

function podCIDRs(spec: Record<string, unknown>): FieldError[] {
  return list(spec['podCIDRs']).flatMap((cidr, i) => validateCIDR(str(cidr), `spec.podCIDRs[${i}]`));
}

const specOf = (obj: KubeObject): Record<string, unknown> => (isObject(obj['spec']) ? obj['spec'] : {});

export function validateNode(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  return [...taints(spec['taints']), ...podCIDRs(spec)];
}

export function validateNodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const errs: FieldError[] = [];
  const oldCIDRs = list(oldSpec['podCIDRs']).map(str);
  const cidrs = list(spec['podCIDRs']).map(str);
  const forbiddenCIDR = (): FieldError => fieldErrors.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid');
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== cidrs.length) errs.push(forbiddenCIDR());
    else oldCIDRs.forEach((c, i) => c !== cidrs[i] && errs.push(forbiddenCIDR()));
  }
  const oldProvider = str(oldSpec['providerID']);
  if (oldProvider !== '' && oldProvider !== str(spec['providerID'])) {
    errs.push(fieldErrors.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  return [...errs, ...taints(spec['taints'])];
}
