// Strategic merge patch (application/strategic-merge-patch+json), applied as
// kube-apiserver 1.32 applies it (k8s.io/apimachinery strategicpatch,
// server side: parallel lists merged, unmatched nulls ignored).
//
// Semantics, driven by each field's patchStrategy / patchMergeKey:
// - maps merge recursively; a null value deletes the key;
// - lists with patchStrategy "merge" merge by patchMergeKey (lists of maps) or
//   by value (primitive lists, a union); every other list is replaced;
// - directives: `$patch: replace | delete` on a map, `$patch: delete |
//   replace` on a list element, `$retainKeys` (keys to keep),
//   `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` (the
//   order kubectl apply wants; client-side apply always sends it).
// Errors are StatusErrors with upstream's messages and codes (400 for
// malformed directives, 422 for lists of lists, 500 for other merge errors).
//
// Contract: never mutates `original` or `patch`; the result shares no
// structure with either. Directive keys and nulls never reach the result:
// where upstream would copy a patch value verbatim and let the typed decode
// drop them, we drop them here, since our objects are not decoded into types.

import { badArgType, badPrimitiveList, badRetainKeys, badSetElementOrder, mergeFailure, noListOfLists, noMergeKey, patchNotAnObject, unknownPatchType } from './smp/errors.js';
import { goValue } from './smp/go-format.js';
import { DIRECTIVE, type ElementKind, type JsonMap, isMap, normalizeElementOrder, partitionByPresence } from './smp/order.js';
import { deepCopy } from './deep-copy.js';

/** What the schema says of one field, as the Go struct tags say it. */
export interface SmpFieldMeta {
  /** "merge", "replace", "retainKeys" or "merge,retainKeys"; absent means replace for lists, merge for maps. */
  patchStrategy?: string;
  patchMergeKey?: string;
  listType?: string;
  listMapKeys?: string[];
  isList?: boolean;
  isMap?: boolean;
  isPrimitiveList?: boolean;
}

/**
 * Field metadata lookup. `path` holds JSON field names from the object's root;
 * list elements add no segment (["spec","containers","env"] is the env of any
 * container) and entries of map-typed fields add their key.
 * undefined means "nothing known": maps then merge and lists are replaced.
 */
export interface SmpSchema {
  fieldAt(path: readonly string[]): SmpFieldMeta | undefined;
}

/** No metadata at all: every list is replaced (JSON merge patch plus directives). */
export const schemalessSmp: SmpSchema = { fieldAt: () => undefined };

const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: SmpSchema): unknown {
  if (!isMap(original)) throw new TypeError('strategic merge patch: the original must be a JSON object');
  // A JSON null patch decodes to an empty map upstream: nothing changes.
  if (patch === null) return deepCopy(original);
  if (!isMap(patch)) throw patchNotAnObject(patch);
  return new Merger(schema).mergeMap(deepCopy(original), deepCopy(patch), []);
}

interface Strategy {
  strategy: string;
  retainKeys: boolean;
}

function parseStrategy(raw: string | undefined): Strategy {
  const parts = raw === undefined || raw === '' ? [] : raw.split(',');
  if (parts.length === 0) return { strategy: '', retainKeys: false };
  if (parts.length === 1) return parts[0] === 'retainKeys' ? { strategy: '', retainKeys: true } : { strategy: parts[0]!, retainKeys: false };
  if (parts.length === 2 && parts[0] === 'retainKeys') return { strategy: parts[1]!, retainKeys: true };
  if (parts.length === 2 && parts[1] === 'retainKeys') return { strategy: parts[0]!, retainKeys: true };
  throw mergeFailure(`unexpected patch strategy: ${goValue(parts)}`);
}

/** "$setElementOrder/containers" → "containers"; malformed directives are 400s. */
function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST ? badPrimitiveList() : badSetElementOrder();
  }
  return key.slice(slash + 1);
}

function isDirectiveKey(key: string): boolean {
  return key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(`${SET_ELEMENT_ORDER}/`) || key.startsWith(`${DELETE_FROM_PRIMITIVE_LIST}/`);
}

/**
 * A patch value taken as it is (new field, replaced list or map): without
 * directive keys and null map entries, which a typed decode would drop.
 */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (!isMap(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || isDirectiveKey(k)) continue;
    out[k] = clean(v);
  }
  return out;
}

/** The Go reflect kind of a decoded JSON value, which decides merge vs replace. */
type GoKind = 'map' | 'slice' | 'string' | 'int64' | 'float64' | 'bool' | 'nil';

function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/** The common element kind of lists; errors for mixed kinds, nested lists or no elements at all. */
function elementKind(...lists: Array<readonly unknown[]>): ElementKind {
  let first: GoKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const kind = goKind(v);
      if (first === undefined) {
        if (kind === 'slice') throw noListOfLists();
        first = kind;
      } else if (kind !== first) {
        throw mergeFailure(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (first === undefined) throw mergeFailure('no elements in any of the given slices');
  return first === 'map' ? 'map' : 'scalar';
}

class Merger {
  constructor(private readonly schema: SmpSchema) {}

  private meta(path: readonly string[]): { strategy: Strategy; mergeKey: string } {
    const field = this.schema.fieldAt(path);
    return { strategy: parseStrategy(field?.patchStrategy), mergeKey: field?.patchMergeKey ?? '' };
  }

  /** Merges `patch` into `original`; both are private copies and may be changed. */
  mergeMap(original: JsonMap, patch: JsonMap, path: string[]): JsonMap {
    if (DIRECTIVE in patch) {
      const directive = patch[DIRECTIVE];
      if (directive === 'replace') {
        delete patch[DIRECTIVE];
        return clean(patch) as JsonMap;
      }
      if (directive === 'delete') return {};
      throw unknownPatchType(directive, patch);
    }
    this.applyRetainKeys(original, patch);
    this.applySetElementOrder(original, patch, path);

    for (const patchKey of Object.keys(patch)) {
      let key = patchKey;
      let isDeleteList = false;
      if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        key = directiveTarget(patchKey, DELETE_FROM_PRIMITIVE_LIST);
        isDeleteList = true;
      }
      const patchValue = patch[patchKey];
      if (patchValue === null) {
        delete original[key];
        continue;
      }
      if (!(key in original)) {
        // Upstream quirk kept on purpose: a deletion list for a field the
        // object lacks becomes that field's value.
        original[key] = clean(patchValue);
        continue;
      }
      const originalValue = original[key];
      if (goKind(originalValue) !== goKind(patchValue)) {
        original[key] = clean(patchValue);
        continue;
      }
      const fieldPath = [...path, key];
      if (isMap(originalValue)) {
        const { strategy } = this.meta(fieldPath);
        original[key] = strategy.strategy === 'replace' ? clean(patchValue) : this.mergeMap(originalValue, patchValue as JsonMap, fieldPath);
      } else if (Array.isArray(originalValue)) {
        const { strategy, mergeKey } = this.meta(fieldPath);
        original[key] = this.mergeList(originalValue, patchValue as unknown[], strategy.strategy, mergeKey, isDeleteList, fieldPath);
      } else {
        original[key] = patchValue;
      }
    }
    return original;
  }

  /** `$retainKeys`: drop every original key not listed; the patch may only set listed keys. */
  private applyRetainKeys(original: JsonMap, patch: JsonMap): void {
    if (!(RETAIN_KEYS in patch)) return;
    const list = patch[RETAIN_KEYS];
    delete patch[RETAIN_KEYS];
    if (!Array.isArray(list)) throw badRetainKeys();
    const retained = new Set<unknown>(list);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
      if (!retained.has(k)) throw badRetainKeys();
    }
    for (const k of Object.keys(original)) if (!retained.has(k)) delete original[k];
  }

  /**
   * `$setElementOrder/<field>`: merges the field's list now (removing it from
   * the patch) and orders the result: the directive's order first, then the
   * patch's, then the server's.
   */
  private applySetElementOrder(original: JsonMap, patch: JsonMap, path: string[]): void {
    for (const directiveKey of Object.keys(patch)) {
      if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
      const order = patch[directiveKey];
      delete patch[directiveKey];
      if (!Array.isArray(order)) throw badArgType('slice', order);
      const key = directiveTarget(directiveKey, SET_ELEMENT_ORDER);

      const foundOriginal = key in original;
      const foundPatch = key in patch;
      let originalList: unknown[] = [];
      let patchList: unknown[] = [];
      if (foundOriginal) {
        if (!Array.isArray(original[key])) throw badArgType('slice', original[key]);
        originalList = original[key] as unknown[];
      }
      if (foundPatch) {
        if (!Array.isArray(patch[key])) throw badArgType('slice', patch[key]);
        patchList = patch[key] as unknown[];
      }
      const fieldPath = [...path, key];
      const { strategy, mergeKey } = this.meta(fieldPath);
      validateAgainstOrder(patchList, order, mergeKey);

      let merged: unknown[];
      if (foundOriginal && !foundPatch) merged = originalList;
      else if (!foundOriginal && foundPatch) merged = clean(patchList) as unknown[];
      else if (foundOriginal && foundPatch) merged = this.mergeList(originalList, patchList, strategy.strategy, mergeKey, false, fieldPath);
      else continue;

      const partitionKind: ElementKind = mergeKey === '' ? 'scalar' : 'map';
      const [inOrder, serverOnly] = partitionByPresence(merged, order, mergeKey, partitionKind);
      const kind = elementKind(originalList, patchList);
      original[key] = normalizeElementOrder(inOrder, serverOnly, order, originalList, mergeKey, kind);
      delete patch[key];
    }
  }

  private mergeList(original: unknown[], patch: unknown[], strategy: string, mergeKey: string, isDeleteList: boolean, path: string[]): unknown[] {
    if (strategy !== 'merge') return clean(patch) as unknown[];
    if (original.length === 0 && patch.length === 0) return original;
    const kind = elementKind(original, patch);

    let base = original;
    let patchItems = patch;
    let merged: unknown[];
    if (kind === 'scalar') {
      // Sets, not scans: primitives compare as === does (a scan per element would be quadratic).
      if (isDeleteList) {
        const deleted = new Set(patch);
        return original.filter((v) => !deleted.has(v));
      }
      const seen = new Set<unknown>();
      merged = [];
      for (const list of [original, patch]) {
        for (const v of list) {
          if (seen.has(v)) continue;
          seen.add(v);
          merged.push(v);
        }
      }
    } else {
      if (mergeKey === '') throw mergeFailure('cannot merge lists without merge key for type struct');
      [base, patchItems] = this.applyListDirectives(original, patch, mergeKey);
      merged = base.slice();
      // Each merge key's first position in the merged list, kept as items are added.
      const positionOf = new Map<unknown, number>();
      merged.forEach((m, i) => {
        if (isMap(m) && mergeKey in m && !positionOf.has(m[mergeKey])) positionOf.set(m[mergeKey], i);
      });
      for (const item of patchItems as JsonMap[]) {
        if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
        const at = positionOf.get(item[mergeKey]) ?? -1;
        if (at >= 0) merged[at] = this.mergeMap(merged[at] as JsonMap, item, path);
        else {
          positionOf.set(item[mergeKey], merged.length);
          merged.push(clean(item));
        }
      }
    }
    const partitionKind: ElementKind = mergeKey === '' ? 'scalar' : 'map';
    const [inPatch, serverOnly] = partitionByPresence(merged, patchItems, mergeKey, partitionKind);
    return normalizeElementOrder(inPatch, serverOnly, patchItems, base, mergeKey, kind);
  }

  /**
   * Elements carrying `$patch`: "delete" removes every original element with
   * that merge key, "replace" makes the patch's other elements the whole list.
   * Returns the (possibly reduced or replaced) original and the plain elements.
   */
  private applyListDirectives(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
    let base = original;
    const plain: unknown[] = [];
    let replace = false;
    for (const raw of patch) {
      const item = raw as JsonMap;
      if (!(DIRECTIVE in item)) {
        plain.push(item);
        continue;
      }
      switch (item[DIRECTIVE]) {
        case 'delete':
          if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
          base = base.filter((o) => !(isMap(o) && mergeKey in o && o[mergeKey] === item[mergeKey]));
          break;
        case 'replace':
          replace = true;
          break;
        case 'merge':
          throw mergeFailure('merging lists cannot yet be specified in the patch');
        default:
          throw unknownPatchType(item[DIRECTIVE], item);
      }
    }
    if (replace) return [clean(plain) as unknown[], []];
    return [base, plain];
  }
}

/**
 * The patch list's elements (deletions and directive elements aside) must
 * appear in the `$setElementOrder` list, in the same relative order.
 */
function validateAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let candidates = patchList;
  if (mergeKey !== '') {
    for (const item of patchList) if (!isMap(item)) throw badArgType('map', item);
    candidates = patchList.filter((item) => (item as JsonMap)[DIRECTIVE] !== 'delete');
  }
  let p = 0;
  let o = 0;
  while (p < candidates.length && o < order.length) {
    const item = candidates[p];
    if (isMap(item) && DIRECTIVE in item) {
      p++;
      continue;
    }
    if (sameMergeKey(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < candidates.length && o >= order.length) {
    throw mergeFailure(
      `The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}\n`,
    );
  }
}

function sameMergeKey(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isMap(left)) throw badArgType('map', left);
  if (!isMap(right)) throw badArgType('map', right);
  if (!(mergeKey in left)) throw noMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}
