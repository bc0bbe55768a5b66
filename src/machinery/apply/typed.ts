/**
 * The walks of server-side apply over JSON values and their schema
 * (structured-merge-diff's typed package): the field set of a value, the
 * comparison of two values, the merge of an applied configuration into a live
 * object, and the removal of a set of paths.
 *
 * Values are plain JSON (objects, arrays, scalars). `undefined` means absent;
 * `null` is a value. Inputs are never changed; outputs share untouched
 * subtrees with the inputs.
 *
 * Stored objects are Go-typed upstream: a field Go always encodes (no
 * omitempty) is present even when a client left it out (`resources: {}` in a
 * container, `creationTimestamp: null`). A TypeNode lists those in `implicit`;
 * the walks over stored objects (`typed` = true) see them, so ownership and
 * comparisons match kube-apiserver's. Applied configurations are not typed
 * (upstream reads them as unstructured), so their walks pass false.
 */
import type { FieldSet } from './fieldset.js';
import { FieldSet as Set_ } from './fieldset.js';
import { fieldElement, keyElement, valueElement } from './path.js';
import { resolveUntyped, type TypeNode } from './schema.js';

type Obj = Record<string, unknown>;

export class ApplySchemaError extends Error {}

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function resolve(t: TypeNode, v: unknown): TypeNode {
  return t.kind === 'untyped' ? resolveUntyped(v) : t;
}

/** A map's keys as a typed walk sees them: its own, then implicit fields it lacks. */
function entriesOf(t: TypeNode, v: Obj, typed: boolean): Array<[string, unknown]> {
  const out = Object.entries(v);
  if (typed && t.implicit !== undefined) {
    for (const [name, zero] of t.implicit()) if (!(name in v)) out.push([name, zero]);
  }
  return out;
}

function childType(t: TypeNode, name: string): { type: TypeNode; declared: boolean } {
  const f = t.field(name);
  return f === undefined ? { type: t.elements(), declared: false } : { type: f, declared: true };
}

/** The path element of a list item; throws ApplySchemaError as upstream's messages. */
export function listItemElement(t: TypeNode, item: unknown): string {
  const keys = t.keys ?? [];
  if (keys.length > 0) {
    if (item === null) throw new ApplySchemaError('associative list with keys may not have a null element');
    if (!isObject(item)) throw new ApplySchemaError('associative list with keys may not have non-map elements');
    const fields: Array<[string, unknown]> = [];
    for (const k of keys) {
      if (k in item) fields.push([k, item[k]]);
      else {
        const def = t.keyDefault?.(k);
        if (def === undefined) throw new ApplySchemaError(`associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
        fields.push([k, def]);
      }
    }
    return keyElement(fields);
  }
  if (isObject(item)) throw new ApplySchemaError("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new ApplySchemaError('not supported: associative list with lists as elements');
  if (item === null) throw new ApplySchemaError("associative list without keys has an element that's an explicit null");
  return valueElement(item);
}

function isEmptyCollection(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

// ---- field sets ------------------------------------------------------------

/**
 * The paths a value sets (upstream's ToFieldSet): every scalar and atomic
 * value, every list item, every map key that is not a declared field, and
 * declared fields holding null or an empty object. With `duplicates` false a
 * repeated list key is an error (applied configurations); stored objects may
 * hold duplicates.
 */
export function toFieldSet(value: unknown, t: TypeNode, typed: boolean, duplicates = true): FieldSet {
  const out = new Set_();
  walkSet(value, t, out, undefined, typed, duplicates, []);
  return out;
}

function addMember(parent: FieldSet, element: string | undefined): void {
  if (element === undefined) return;
  (parent.members ??= new Set()).add(element);
}

function walkSet(v: unknown, t0: TypeNode, parent: FieldSet, element: string | undefined, typed: boolean, duplicates: boolean, path: string[]): void {
  const t = resolve(t0, v);
  if (t.kind === 'scalar' || t.atomic) {
    addMember(parent, element);
    return;
  }
  const node = element === undefined ? parent : parent.child(element);
  if (t.kind === 'list') {
    if (!Array.isArray(v)) return;
    const seen = duplicates ? undefined : new globalThis.Set<string>();
    const items = t.elements();
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      let pe: string;
      try {
        pe = listItemElement(t, item);
      } catch (err) {
        // upstream's validation names the list and the element: `.spec.containers: element 1: …`.
        if (err instanceof ApplySchemaError) throw new ApplySchemaError(`${pathText(path)}: element ${i}: ${err.message}`);
        throw err;
      }
      if (seen !== undefined) {
        if (seen.has(pe)) throw new ApplySchemaError(`${pathText(path)}: duplicate entries for key ${elementText(pe)}`);
        seen.add(pe);
      }
      path.push(pe);
      walkSet(item, items, node, pe, typed, duplicates, path);
      path.pop();
      addMember(node, pe);
    }
    return;
  }
  if (!isObject(v)) return;
  for (const [k, val] of entriesOf(t, v, typed)) {
    const { type, declared } = childType(t, k);
    const pe = fieldElement(k);
    if (!duplicates && !declared && t.closed === true) throw new ApplySchemaError(`${pathText([...path, pe])}: field not declared in schema`);
    path.push(pe);
    walkSet(val, type, node, pe, typed, duplicates, path);
    path.pop();
    if (val === null || (isObject(val) && Object.keys(val).length === 0) || !declared) addMember(node, pe);
  }
}

function pathText(path: string[]): string {
  return path.map(elementText).join('');
}

/** A path element as upstream's PathElement.String prints it in errors: `.name`, `[k=v,…]`, `[=v]`, `[i]`. */
function elementText(e: string): string {
  const rest = e.slice(2);
  const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));
  switch (e.slice(0, 2)) {
    case 'f:':
      return `.${rest}`;
    case 'k:': {
      const key = JSON.parse(rest) as Record<string, unknown>;
      return `[${Object.entries(key).map(([n, v]) => `${n}=${show(v)}`).join(',')}]`;
    }
    case 'v:':
      return `[=${show(JSON.parse(rest))}]`;
    default:
      return `[${rest}]`;
  }
}

// ---- comparison ------------------------------------------------------------

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs` (both stored, typed objects), as upstream's Compare. */
export function compare(lhs: unknown, rhs: unknown, t: TypeNode): Comparison {
  const c: Comparison = { added: new Set_(), modified: new Set_(), removed: new Set_() };
  walkCompare(lhs, rhs, t, [], c);
  return c;
}

function walkCompare(l: unknown, r: unknown, t0: TypeNode, path: string[], c: Comparison): void {
  const t = resolve(t0, r !== undefined ? r : l);
  const leaf =
    t.kind === 'scalar' ||
    t.atomic ||
    (isEmptyCollection(l) && isEmptyCollection(r)) ||
    (t.kind === 'list' && ((l !== undefined && l !== null && !Array.isArray(l)) || (r !== undefined && r !== null && !Array.isArray(r)))) ||
    (t.kind === 'map' && ((l !== undefined && l !== null && !isObject(l)) || (r !== undefined && r !== null && !isObject(r))));
  if (leaf) {
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!deepEqual(l, r)) c.modified.insert(path);
    return;
  }
  if (t.kind === 'list') compareLists(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], t, path, c);
  else {
    const lo = isObject(l) ? l : undefined;
    const ro = isObject(r) ? r : undefined;
    const keys = new Map<string, [unknown, unknown]>();
    if (lo !== undefined) for (const [k, v] of entriesOf(t, lo, true)) keys.set(k, [v, undefined]);
    if (ro !== undefined) {
      for (const [k, v] of entriesOf(t, ro, true)) {
        const e = keys.get(k);
        if (e === undefined) keys.set(k, [undefined, v]);
        else e[1] = v;
      }
    }
    for (const [k, [lv, rv]] of keys) {
      path.push(fieldElement(k));
      walkCompare(lv, rv, childType(t, k).type, path, c);
      path.pop();
    }
  }
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

function indexItems(t: TypeNode, list: unknown[], order: string[], byPe: Map<string, unknown[]>): void {
  for (const item of list) {
    const pe = listItemElement(t, item);
    const seen = byPe.get(pe);
    if (seen === undefined) {
      byPe.set(pe, [item]);
      order.push(pe);
    } else seen.push(item);
  }
}

function compareLists(l: unknown[], r: unknown[], t: TypeNode, path: string[], c: Comparison): void {
  const order: string[] = [];
  const ls = new Map<string, unknown[]>();
  const rs = new Map<string, unknown[]>();
  indexItems(t, l, order, ls);
  const rOrder: string[] = [];
  indexItems(t, r, rOrder, rs);
  for (const pe of rOrder) if (!ls.has(pe)) order.push(pe);
  const items = t.elements();
  for (const pe of order) {
    const lList = ls.get(pe) ?? [];
    const rList = rs.get(pe) ?? [];
    path.push(pe);
    if (lList.length <= 1 && rList.length <= 1) walkCompare(lList[0], rList[0], items, path, c);
    else if (lList.length >= 2 && rList.length >= 2) {
      if (!deepEqual(lList, rList)) c.modified.insert(path);
    } else if (lList.length >= 2) {
      if (rList.length > 0) walkCompare(undefined, rList[0], items, path, c);
      c.removed.insert(path);
    } else {
      if (lList.length > 0) walkCompare(lList[0], undefined, items, path, c);
      c.added.insert(path);
    }
    path.pop();
  }
}

// ---- merge -----------------------------------------------------------------

/**
 * The applied configuration `rhs` merged into the live object `lhs` (upstream's
 * Merge with "keep the right-hand side" for leaves): maps merge key by key,
 * associative lists item by item (live order, with the applied items' relative
 * order where both have them), atomic values are replaced.
 */
export function merge(lhs: unknown, rhs: unknown, t: TypeNode): unknown {
  const tt = resolve(t, rhs !== undefined ? rhs : lhs);
  if (
    tt.kind === 'scalar' ||
    tt.atomic ||
    (isEmptyCollection(lhs) && isEmptyCollection(rhs)) ||
    (tt.kind === 'list' && !(Array.isArray(rhs) || rhs === undefined || rhs === null)) ||
    (tt.kind === 'map' && !(isObject(rhs) || rhs === undefined || rhs === null))
  ) {
    return rhs !== undefined ? rhs : lhs;
  }
  if (tt.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : [];
    const r = Array.isArray(rhs) ? rhs : [];
    if (!Array.isArray(lhs) && lhs !== undefined && lhs !== null) return rhs;
    return mergeLists(l, r, tt);
  }
  if (!isObject(lhs) && lhs !== undefined && lhs !== null) return rhs;
  const l = isObject(lhs) ? lhs : {};
  const r = isObject(rhs) ? rhs : {};
  const out: Obj = {};
  for (const k of Object.keys(l)) {
    const m = merge(l[k], k in r ? r[k] : undefined, childType(tt, k).type);
    if (m !== undefined) out[k] = m;
  }
  for (const k of Object.keys(r)) {
    if (k in l) continue;
    const m = merge(undefined, r[k], childType(tt, k).type);
    if (m !== undefined) out[k] = m;
  }
  return out;
}

function mergeLists(l: unknown[], r: unknown[], t: TypeNode): unknown[] {
  const items = t.elements();
  const rPes = r.map((item) => listItemElement(t, item));
  const rObserved = new Map<string, unknown>();
  for (let i = 0; i < r.length; i++) {
    if (rObserved.has(rPes[i]!)) throw new ApplySchemaError(`duplicate entries for key ${rPes[i]}`);
    rObserved.set(rPes[i]!, r[i]);
  }
  const lPes = l.map((item) => listItemElement(t, item));
  const lObserved = new Map<string, unknown>();
  for (let i = 0; i < l.length; i++) {
    // A key the live list repeats merges as null: its items are not merged with the applied one.
    lObserved.set(lPes[i]!, lObserved.has(lPes[i]!) ? null : l[i]);
  }
  const shared = rPes.filter((pe) => lObserved.has(pe));
  let sharedAt = 0;
  let nextShared: string | undefined = shared[sharedAt++];
  const mergedR = new Set<string>();
  const out: unknown[] = [];
  const push = (v: unknown): void => {
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < l.length || ri < r.length) {
    if (li < l.length && ri < r.length) {
      const pe = lPes[li]!;
      if (pe === rPes[ri]) {
        mergedR.add(pe);
        push(merge(lObserved.get(pe), rObserved.get(pe), items));
        li++;
        ri++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (rObserved.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < l.length) {
      const pe = lPes[li]!;
      if (!rObserved.has(pe)) {
        push(merge(l[li], undefined, items));
        li++;
        continue;
      } else if (mergedR.has(pe)) li++;
    }
    if (ri < r.length) {
      const pe = rPes[ri]!;
      mergedR.add(pe);
      push(merge(lObserved.get(pe), rObserved.get(pe), items));
      ri++;
      if (nextShared !== undefined && nextShared === pe) nextShared = shared[sharedAt++];
    }
  }
  return out;
}

// ---- removal ---------------------------------------------------------------

/**
 * `v` without the paths of `set` (each with its subtree), as upstream's
 * RemoveItems: map keys and list items; atomic values are left whole. A map
 * or list that loses every entry becomes absent; as a map's child, upstream
 * keeps it as null, which a typed kind's encoding drops: `emptiedAsNull`
 * keeps that null (unstructured objects, whose validation sees it).
 */
export function removeItems(v: unknown, set: FieldSet, t0: TypeNode, emptiedAsNull = false): unknown {
  const t = resolve(t0, v);
  if (t.kind === 'scalar' || t.atomic) return v;
  if (t.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0) return v;
    const items = t.elements();
    const out: unknown[] = [];
    for (const item of v) {
      const pe = listItemElement(t, item);
      if (set.hasMember(pe)) continue;
      const sub = set.below(pe);
      out.push(sub === undefined ? item : (removeItems(item, sub, items, emptiedAsNull) ?? null));
    }
    return out.length > 0 ? out : undefined;
  }
  if (!isObject(v)) return v;
  const keys = Object.keys(v);
  if (keys.length === 0) return v;
  const out: Obj = {};
  let kept = 0;
  for (const k of keys) {
    const pe = fieldElement(k);
    if (set.hasMember(pe)) continue;
    kept++;
    const sub = set.below(pe);
    if (sub === undefined) out[k] = v[k];
    else {
      // A child emptied by the removal is null upstream, which Go's typed encoding drops.
      const r = removeItems(v[k], sub, childType(t, k).type, emptiedAsNull);
      if (r !== undefined) out[k] = r;
      else if (emptiedAsNull) out[k] = null;
    }
  }
  return kept > 0 ? out : undefined;
}

/** Upstream's EnsureNamedFieldsAreMembers: every declared field that has owned children is a member too. */
export function withNamedFieldsAsMembers(set: FieldSet, t: TypeNode): FieldSet {
  const out = new Set_();
  if (set.members !== undefined) out.members = new globalThis.Set(set.members);
  if (set.children !== undefined) {
    for (const [e, c] of set.children) {
      let ct: TypeNode;
      if (e.startsWith('f:')) {
        const name = e.slice(2);
        const declared = t.field(name);
        if (declared !== undefined && !c.isEmpty()) (out.members ??= new globalThis.Set()).add(e);
        ct = declared ?? t.elements();
      } else ct = t.elements();
      (out.children ??= new Map()).set(e, withNamedFieldsAsMembers(c, ct));
    }
  }
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!(k in (b as Obj))) return false;
    if (!deepEqual((a as Obj)[k], (b as Obj)[k])) return false;
  }
  return true;
}
