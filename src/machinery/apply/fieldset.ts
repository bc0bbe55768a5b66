/**
 * A set of field paths (structured-merge-diff's fieldpath.Set) as a tree: at
 * each level, `members` are the paths that end here and `children` the
 * subtrees below an element. A path can be both (a list item that is owned
 * itself and has owned fields): fieldsV1 writes that as `".": {}` inside the
 * child.
 *
 * Sets are values: every operation returns a new set and leaves its inputs
 * alone, except `insert`, which builds a set in place. Elements are canonical
 * path element strings (see path.ts).
 */
import { canonicalElement, pathString, sortPathElements } from './path.js';

export class FieldSet {
  members: Set<string> | undefined;
  children: Map<string, FieldSet> | undefined;

  static empty(): FieldSet {
    return new FieldSet();
  }

  /** A set of the given paths. */
  static of(...paths: string[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  isEmpty(): boolean {
    if (this.members !== undefined && this.members.size > 0) return false;
    if (this.children === undefined) return true;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** Adds a path (the empty path, the root, is never a member). */
  insert(path: readonly string[]): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.child(path[i]!);
    (node.members ??= new Set()).add(path[path.length - 1]!);
  }

  /** The subtree below one element, created on demand (for building). */
  child(element: string): FieldSet {
    this.children ??= new Map();
    let c = this.children.get(element);
    if (c === undefined) {
      c = new FieldSet();
      this.children.set(element, c);
    }
    return c;
  }

  has(path: readonly string[]): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node !== undefined; i++) node = node.children?.get(path[i]!);
    return node?.members?.has(path[path.length - 1]!) === true;
  }

  hasMember(element: string): boolean {
    return this.members?.has(element) === true;
  }

  /** The subtree below `element` (upstream's WithPrefix), or undefined when empty. */
  below(element: string): FieldSet | undefined {
    const c = this.children?.get(element);
    return c === undefined || c.isEmpty() ? undefined : c;
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    if (this.members !== undefined || other.members !== undefined) {
      out.members = new Set(this.members);
      for (const m of other.members ?? []) out.members.add(m);
    }
    if (this.children !== undefined || other.children !== undefined) {
      out.children = new Map();
      for (const [e, c] of this.children ?? []) {
        const o = other.children?.get(e);
        out.children.set(e, o === undefined ? c.copy() : c.union(o));
      }
      for (const [e, c] of other.children ?? []) if (!out.children.has(e)) out.children.set(e, c.copy());
    }
    return out;
  }

  /** The paths of this set that are not in `other` (members only: no subtree removal). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    if (this.members !== undefined) {
      for (const m of this.members) if (other.members?.has(m) !== true) (out.members ??= new Set()).add(m);
    }
    if (this.children !== undefined) {
      for (const [e, c] of this.children) {
        const o = other.children?.get(e);
        const d = o === undefined ? c.copy() : c.difference(o);
        if (!d.isEmpty()) (out.children ??= new Map()).set(e, d);
      }
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    if (this.members !== undefined && other.members !== undefined) {
      for (const m of this.members) if (other.members.has(m)) (out.members ??= new Set()).add(m);
    }
    if (this.children !== undefined && other.children !== undefined) {
      for (const [e, c] of this.children) {
        const o = other.children.get(e);
        if (o === undefined) continue;
        const i = c.intersection(o);
        if (!i.isEmpty()) (out.children ??= new Map()).set(e, i);
      }
    }
    return out;
  }

  /** This set without every path at or below one of `prefixes` (upstream's exclude filter). */
  withoutPrefixes(prefixes: FieldSet): FieldSet {
    const out = new FieldSet();
    if (this.members !== undefined) {
      for (const m of this.members) if (prefixes.members?.has(m) !== true) (out.members ??= new Set()).add(m);
    }
    if (this.children !== undefined) {
      for (const [e, c] of this.children) {
        if (prefixes.members?.has(e) === true) continue;
        const p = prefixes.children?.get(e);
        const kept = p === undefined ? c.copy() : c.withoutPrefixes(p);
        if (!kept.isEmpty()) (out.children ??= new Map()).set(e, kept);
      }
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    if (this.members !== undefined) out.members = new Set(this.members);
    if (this.children !== undefined) {
      out.children = new Map();
      for (const [e, c] of this.children) out.children.set(e, c.copy());
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /** Every path, in upstream's order: this level's members (sorted), then each child's paths. */
  paths(): string[][] {
    const out: string[][] = [];
    const walk = (s: FieldSet, prefix: string[]): void => {
      for (const m of sorted(s.members)) out.push([...prefix, m]);
      for (const e of sorted(s.children === undefined ? undefined : s.children.keys())) walk(s.children!.get(e)!, [...prefix, e]);
    };
    walk(this, []);
    return out;
  }

  /** The paths as upstream prints them (`.spec.replicas`), for messages and tests. */
  toStrings(): string[] {
    return this.paths().map(pathString);
  }

  /** The fieldsV1 form: `{"f:a": {}, "f:b": {".": {}, "f:c": {}}}` with keys in upstream's order. */
  toFieldsV1(): Record<string, unknown> {
    return emit(this, false);
  }

  /** Parses fieldsV1; throws an Error describing the first malformed key. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const out = new FieldSet();
    read(fields, out, undefined, undefined);
    return out;
  }
}

function sorted(elements: Iterable<string> | undefined): string[] {
  if (elements === undefined) return [];
  const out = [...elements];
  sortPathElements(out);
  return out;
}

function emit(s: FieldSet, self: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (self) out['.'] = {};
  const members = s.members ?? new Set<string>();
  const children = s.children ?? new Map<string, FieldSet>();
  const all = new Set<string>(members);
  for (const [e, c] of children) if (!c.isEmpty()) all.add(e);
  for (const e of sorted(all)) {
    const c = children.get(e);
    out[e] = c === undefined || c.isEmpty() ? {} : emit(c, members.has(e));
  }
  return out;
}

function read(fields: unknown, into: FieldSet, parent: FieldSet | undefined, element: string | undefined): void {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new Error('expected an object');
  const entries = Object.entries(fields as Record<string, unknown>);
  if (entries.length === 0 && parent !== undefined) {
    (parent.members ??= new Set()).add(element!);
    return;
  }
  for (const [key, value] of entries) {
    if (key === '.') {
      if (parent !== undefined) (parent.members ??= new Set()).add(element!);
      continue;
    }
    const e = canonicalElement(key);
    const child = into.child(e);
    read(value, child, into, e);
    if (child.isEmpty()) into.children!.delete(e);
  }
}
