/**
 * Path elements of server-side apply's field paths (structured-merge-diff's
 * PathElement), kept in their fieldsV1 spelling so that sets can use them as
 * map keys without a second encoding:
 *
 *   f:<name>        a struct field or a map key
 *   k:{"a":1,...}   an item of an associative list, by its key fields (sorted by name)
 *   v:<json>        an item of a set list, by its value
 *   i:<n>           an item of a list by index (only read from clients; never produced)
 *
 * `canonical…` builders always give the same string for the same element, so
 * string equality is element equality. `comparePathElements` is upstream's
 * total order (fields < keys < values < indexes), which fieldsV1 output and
 * conflict lists follow.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Go's encoding/json: HTML-significant characters and the JS line separators escaped. */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
  return out;
}

export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** An associative list item's element from its key fields (names in any order). */
export function keyElement(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const sorted = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `k:{${sorted.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
}

export function valueElement(value: unknown): string {
  return `v:${goJson(value)}`;
}

export function indexElement(index: number): string {
  return `i:${index}`;
}

/**
 * Checks one fieldsV1 key and returns its canonical spelling (a client may
 * send `k:` fields unsorted), or throws with a message naming what is wrong.
 */
export function canonicalElement(raw: string): string {
  const kind = raw.slice(0, 2);
  const rest = raw.slice(2);
  switch (kind) {
    case 'f:':
      return raw;
    case 'k:': {
      const parsed = parseJson(rest, raw);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`parsing JSON: ${raw}: expected an object`);
      return keyElement(Object.entries(parsed));
    }
    case 'v:':
      return valueElement(parseJson(rest, raw));
    case 'i:':
      if (!/^-?\d+$/.test(rest)) throw new Error(`parsing index: ${raw}`);
      return indexElement(Number(rest));
    default:
      throw new Error(`unknown PathElementType: ${raw}`);
  }
}

function parseJson(text: string, raw: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`parsing JSON: ${raw}`);
  }
}

const RANK: Record<string, number> = { 'f:': 0, 'k:': 1, 'v:': 2, 'i:': 3 };

const parsedKeys = new Map<string, Array<[string, unknown]>>();

function keyFields(element: string): Array<[string, unknown]> {
  let out = parsedKeys.get(element);
  if (out === undefined) {
    out = Object.entries(JSON.parse(element.slice(2)) as Record<string, unknown>);
    if (parsedKeys.size > 10_000) parsedKeys.clear();
    parsedKeys.set(element, out);
  }
  return out;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

/** structured-merge-diff's value order: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) - (b as number);
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return la.length - lb.length;
    }
    case 4: {
      const ka = Object.keys(a as object).sort();
      const kb = Object.keys(b as object).sort();
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const c = compareStrings(ka[i]!, kb[i]!) || compareValues((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!]);
        if (c !== 0) return c;
      }
      return ka.length - kb.length;
    }
    default:
      return 0;
  }
}

/** Upstream's PathElement order. Both arguments must be canonical elements. */
export function comparePathElements(a: string, b: string): number {
  if (a === b) return 0;
  const ra = RANK[a.slice(0, 2)]!;
  const rb = RANK[b.slice(0, 2)]!;
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return compareStrings(a.slice(2), b.slice(2));
    case 1: {
      const fa = keyFields(a);
      const fb = keyFields(b);
      for (let i = 0; i < Math.min(fa.length, fb.length); i++) {
        const c = compareStrings(fa[i]![0], fb[i]![0]) || compareValues(fa[i]![1], fb[i]![1]);
        if (c !== 0) return c;
      }
      return fa.length - fb.length;
    }
    case 2:
      return compareValues(JSON.parse(a.slice(2)), JSON.parse(b.slice(2)));
    default:
      return Number(a.slice(2)) - Number(b.slice(2));
  }
}

/**
 * Sorts path elements in place as comparePathElements orders them, in
 * O(n log n) comparisons that allocate nothing: field names (all of a map's
 * keys, the common case) by code unit as compareStrings does, and a list's
 * key elements with their fields parsed once each rather than per comparison
 * (a list of a million items would otherwise parse twenty million keys).
 */
export function sortPathElements(elements: string[]): void {
  if (elements.length < 2) return;
  if (elements.every((e) => e.startsWith('f:'))) {
    // Same prefix: comparing whole strings orders them as their names.
    elements.sort();
    return;
  }
  const parsed = new Map<string, Array<[string, unknown]>>();
  const values = new Map<string, unknown>();
  for (const e of elements) {
    if (e.startsWith('k:')) parsed.set(e, Object.entries(JSON.parse(e.slice(2)) as Record<string, unknown>));
    else if (e.startsWith('v:')) values.set(e, JSON.parse(e.slice(2)));
  }
  const fieldsOf = (e: string): Array<[string, unknown]> => parsed.get(e) ?? keyFields(e);
  elements.sort((a, b) => {
    if (a === b) return 0;
    if (a.startsWith('v:') && b.startsWith('v:')) return compareValues(values.get(a), values.get(b));
    if (a.startsWith('k:') && b.startsWith('k:')) {
      const fa = fieldsOf(a);
      const fb = fieldsOf(b);
      for (let i = 0; i < Math.min(fa.length, fb.length); i++) {
        const c = compareStrings(fa[i]![0], fb[i]![0]) || compareValues(fa[i]![1], fb[i]![1]);
        if (c !== 0) return c;
      }
      return fa.length - fb.length;
    }
    return comparePathElements(a, b);
  });
}

/** Go's %v of a value as structured-merge-diff's value.ToString prints it (strings quoted). */
function valueString(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  if (typeof v === 'object') return goJson(v);
  return String(v);
}

/** One element as upstream prints paths: `.name`, `[name="x",port=80]`, `[="a"]`, `[0]`. */
export function elementString(element: string): string {
  switch (element.slice(0, 2)) {
    case 'f:':
      return `.${element.slice(2)}`;
    case 'k:':
      return `[${keyFields(element)
        .map(([n, v]) => `${n}=${valueString(v)}`)
        .join(',')}]`;
    case 'v:':
      return `[=${valueString(JSON.parse(element.slice(2)))}]`;
    default:
      return `[${element.slice(2)}]`;
  }
}

export function pathString(path: readonly string[]): string {
  return path.map(elementString).join('');
}
