/**
 * The fast path of the most common write: a create whose creator owns every
 * field (no entries sent by the client). It gives the fieldsV1 of
 * compare(zero object, obj) — added and modified paths — in one walk that
 * writes the fieldsV1 object directly, without building sets or comparing
 * values twice. Equal by construction to the general path (test/machinery/
 * apply.test.ts checks both on the same objects).
 *
 * `skip` holds whole subtrees nobody owns (reset fields) and `stripped` the
 * exact paths never recorded (metadata bookkeeping), both as field-name paths
 * from the root.
 */
import { fieldElement } from './path.js';
import { sortPathElements } from './path.js';
import { resolveUntyped, type TypeNode } from './schema.js';
import { deepEqual, listItemElement } from './typed.js';

type Obj = Record<string, unknown>;

/** A node under construction: whether its path is itself a member, and its children. */
interface Node {
  member: boolean;
  children: Map<string, Node> | undefined;
}

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isEmptyCollection(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

export interface CreatedFieldsOptions {
  /** Subtrees to leave out, keyed by top-level field name (reset fields are top-level in every built-in kind). */
  skipTopLevel: ReadonlySet<string>;
  /** Paths (as element arrays) never recorded. */
  stripped: ReadonlyArray<readonly string[]>;
}

/** fieldsV1 of a created object, or undefined when it owns nothing. */
export function createdFieldsV1(obj: Obj, root: TypeNode, options: CreatedFieldsOptions): Record<string, unknown> | undefined {
  const top: Node = { member: false, children: undefined };
  const implicit = implicitOf(root);
  const stripped = strippedLeavesOf(options);
  for (const key of Object.keys(obj)) {
    if (options.skipTopLevel.has(key)) continue;
    const value = obj[key];
    if (isScalar(value) && stripped.top.has(key)) continue;
    const t = root.field(key) ?? root.elements();
    child(top, fieldElement(key), implicit.has(key) ? implicit.get(key) : undefined, implicit.has(key), value, t, stripped.below.get(fieldElement(key)));
  }
  for (const path of options.stripped) unset(top, path);
  return emit(top);
}

/**
 * The stripped paths of one or two elements, as the walk meets them: a
 * scalar there would be recorded as a leaf and then unset (a leaf has no
 * children to keep its node), so the walk leaves it out from the start
 * (metadata's name, uid, creationTimestamp, … on every create).
 */
interface StrippedLeaves {
  /** Top-level field names. */
  top: ReadonlySet<string>;
  /** Under a top-level element (`f:metadata`): the field names. */
  below: ReadonlyMap<string, ReadonlySet<string>>;
}

const strippedLeaves = new WeakMap<CreatedFieldsOptions, StrippedLeaves>();

function strippedLeavesOf(options: CreatedFieldsOptions): StrippedLeaves {
  let leaves = strippedLeaves.get(options);
  if (leaves !== undefined) return leaves;
  const top = new Set<string>();
  const below = new Map<string, Set<string>>();
  const nameOf = (element: string): string | undefined => (element.startsWith('f:') ? element.slice(2) : undefined);
  for (const path of options.stripped) {
    const first = nameOf(path[0] ?? '');
    if (first === undefined) continue;
    if (path.length === 1) top.add(first);
    const second = path.length === 2 ? nameOf(path[1]!) : undefined;
    if (second === undefined) continue;
    let names = below.get(path[0]!);
    if (names === undefined) below.set(path[0]!, (names = new Set()));
    names.add(second);
  }
  leaves = { top, below };
  strippedLeaves.set(options, leaves);
  return leaves;
}

const implicitMaps = new WeakMap<TypeNode, ReadonlyMap<string, unknown>>();

/** A type's implicit fields by name (a schema node's never change: made once per node, not per walk). */
function implicitOf(t: TypeNode): ReadonlyMap<string, unknown> {
  let map = implicitMaps.get(t);
  if (map === undefined) implicitMaps.set(t, (map = new Map(t.implicit?.() ?? [])));
  return map;
}

/** A JSON value the walk records as a leaf whatever its type says (no children). */
function isScalar(v: unknown): boolean {
  return typeof v !== 'object' || v === null;
}

/**
 * Compares one child (zero `l`, present only when `implicit`) with `r` and
 * records it under `parent`; `skip` names fields of `r` left out when they
 * hold scalars (stripped leaves, see StrippedLeaves).
 */
function child(parent: Node, element: string, l: unknown, implicit: boolean, r: unknown, t0: TypeNode, skip?: ReadonlySet<string>): void {
  const t = t0.kind === 'untyped' ? resolveUntyped(r) : t0;
  const leaf =
    t.kind === 'scalar' ||
    t.atomic ||
    (isEmptyCollection(l) && isEmptyCollection(r)) ||
    (t.kind === 'list' && !Array.isArray(r) && r !== null) ||
    (t.kind === 'map' && !isObject(r) && r !== null);
  if (leaf) {
    if (!implicit || !deepEqual(l, r)) node(parent, element).member = true;
    return;
  }
  const n = node(parent, element);
  if (!implicit) n.member = true;
  if (t.kind === 'list') {
    if (!Array.isArray(r)) return;
    const items = t.elements();
    const seen = new Set<string>();
    for (const item of r) {
      const pe = listItemElement(t, item);
      if (seen.has(pe)) continue; // duplicates: the first item stands for the key (as the general path does for a create)
      seen.add(pe);
      child(n, pe, undefined, false, item, items);
    }
    return;
  }
  if (!isObject(r)) return;
  if (implicit && isObject(l)) {
    // Both sides present: children compare against the zero struct's own implicit fields.
    const zeros = implicitOf(t);
    for (const key of Object.keys(r)) {
      const value = r[key];
      if (skip !== undefined && isScalar(value) && skip.has(key)) continue;
      const ct = t.field(key) ?? t.elements();
      const has = zeros.has(key);
      child(n, fieldElement(key), has ? zeros.get(key) : undefined, has, value, ct);
    }
    return;
  }
  // An added subtree: everything in it is added, implicit fields included.
  for (const key of Object.keys(r)) {
    const value = r[key];
    if (skip !== undefined && isScalar(value) && skip.has(key)) continue;
    addedChild(n, key, value, t);
  }
  for (const [key, zero] of t.implicit?.() ?? []) {
    if (key in r || (skip !== undefined && isScalar(zero) && skip.has(key))) continue;
    addedChild(n, key, zero, t);
  }
}

function addedChild(n: Node, key: string, value: unknown, t: TypeNode): void {
  const declared = t.field(key);
  child(n, fieldElement(key), undefined, false, value, declared ?? t.elements());
}

function node(parent: Node, element: string): Node {
  parent.children ??= new Map();
  let n = parent.children.get(element);
  if (n === undefined) {
    n = { member: false, children: undefined };
    parent.children.set(element, n);
  }
  return n;
}

function unset(top: Node, path: readonly string[]): void {
  let n: Node | undefined = top;
  for (let i = 0; i < path.length && n !== undefined; i++) {
    const next: Node | undefined = n.children?.get(path[i]!);
    if (next === undefined) return;
    if (i === path.length - 1) {
      next.member = false;
      if (next.children === undefined || next.children.size === 0) n.children!.delete(path[i]!);
    }
    n = next;
  }
}

/**
 * The fieldsV1 of a node's children, or undefined when nothing below it is
 * owned; `self` puts the node's own "." first (it is a member).
 */
function emit(n: Node, self = false): Record<string, unknown> | undefined {
  if (n.children === undefined) return undefined;
  const keys = [...n.children.keys()];
  sortPathElements(keys);
  let out: Record<string, unknown> | undefined;
  const start = (): Record<string, unknown> => {
    const o: Record<string, unknown> = self ? { '.': {} } : {};
    // A node with thousands of children (a ConfigMap's data, a long list) is
    // built as a dictionary from the start: adding keys one by one to an
    // object in V8's fast mode first walks a hidden-class chain per key.
    if (keys.length > 1000) {
      o[DICTIONARY_MODE] = true;
      delete o[DICTIONARY_MODE];
    }
    return o;
  };
  for (const k of keys) {
    const c = n.children.get(k)!;
    const below = emit(c, c.member);
    if (below === undefined) {
      if (!c.member) continue;
      (out ??= start())[k] = {};
    } else (out ??= start())[k] = below;
  }
  return out;
}

const DICTIONARY_MODE = '\u0000dictionary';
