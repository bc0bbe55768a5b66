// LimitRange validation (upstream ValidateLimitRange). Per item: the type (a
// standard one or fully qualified, once each), the resource names of max,
// min, default, defaultRequest and maxLimitRequestRatio (container resources
// for Container and Pod items), no defaults on Pod items; then the
// cross-field rules: min ≤ defaultRequest ≤ default ≤ max,
// maxLimitRequestRatio ≥ 1 and ≤ max/min, default = defaultRequest for
// resources that may not be overcommitted (hugepages, extended resources), and
// a PersistentVolumeClaim item needs a storage min or max. Names are taken in
// sorted order (upstream iterates a set, in random order).

import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { type Quantity, parseQuantity } from '../../../machinery/quantity.js';
import { isQualifiedName } from '../../../machinery/validation.js';
import type { LimitRange, LimitRangeItem, ResourceList } from './types.js';
import { goQuantity } from './quota-validation.js';
import { overcommitAllowed } from './container-resources.js';

const LIMIT_TYPES = ['Container', 'PersistentVolumeClaim', 'Pod'];
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const isHugePages = (n: string): boolean => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-');
const isNative = (n: string): boolean => !n.includes('/') || n.includes('kubernetes.io/');

/** validateResourceName: qualified, and standard unless it has a domain. A ResourceName prints bare. */
function resourceName(name: string, path: string): FieldError[] {
  const bare = new GoValue(name);
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, bare, m));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !isHugePages(name)) {
    errs.push(fieldErrors.invalid(path, bare, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/** validateContainerResourceName. */
function containerResourceName(name: string, path: string): FieldError[] {
  const errs = resourceName(name, path);
  const bare = new GoValue(name);
  if (!name.includes('/')) {
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !name.startsWith('hugepages-')) {
      errs.push(fieldErrors.invalid(path, bare, 'must be a standard resource for containers'));
    }
  } else if (!isNative(name) && (name.startsWith('requests.') || isQualifiedName(`requests.${name}`).length > 0)) {
    errs.push(fieldErrors.invalid(path, bare, "doesn't follow extended resource name standard"));
  }
  return errs;
}

function names(item: LimitRangeItem, field: 'max' | 'min' | 'default' | 'defaultRequest' | 'maxLimitRequestRatio', path: string): FieldError[] {
  const check = item.type === 'Pod' || item.type === 'Container' ? containerResourceName : resourceName;
  const errs: FieldError[] = [];
  for (const k of Object.keys(item[field] ?? {}).sort()) {
    const p = `${path}.${field}[${k}]`;
    const text = String(item[field]![k]);
    try {
      parseQuantity(text);
    } catch {
      errs.push(fieldErrors.invalid(p, text, QUANTITY_MSG));
    }
    errs.push(...check(k, p));
  }
  return errs;
}

export function validateLimitRange(obj: KubeObject): FieldError[] {
  const lr = obj as LimitRange;
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const p = `spec.limits[${i}]`;
    const type = item.type ?? '';
    const typeErrors = isQualifiedName(type).map((m) => fieldErrors.invalid(`${p}.type`, type, m));
    if (typeErrors.length === 0 && !type.includes('/') && !LIMIT_TYPES.includes(type)) {
      typeErrors.push(fieldErrors.invalid(`${p}.type`, type, 'must be a standard limit type or fully qualified'));
    }
    errs.push(...typeErrors);
    if (seen.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
    seen.add(type);
    errs.push(...names(item, 'max', p), ...names(item, 'min', p));
    if (type === 'Pod') {
      if (Object.keys(item.default ?? {}).length > 0) errs.push(fieldErrors.forbidden(`${p}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item.defaultRequest ?? {}).length > 0) {
        errs.push(fieldErrors.forbidden(`${p}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
      }
    } else {
      errs.push(...names(item, 'default', p), ...names(item, 'defaultRequest', p));
    }
    errs.push(...validateLimitRangeItemValues(item, p));
  });
  return errs;
}

const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

function parsed(list: ResourceList | undefined): Map<string, { q: Quantity; text: string }> {
  const out = new Map<string, { q: Quantity; text: string }>();
  for (const [k, v] of Object.entries(list ?? {})) {
    try {
      out.set(k, { q: parseQuantity(String(v)), text: String(v) });
    } catch {
      // the per-name checks report unparsable quantities
    }
  }
  return out;
}

/** Go's %f. */
const goFloat = (x: number): string => x.toFixed(6);

export function validateLimitRangeItemValues(item: LimitRangeItem, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (item.type === 'PersistentVolumeClaim' && item.min?.['storage'] === undefined && item.max?.['storage'] === undefined) {
    errs.push(fieldErrors.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  errs.push(...names(item, 'maxLimitRequestRatio', path));
  const min = parsed(item.min);
  const max = parsed(item.max);
  const pod = item.type === 'Pod';
  const defaults = pod ? new Map() : parsed(item.default);
  const defaultRequests = pod ? new Map() : parsed(item.defaultRequest);
  const ratios = parsed(item.maxLimitRequestRatio);
  const keys = new Set([...max.keys(), ...min.keys(), ...defaults.keys(), ...defaultRequests.keys(), ...ratios.keys()]);
  const value = (x: { q: Quantity; text: string }) => goQuantity(x.q, x.text);
  for (const k of [...keys].sort()) {
    const mn = min.get(k);
    const mx = max.get(k);
    const df = defaults.get(k);
    const dr = defaultRequests.get(k);
    const ratio = ratios.get(k);
    const s = (x: { q: Quantity }) => x.q.toString();
    if (mn && mx && mn.q.cmp(mx.q) > 0) errs.push(fieldErrors.invalid(`${path}.min[${k}]`, value(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`));
    if (dr && mn && mn.q.cmp(dr.q) > 0) {
      errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, value(dr), `min value ${s(mn)} is greater than default request value ${s(dr)}`));
    }
    if (dr && mx && dr.q.cmp(mx.q) > 0) {
      errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, value(dr), `default request value ${s(dr)} is greater than max value ${s(mx)}`));
    }
    if (dr && df && dr.q.cmp(df.q) > 0) {
      errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, value(dr), `default request value ${s(dr)} is greater than default limit value ${s(df)}`));
    }
    // Upstream shows min (resp. max) as the bad value of these two.
    if (df && mn && mn.q.cmp(df.q) > 0) errs.push(fieldErrors.invalid(`${path}.default[${k}]`, value(mn), `min value ${s(mn)} is greater than default value ${s(df)}`));
    if (df && mx && df.q.cmp(mx.q) > 0) errs.push(fieldErrors.invalid(`${path}.default[${k}]`, value(mx), `default value ${s(df)} is greater than max value ${s(mx)}`));
    if (ratio && ratio.q.cmp(parseQuantity('1')) < 0) {
      errs.push(fieldErrors.invalid(`${path}.maxLimitRequestRatio[${k}]`, value(ratio), `ratio ${s(ratio)} is less than 1`));
    }
    if (ratio && mn && mx) {
      let ratioValue = Number(ratio.q.value());
      let minValue = mn.q.value();
      let maxValue = mx.q.value();
      if (ratio.q.value() < MAX_MILLI_VALUE && minValue < MAX_MILLI_VALUE && maxValue < MAX_MILLI_VALUE) {
        ratioValue = Number(ratio.q.milliValue()) / 1000;
        minValue = mn.q.milliValue();
        maxValue = mx.q.milliValue();
      }
      const limit = Number(maxValue) / Number(minValue);
      if (ratioValue > limit) {
        errs.push(fieldErrors.invalid(`${path}.maxLimitRequestRatio[${k}]`, value(ratio), `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
      }
    }
    if (!overcommitAllowed(k) && df && dr && df.q.cmp(dr.q) !== 0) {
      errs.push(fieldErrors.invalid(`${path}.defaultRequest[${k}]`, value(dr), `default value ${s(df)} must equal to defaultRequest value ${s(dr)} in ${k}`));
    }
  }
  return errs;
}
