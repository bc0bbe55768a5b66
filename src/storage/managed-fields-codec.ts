// The stored form of an object's metadata.managedFields: compact, structural,
// and exactly reversible. Clients never see it (they get upstream's entries);
// only the bytes a backend keeps change.
//
// Why: fieldsV1 spells out, for every manager, the paths of the fields it owns
// (`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":…`):
// nearly every key repeats one of the object's own keys, and those entries
// double a typical deployment's stored size. Here each path element is
// written as a reference into the object stored beside it:
//
//   f:<name>   the index of <name> among the keys of the object node (one
//              character below 64, `~n~` above)
//   k:{…}      `*` + the index of the list item whose key fields give exactly
//              this element + the indexes of those key fields in the item + `;`
//   v:<json>   `!` + the index of the set item of that value
//   .          `.`
//   otherwise  the element as a JSON string (a path the object does not hold)
//
// a child that has children of its own is followed by `(`…`)`. One entry is a
// line: a JSON header [manager, 0|1 (Apply|Update), apiVersion (0: the
// object's), time, subresource] (null where the entry has none), a tab, and
// its fieldsV1.
//
// Stored value: PREFIX + the object's JSON without managedFields + "\n" + the
// entries' lines. A value that does not start with PREFIX is plain JSON (all
// that was stored before, and objects this cannot represent exactly: entries
// of another shape, managedFields not last in metadata), so old data and
// values from any server read the same. decodeStoredValue(encodeStoredValue(o))
// is `o` key for key, in the same order: its JSON is byte-for-byte the JSON of `o`.

import type { KubeObject, ManagedFieldsEntry } from '../machinery/meta.js';
import { keyElement, valueElement } from '../machinery/apply/path.js';
import { omitKeys } from '../machinery/omit-keys.js';

/** Marks a value in this encoding (plain JSON starts with `{`). */
export const MANAGED_FIELDS_PREFIX = '\u0001mf1\n';

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-';
const DIGIT_VALUE = new Map([...DIGITS].map((c, i) => [c, i]));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = unknown;

/** The JSON of `obj` (no metadata.resourceVersion, as stored) in the compact form when it applies, else plain. */
export function encodeStoredValue(obj: KubeObject): string {
  const meta = obj.metadata;
  const entries = meta?.managedFields;
  if (entries === undefined || !Array.isArray(entries) || entries.length === 0) return plain(obj);
  const keys = Object.keys(meta);
  // Decoding puts the entries back last in metadata: only then is the order kept.
  if (lastDefinedKey(meta as Record<string, unknown>, keys) !== 'managedFields') return plain(obj);
  const withoutEntries = { ...obj, metadata: omitKeys(meta, 'managedFields', 'resourceVersion') } as KubeObject;
  const lines: string[] = [];
  const indexes = new IndexCache();
  for (const e of entries) {
    const line = encodeEntry(e, withoutEntries, indexes);
    if (line === undefined) return plain(obj);
    lines.push(line);
  }
  return `${MANAGED_FIELDS_PREFIX}${JSON.stringify(withoutEntries)}\n${lines.join('\n')}`;
}

/** The object a stored value holds (plain JSON or the compact form). */
export function decodeStoredValue(value: string): KubeObject {
  if (!value.startsWith(MANAGED_FIELDS_PREFIX)) return JSON.parse(value) as KubeObject;
  const split = value.indexOf('\n', MANAGED_FIELDS_PREFIX.length);
  const obj = JSON.parse(value.slice(MANAGED_FIELDS_PREFIX.length, split)) as KubeObject;
  const entries: ManagedFieldsEntry[] = [];
  // The object's nodes' keys, shared by the entries (most walk the same nodes).
  const keys = new Map<object, string[]>();
  let start = split + 1;
  while (start <= value.length) {
    let end = value.indexOf('\n', start);
    if (end < 0) end = value.length;
    entries.push(decodeEntry(value.slice(start, end), obj, keys));
    start = end + 1;
  }
  obj.metadata ??= {};
  obj.metadata.managedFields = entries;
  return obj;
}

/**
 * JSON.stringify(obj), spliced out of `value` instead of stringifying `obj`
 * again, where `value` is encodeStoredValue of `obj` without its
 * resourceVersion and `obj` is that object as decode would give it back
 * (metadata.resourceVersion its last key, a string): the stored JSON with
 * metadata's missing tail (the entries when they were stored compact, then
 * the resourceVersion) put in before metadata's closing brace. Undefined when
 * that place is not cheap to find: a key before metadata whose value is not a
 * scalar, or no metadata at all.
 */
export function servedJSON(obj: KubeObject, value: string): string | undefined {
  const meta = obj.metadata;
  if (meta === undefined || typeof meta.resourceVersion !== 'string') return undefined;
  const compact = value.startsWith(MANAGED_FIELDS_PREFIX);
  const start = compact ? MANAGED_FIELDS_PREFIX.length : 0;
  // JSON.stringify writes no raw newline: the object's JSON ends at the first one.
  const end = compact ? value.indexOf('\n', start) : value.length;
  if (end < 0) return undefined;
  // metadata's value starts after `{` and the keys before it, measured by their JSON.
  let at = start + 1;
  for (const key of Object.keys(obj)) {
    if (key === 'metadata') break;
    const v = (obj as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null) return undefined;
    const json = JSON.stringify(v);
    if (json !== undefined) at += JSON.stringify(key).length + json.length + 2;
  }
  if (!value.startsWith(METADATA_KEY, at)) return undefined;
  const close = closingBrace(value, at + METADATA_KEY.length, end);
  if (close < 0) return undefined;
  const empty = value.charCodeAt(close - 1) === OPEN_BRACE;
  const tail = `${compact ? `"managedFields":${JSON.stringify(meta.managedFields)},` : ''}"resourceVersion":${JSON.stringify(meta.resourceVersion)}`;
  return `${value.slice(start, close)}${empty ? '' : ','}${tail}${value.slice(close, end)}`;
}

const METADATA_KEY = '"metadata":';
const OPEN_BRACE = 0x7b;

/** The index of the `}` closing the JSON object that starts at `from` (-1 when there is none before `end`); strings are skipped. */
function closingBrace(text: string, from: number, end: number): number {
  if (text.charCodeAt(from) !== OPEN_BRACE) return -1;
  let depth = 0;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: up to its closing quote, escapes skipped.
      for (i++; i < end && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === OPEN_BRACE || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return c === 0x7d ? i : -1;
    }
  }
  return -1;
}

function plain(obj: KubeObject): string {
  if (obj.metadata?.resourceVersion === undefined) return JSON.stringify(obj);
  return JSON.stringify({ ...obj, metadata: omitKeys(obj.metadata, 'resourceVersion') });
}

function lastDefinedKey(o: Record<string, unknown>, keys: string[]): string | undefined {
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    if (k !== 'resourceVersion' && o[k] !== undefined) return k;
  }
  return undefined;
}

// ---- entries -----------------------------------------------------------------

/** The key order upstream's entries have (and ours: field-manager.ts), each optional key marked. */
const ENTRY_KEYS = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'] as const;
const OPTIONAL = new Set<string>(['manager', 'time', 'subresource']);
/** The entry's keys whose values must be strings. */
const STRING_KEYS = ['manager', 'apiVersion', 'time', 'subresource'] as const;

function encodeEntry(e: ManagedFieldsEntry, obj: KubeObject, indexes: IndexCache): string | undefined {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return undefined;
  // Exactly the keys of ENTRY_KEYS (those with a defined value), in that order, the required ones present
  // (walked without listing them: this runs for every entry of every write).
  let at = 0;
  for (const k in e) {
    if (!Object.prototype.hasOwnProperty.call(e, k) || (e as Record<string, unknown>)[k] === undefined) continue;
    while (at < ENTRY_KEYS.length && ENTRY_KEYS[at] !== k) if (!OPTIONAL.has(ENTRY_KEYS[at++]!)) return undefined;
    if (at === ENTRY_KEYS.length) return undefined;
    at++;
  }
  for (; at < ENTRY_KEYS.length; at++) if (!OPTIONAL.has(ENTRY_KEYS[at]!)) return undefined;
  for (const k of STRING_KEYS) if (e[k] !== undefined && typeof e[k] !== 'string') return undefined;
  if (e.fieldsType !== 'FieldsV1' || (e.operation !== 'Apply' && e.operation !== 'Update')) return undefined;
  const header: Json[] = [
    e.manager ?? null,
    e.operation === 'Apply' ? 0 : 1,
    e.apiVersion === obj.apiVersion ? 0 : e.apiVersion!,
    e.time ?? null,
    e.subresource ?? null,
  ];
  const fields = encodeFields(e.fieldsV1, obj, indexes);
  if (fields === undefined) return undefined;
  return `${JSON.stringify(header)}\t${fields}`;
}

function decodeEntry(line: string, obj: KubeObject, keys: Map<object, string[]>): ManagedFieldsEntry {
  const tab = line.indexOf('\t');
  const [manager, operation, apiVersion, time, subresource] = JSON.parse(line.slice(0, tab)) as [string | null, number, string | 0, string | null, string | null];
  const e: ManagedFieldsEntry = {};
  if (manager !== null) e.manager = manager;
  e.operation = operation === 0 ? 'Apply' : 'Update';
  e.apiVersion = apiVersion === 0 ? (obj.apiVersion as string) : apiVersion;
  if (time !== null) e.time = time;
  e.fieldsType = 'FieldsV1';
  const reader: Reader = { text: line, at: tab + 1, keys };
  e.fieldsV1 = decodeFields(reader, obj);
  if (subresource !== null) e.subresource = subresource;
  return e;
}

// ---- fieldsV1 ----------------------------------------------------------------

function hasKeys(o: Record<string, unknown>): boolean {
  for (const _ in o) return true;
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function digits(i: number): string {
  return i < 64 ? DIGITS[i]! : `~${i}~`;
}

/** The keys JSON.stringify writes for a node: those with a defined value. */
function jsonKeys(o: Record<string, unknown>): string[] {
  const keys = Object.keys(o);
  for (const k of keys) if (o[k] === undefined) return keys.filter((x) => o[x] !== undefined);
  return keys;
}

/** Lists longer than this get an index of their items (else a scan per element is cheaper). */
const SCAN_LIMIT = 16;

/** Per object node its keys as JSON writes them; per long list its items by key values (memos for one encode). */
class IndexCache {
  private readonly keys = new WeakMap<object, string[] | Map<string, number>>();
  private readonly items = new WeakMap<object, Map<string, Map<string, number>>>();

  keyAt(node: Record<string, unknown>, key: string): number | undefined {
    let keys = this.keys.get(node);
    if (keys === undefined) {
      const list = jsonKeys(node);
      // A node with many keys (a ConfigMap's data, labels) is looked up once per
      // key: a scan each would make the encode quadratic in the key count.
      keys = list.length <= SCAN_LIMIT ? list : new Map(list.map((k, i) => [k, i]));
      this.keys.set(node, keys);
    }
    const i = Array.isArray(keys) ? keys.indexOf(key) : keys.get(key) ?? -1;
    return i < 0 ? undefined : i;
  }

  /** The first item whose fields `names` hold `values` (names undefined: the item equal to values[0]). */
  itemAt(list: unknown[], names: string[] | undefined, values: Primitive[]): number | undefined {
    if (list.length <= SCAN_LIMIT) {
      for (let i = 0; i < list.length; i++) {
        const item = list[i];
        if (names === undefined ? item === values[0] : isPlainObject(item) && names.every((n, j) => item[n] === values[j])) return i;
      }
      return undefined;
    }
    let bySignature = this.items.get(list);
    if (bySignature === undefined) {
      bySignature = new Map();
      this.items.set(list, bySignature);
    }
    const signature = names === undefined ? '' : names.join('\u0000');
    let index = bySignature.get(signature);
    if (index === undefined) {
      index = new Map();
      for (let i = list.length - 1; i >= 0; i--) {
        const item = list[i];
        if (names === undefined) {
          if (isPrimitive(item)) index.set(valuesKey([item]), i);
        } else if (isPlainObject(item)) {
          const vs = names.map((n) => item[n]);
          if (vs.every(isPrimitive)) index.set(valuesKey(vs), i);
        }
      }
      bySignature.set(signature, index);
    }
    return index.get(valuesKey(values));
  }
}

/** A map key for primitive values that tells 1 from "1" and null from "null". */
function valuesKey(values: readonly Primitive[]): string {
  let out = '';
  for (const v of values) out += `${typeof v === 'string' ? 's' : v === null ? 'n' : typeof v === 'number' ? 'd' : 'b'}${String(v)}\u0000`;
  return out;
}

type Primitive = string | number | boolean | null;

function isPrimitive(v: unknown): v is Primitive {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * A k: element's key fields (or a v: element's value), when they are
 * primitives and the element is spelled as keyElement (valueElement) spells
 * them; else undefined and the element is stored literally. Elements repeat
 * from write to write: each is parsed once.
 */
const parsedElements = new Map<string, Array<[string, Primitive]> | Primitive | undefined>();

function parsedElement(raw: string): Array<[string, Primitive]> | Primitive | undefined {
  if (parsedElements.has(raw)) return parsedElements.get(raw);
  let out: Array<[string, Primitive]> | Primitive | undefined;
  try {
    const parsed = JSON.parse(raw.slice(2)) as unknown;
    if (raw.startsWith('k:') && isPlainObject(parsed) && Object.values(parsed).every(isPrimitive)) {
      const fields = Object.entries(parsed) as Array<[string, Primitive]>;
      if (fastKeyElement(fields) === raw) out = fields;
    } else if (raw.startsWith('v:') && isPrimitive(parsed) && valueElement(parsed) === raw) {
      out = parsed;
    }
  } catch {
    out = undefined;
  }
  if (parsedElements.size > 10_000) parsedElements.clear();
  parsedElements.set(raw, out);
  return out;
}

const HTML_SIGNIFICANT = /[<>&\u2028\u2029]/;

/** keyElement for primitive key values, without its generic deep sort. */
function fastKeyElement(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const sorted = fields.length < 2 ? fields : [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let out = 'k:{';
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0) out += ',';
    out += `${JSON.stringify(sorted[i]![0])}:${JSON.stringify(sorted[i]![1])}`;
  }
  out += '}';
  return HTML_SIGNIFICANT.test(out) ? keyElement(fields) : out;
}

function encodeFields(fields: unknown, node: Node, indexes: IndexCache): string | undefined {
  if (!isPlainObject(fields)) return undefined;
  let out = '';
  for (const raw of Object.keys(fields)) {
    const sub = fields[raw];
    // A key the decoder could not set as a plain property: stored as plain JSON.
    if (!isPlainObject(sub) || raw === '__proto__') return undefined;
    if (raw === '.') {
      if (hasKeys(sub)) return undefined;
      out += '.';
      continue;
    }
    let ref: string | undefined;
    let child: Node;
    if (raw.startsWith('f:') && isPlainObject(node)) {
      const i = indexes.keyAt(node, raw.slice(2));
      if (i !== undefined) {
        ref = digits(i);
        child = node[raw.slice(2)];
      }
    } else if (raw.startsWith('k:') && Array.isArray(node)) {
      const fields = parsedElement(raw);
      const i = Array.isArray(fields) ? indexes.itemAt(node, fields.map(([n]) => n), fields.map(([, v]) => v)) : undefined;
      if (i !== undefined) {
        const item = node[i] as Record<string, unknown>;
        ref = `*${digits(i)}${(fields as Array<[string, Primitive]>).map(([n]) => digits(indexes.keyAt(item, n)!)).join('')};`;
        child = item;
      }
    } else if (raw.startsWith('v:') && Array.isArray(node)) {
      const value = parsedElement(raw);
      const i = value === undefined || Array.isArray(value) ? undefined : indexes.itemAt(node, undefined, [value]);
      if (i !== undefined) {
        ref = `!${digits(i)}`;
        child = node[i];
      }
    }
    out += ref ?? JSON.stringify(raw);
    if (hasKeys(sub)) {
      const inner = encodeFields(sub, child, indexes);
      if (inner === undefined) return undefined;
      out += `(${inner})`;
    }
  }
  return out;
}

interface Reader {
  text: string;
  at: number;
  keys: Map<object, string[]>;
}

function keysOf(r: Reader, o: Record<string, unknown>): string[] {
  let keys = r.keys.get(o);
  if (keys === undefined) {
    keys = Object.keys(o);
    r.keys.set(o, keys);
  }
  return keys;
}

function readIndex(r: Reader): number {
  const c = r.text[r.at++]!;
  if (c !== '~') return DIGIT_VALUE.get(c)!;
  const end = r.text.indexOf('~', r.at);
  const n = Number(r.text.slice(r.at, end));
  r.at = end + 1;
  return n;
}

/** Reads a JSON string literal starting at r.at. */
function readString(r: Reader): string {
  let end = r.at + 1;
  for (;;) {
    const c = r.text[end];
    if (c === '\\') end += 2;
    else if (c === '"') break;
    else end++;
  }
  const s = JSON.parse(r.text.slice(r.at, end + 1)) as string;
  r.at = end + 1;
  return s;
}

function decodeFields(r: Reader, node: Node): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (r.at < r.text.length && r.text[r.at] !== ')') {
    const c = r.text[r.at]!;
    let key: string;
    let child: Node;
    if (c === '.') {
      r.at++;
      out['.'] = {};
      continue;
    } else if (c === '"') {
      key = readString(r);
      child = undefined;
    } else if (c === '*') {
      r.at++;
      const item = (node as unknown[])[readIndex(r)] as Record<string, unknown>;
      const itemKeys = keysOf(r, item);
      const fields: Array<[string, unknown]> = [];
      while (r.text[r.at] !== ';') {
        const name = itemKeys[readIndex(r)]!;
        fields.push([name, item[name]]);
      }
      r.at++;
      key = fastKeyElement(fields);
      child = item;
    } else if (c === '!') {
      r.at++;
      child = (node as unknown[])[readIndex(r)];
      key = valueElement(child);
    } else {
      const o = node as Record<string, unknown>;
      const name = keysOf(r, o)[readIndex(r)]!;
      key = `f:${name}`;
      child = o[name];
    }
    if (r.text[r.at] === '(') {
      r.at++;
      out[key] = decodeFields(r, child);
      r.at++; // ')'
    } else {
      out[key] = {};
    }
  }
  return out;
}
