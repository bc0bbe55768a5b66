// The cross-field rules of a LimitRange item (upstream ValidateLimitRange,
// after the per-name checks): min ≤ defaultRequest ≤ default ≤ max,
// maxLimitRequestRatio ≥ 1 and ≤ max/min, default = defaultRequest for
// resources that may not be overcommitted (hugepages, extended resources), and
// a PersistentVolumeClaim item needs a storage min or max. Names are taken in
// sorted order (upstream iterates a set, in random order).

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { type Quantity, parseQuantity } from '../../../machinery/quantity.js';
import type { LimitRangeItem, ResourceList } from './types.js';
import { goQuantity } from './quota-validation.js';

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

/** helper.IsOvercommitAllowed: native resources except hugepages. */
function overcommitAllowed(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return native && !name.startsWith('hugepages-');
}

/** Go's %f. */
const goFloat = (x: number): string => x.toFixed(6);

export function validateLimitRangeItemValues(item: LimitRangeItem, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (item.type === 'PersistentVolumeClaim' && item.min?.['storage'] === undefined && item.max?.['storage'] === undefined) {
    errs.push(fieldErrors.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
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
