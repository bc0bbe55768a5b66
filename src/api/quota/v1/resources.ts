// Resource lists as quota arithmetic sees them (upstream
// k8s.io/apiserver/pkg/quota/v1/resources.go): a map from resource name to an
// exact Quantity. Wire lists (strings or numbers) are parsed once with
// fromWire(); toWire() gives the canonical strings a real server writes back.
// Every operation returns a new map and never changes its inputs.

import { type Quantity, parseQuantity, quantityFromInt } from '../../../machinery/quantity.js';
import type { ResourceList } from '../../core/v1/types.js';

export type Usage = Map<string, Quantity>;

export const ZERO: Quantity = quantityFromInt(0n);
export const ONE: Quantity = quantityFromInt(1n);

/** Parses a wire list; a value that does not parse counts as zero (validation rejects those earlier). */
export function fromWire(list: ResourceList | undefined): Usage {
  const out: Usage = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    try {
      out.set(k, parseQuantity(String(v)));
    } catch {
      out.set(k, ZERO);
    }
  }
  return out;
}

/** Canonical strings, keys sorted (as Go's JSON encoder writes a map). */
export function toWire(usage: Usage): ResourceList {
  const out: ResourceList = {};
  for (const k of [...usage.keys()].sort()) out[k] = usage.get(k)!.toString();
  return out;
}

export function add(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    out.set(k, have === undefined ? v : have.add(v));
  }
  return out;
}

/** a − b per name; names only in b come out negated. */
export function subtract(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    out.set(k, have === undefined ? v.neg() : have.sub(v));
  }
  return out;
}

/** a − b per name, never below zero (names only in b come out zero). */
export function subtractNonNegative(a: Usage, b: Usage): Usage {
  const out: Usage = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const q = other === undefined ? v : v.sub(other);
    out.set(k, q.sign() > 0 ? q : ZERO);
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, ZERO);
  return out;
}

/** Only the named entries. */
export function mask(usage: Usage, names: Iterable<string>): Usage {
  const out: Usage = new Map();
  for (const n of names) {
    const v = usage.get(n);
    if (v !== undefined) out.set(n, v);
  }
  return out;
}

/** Whether every name in b that a also has is a ≤ b; the names that exceed otherwise. */
export function lessThanOrEqual(a: Usage, b: Usage): string[] {
  const exceeded: string[] = [];
  for (const [k, limit] of b) {
    const v = a.get(k);
    if (v !== undefined && v.cmp(limit) > 0) exceeded.push(k);
  }
  return exceeded;
}

export function equals(a: Usage, b: Usage): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (o === undefined || o.cmp(v) !== 0) return false;
  }
  return true;
}

export function removeZeros(usage: Usage): Usage {
  const out: Usage = new Map();
  for (const [k, v] of usage) if (!v.isZero()) out.set(k, v);
  return out;
}

export function negativeNames(usage: Usage): string[] {
  return [...usage].filter(([, v]) => v.sign() < 0).map(([k]) => k);
}

/** Per name, the larger of the two (names in either). */
export function max(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    if (have === undefined || v.cmp(have) > 0) out.set(k, v);
  }
  return out;
}

/** `a=1,b=2Gi`, keys sorted (upstream's prettyPrint). */
export function prettyPrint(usage: Usage): string {
  return [...usage.keys()]
    .sort()
    .map((k) => `${k}=${usage.get(k)!.toString()}`)
    .join(',');
}

/** Names sorted and joined with commas (upstream's prettyPrintResourceNames). */
export function prettyPrintNames(names: Iterable<string>): string {
  return [...names].sort().join(',');
}
