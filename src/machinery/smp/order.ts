// Element order of merged lists, as upstream's strategic merge patch settles
// it: items named by the patch (or by its $setElementOrder list) keep the
// patch's relative order, items only the server had keep theirs, and the two
// runs are interleaved using the server's order as the reference. Items are
// matched by their merge key (lists of maps) or by value (primitive lists).

import { badArgType, noMergeKey } from './errors.js';

export type JsonMap = Record<string, unknown>;
export type ElementKind = 'map' | 'scalar';

export const DIRECTIVE = '$patch';

export function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The value an item is matched by: its merge key for maps (undefined when absent or not a map), itself otherwise. */
function identity(item: unknown, mergeKey: string, kind: ElementKind): unknown {
  if (kind !== 'map') return item;
  return isMap(item) ? item[mergeKey] : undefined;
}

/** Go's == between decoded JSON values, with absent and null both meaning nil. */
function sameIdentity(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}

export function indexIn(list: readonly unknown[], item: unknown, mergeKey: string, kind: ElementKind): number {
  const wanted = identity(item, mergeKey, kind);
  if (list.length <= SCAN_LIMIT) return list.findIndex((v) => sameIdentity(identity(v, mergeKey, kind), wanted));
  return positions(list, mergeKey, kind).get(wanted ?? null) ?? -1;
}

/** Lists up to this long are scanned; longer ones get an index (a scan per lookup would make merges quadratic). */
const SCAN_LIMIT = 16;

const positionIndexes = new WeakMap<readonly unknown[], { signature: string; length: number; first: Map<unknown, number> }>();

/** Each identity's first position in `list` (what findIndex would find), built once per list. */
function positions(list: readonly unknown[], mergeKey: string, kind: ElementKind): Map<unknown, number> {
  const signature = `${kind}\u0000${mergeKey}`;
  const cached = positionIndexes.get(list);
  if (cached !== undefined && cached.signature === signature && cached.length === list.length) return cached.first;
  const first = new Map<unknown, number>();
  for (let i = 0; i < list.length; i++) {
    // A Map matches keys as === does (JSON values have no NaN), with absent and null as one: sameIdentity.
    const id = identity(list[i], mergeKey, kind) ?? null;
    if (!first.has(id)) first.set(id, i);
  }
  positionIndexes.set(list, { signature, length: list.length, first });
  return first;
}

/** Every item must be a map carrying the merge key. */
export function requireMergeKey(mergeKey: string, ...lists: Array<readonly unknown[]>): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isMap(item)) throw badArgType('map', item);
      if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    }
  }
}

/**
 * Stable insertion sort with upstream's comparison: two items both present in
 * `order` compare by position; any other pair counts as "less", which only
 * matters for items missing from `order` (rare) and then matches Go's result
 * for lists of up to 20 items.
 */
function sortByOrder(items: unknown[], order: readonly unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  if (items.length > SCAN_LIMIT) {
    // Every item in `order`: the comparison is a total order by position, and
    // a stable sort by it gives what the insertion sort would, in n log n.
    const at = items.map((item) => indexIn(order, item, mergeKey, kind));
    if (at.every((i) => i >= 0)) {
      const byPosition = items.map((item, i) => ({ item, at: at[i]! }));
      byPosition.sort((a, b) => a.at - b.at);
      return byPosition.map((e) => e.item);
    }
  }
  const out = items.slice();
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexIn(order, a, mergeKey, kind);
    if (ia < 0) return true;
    const ib = indexIn(order, b, mergeKey, kind);
    if (ib < 0) return true;
    return ia < ib;
  };
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) {
      const tmp = out[j];
      out[j] = out[j - 1];
      out[j - 1] = tmp;
    }
  }
  return out;
}

/** Sorts `items` by `order`; for maps, items carrying `$patch: delete` go last. */
export function normalizeSliceOrder(items: unknown[], order: readonly unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let keep = items;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    requireMergeKey(mergeKey, items, order);
    keep = items.filter((v) => (v as JsonMap)[DIRECTIVE] !== 'delete');
    toDelete = items.filter((v) => (v as JsonMap)[DIRECTIVE] === 'delete');
  }
  return [...sortByOrder(keep, order, mergeKey, kind), ...toDelete];
}

/**
 * Interleaves server-only items (`left`) into patch items (`right`): a
 * server-only item goes first only when both items are known to the server
 * and it precedes the patch item there.
 */
function mergeSorted(left: unknown[], right: unknown[], serverOrder: readonly unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const patchSorted = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const serverSorted = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSorted(serverSorted, patchSorted, serverOrder, mergeKey, kind);
}

/** Splits `items` into those named by `by` and the rest, keeping their order. */
export function partitionByPresence(items: unknown[], by: readonly unknown[], mergeKey: string, kind: ElementKind): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  // The identities `by` names, once (a scan of `by` per item would be quadratic).
  const named = new Set<unknown>();
  for (const b of by) {
    if (kind !== 'map') named.add(b ?? null);
    else if (isMap(b) && mergeKey in b) named.add(b[mergeKey] ?? null);
  }
  for (const item of items) {
    if (kind === 'map') {
      if (!isMap(item)) throw badArgType('map', item);
      if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
      (named.has(item[mergeKey] ?? null) ? inPatch : serverOnly).push(item);
    } else {
      (named.has(item ?? null) ? inPatch : serverOnly).push(item);
    }
  }
  return [inPatch, serverOnly];
}
