// Structural schema → CEL types, and JSON values → CEL values of those types
// (upstream: k8s.io/apiserver/pkg/cel/common/schemas.go SchemaDeclType and values.go).
//
// - object with properties      → an object type with one field per property whose name CEL can
//                                   spell (escaped as upstream: `__dash__`, `__dot__`, `__namespace__` …)
// - object with additionalProperties → map<string, T>
// - object with neither (e.g. preserve-unknown-fields alone) → an object type with no fields
// - array                        → list<T>
// - x-kubernetes-int-or-string   → dyn (int or string at run time)
// - string, format byte/duration/date/date-time → bytes, duration, timestamp
// - integer, number, boolean     → int, double, bool
// - the root of a resource (and of each x-kubernetes-embedded-resource) always has apiVersion,
//   kind, metadata.name and metadata.generateName, as upstream's WithTypeAndObjectMeta.
// Each type carries the size bounds the cost estimate needs (maxItems/maxLength/maxProperties,
// or upstream's estimate from the 3 MiB request limit and the element's minimum JSON size).

import { kubernetesBaseEnvironment } from './library.js';
import type { ObjectTypeDecl } from './expression.js';

export type JSONSchema = Record<string, unknown>;

export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

export type DeclType =
  | { kind: 'object'; name: string; fields: Map<string, DeclField>; ctor: new () => object; maxElements: number; minSize: number }
  | { kind: 'map'; name: string; elem: DeclType; maxElements: number; minSize: number }
  | { kind: 'list'; name: string; elem: DeclType; maxElements: number; minSize: number }
  | { kind: 'scalar'; name: string; cel: string; format?: string; maxElements: number; minSize: number }
  | { kind: 'dyn'; name: string; maxElements: number; minSize: number };

export interface DeclField {
  /** The property's JSON name. */
  property: string;
  type: DeclType;
}

const reserved = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** A property name as CEL spells it, or undefined when it cannot (upstream's cel.Escape). */
export function escapePropertyName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (reserved.has(name)) return `__${name}__`;
  let ok = true;
  const out = name.replace(/__|[-./]|[^a-zA-Z0-9\-./_]/g, (s) => {
    switch (s) {
      case '__': return '__underscores__';
      case '.': return '__dot__';
      case '-': return '__dash__';
      case '/': return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? out : undefined;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? Math.max(0, v) : undefined);

/** Upstream's WithTypeAndObjectMeta: apiVersion, kind, metadata.{name,generateName} at a resource root. */
function withTypeAndObjectMeta(s: JSONSchema): JSONSchema {
  const props = { ...((s.properties as Record<string, JSONSchema> | undefined) ?? {}) };
  props.apiVersion = { type: 'string' };
  props.kind = { type: 'string' };
  const meta = { ...(props.metadata ?? {}), type: 'object' } as JSONSchema;
  const metaProps = { ...((meta.properties as Record<string, JSONSchema> | undefined) ?? {}) };
  metaProps.name = { type: 'string' };
  metaProps.generateName = { type: 'string' };
  meta.properties = metaProps;
  props.metadata = meta;
  return { ...s, properties: props };
}

/** Builds the CEL type of a schema node; undefined when CEL cannot see it (no type). */
export function schemaDeclType(s: JSONSchema | undefined, isResourceRoot: boolean, name: string): DeclType | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string'] === true) {
    return { kind: 'dyn', name, maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSize: 1 };
  }
  if (isResourceRoot && s.type === 'object') s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      const items = s.items as JSONSchema | undefined;
      if (!items) return undefined;
      const elem = schemaDeclType(items, items['x-kubernetes-embedded-resource'] === true, `${name}.items`);
      if (!elem) return undefined;
      const maxElements = num(s.maxItems) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSize + 1));
      return { kind: 'list', name, elem, maxElements, minSize: 2 };
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap && typeof ap === 'object') {
        const apSchema = ap as JSONSchema;
        const elem = schemaDeclType(apSchema, apSchema['x-kubernetes-embedded-resource'] === true, `${name}.additionalProperties`);
        if (!elem) return undefined;
        // a map entry is at least "":<value>, plus a comma
        const maxElements = num(s.maxProperties) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSize + 4 + 1));
        return { kind: 'map', name, elem, maxElements, minSize: 2 };
      }
      const fields = new Map<string, DeclField>();
      const required = new Set((s.required as string[] | undefined) ?? []);
      let minSize = 2;
      for (const [prop, propSchema] of Object.entries((s.properties as Record<string, JSONSchema> | undefined) ?? {})) {
        const escaped = escapePropertyName(prop);
        const t = schemaDeclType(propSchema, propSchema['x-kubernetes-embedded-resource'] === true, `${name}.${escaped ?? prop.replace(/[^\w]/g, '_')}`);
        if (!t) continue;
        if (escaped !== undefined) fields.set(escaped, { property: prop, type: t });
        if (required.has(prop) && propSchema.default === undefined) minSize += prop.length + t.minSize + 4;
      }
      // One class per object type: the library finds a value's type by its constructor.
      const ctor = class {};
      Object.defineProperty(ctor, 'name', { value: name });
      return { kind: 'object', name, fields, ctor, maxElements: num(s.maxProperties) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / 2), minSize };
    }
    case 'string': {
      const format = typeof s.format === 'string' ? s.format : '';
      const maxLength = num(s.maxLength);
      const unbounded = MAX_REQUEST_SIZE_BYTES - 2;
      switch (format) {
        case 'byte':
          return { kind: 'scalar', name, cel: 'bytes', format, maxElements: maxLength ?? unbounded, minSize: 2 };
        case 'duration':
          return { kind: 'scalar', name, cel: 'google.protobuf.Duration', format, maxElements: unbounded, minSize: 4 };
        case 'date':
          return { kind: 'scalar', name, cel: 'google.protobuf.Timestamp', format, maxElements: unbounded, minSize: 12 };
        case 'date-time':
          return { kind: 'scalar', name, cel: 'google.protobuf.Timestamp', format, maxElements: unbounded, minSize: 22 };
      }
      let maxElements = maxLength !== undefined ? maxLength * 4 : unbounded;
      if (maxLength === undefined && Array.isArray(s.enum) && s.enum.length > 0) {
        maxElements = Math.max(...s.enum.map((v) => (typeof v === 'string' ? v.length : 0)));
      }
      return { kind: 'scalar', name, cel: 'string', maxElements, minSize: 2 };
    }
    case 'boolean':
      return { kind: 'scalar', name, cel: 'bool', maxElements: 0, minSize: 4 };
    case 'number':
      return { kind: 'scalar', name, cel: 'double', maxElements: 0, minSize: 1 };
    case 'integer':
      return { kind: 'scalar', name, cel: 'int', maxElements: 0, minSize: 1 };
  }
  return undefined;
}

/** The library's type name for a DeclType ('int', 'list<string>', an object type's name …). */
export function celTypeName(t: DeclType): string {
  switch (t.kind) {
    case 'object': return t.name;
    case 'map': return `map<string, ${celTypeName(t.elem)}>`;
    case 'list': return `list<${celTypeName(t.elem)}>`;
    case 'scalar': return t.cel;
    case 'dyn': return 'dyn';
  }
}

/** Every object type reachable from t, for registration in an environment. */
export function objectTypes(t: DeclType, out: ObjectTypeDecl[] = []): ObjectTypeDecl[] {
  switch (t.kind) {
    case 'object': {
      const fields: Record<string, string> = {};
      for (const [n, f] of t.fields) fields[n] = celTypeName(f.type);
      out.push({ name: t.name, fields, ctor: t.ctor });
      for (const f of t.fields.values()) objectTypes(f.type, out);
      break;
    }
    case 'map':
    case 'list':
      objectTypes(t.elem, out);
      break;
  }
  return out;
}

let durationParser: ((ctx: Record<string, unknown>) => unknown) | undefined;
function parseDuration(s: string): unknown {
  if (!durationParser) {
    const env = kubernetesBaseEnvironment().clone().registerVariable('s', 'string');
    durationParser = env.parse('duration(s)');
  }
  return durationParser({ s });
}

/**
 * A JSON value as the CEL value of type t. Objects become instances of their type's class with
 * only the known, present properties; a value of the wrong JSON type is passed through unchanged
 * (schema validation reports it; the rule then fails with a type error, as upstream).
 * cache maps already converted JSON objects, so nested rule scopes reuse one conversion.
 */
export function toCelValue(v: unknown, t: DeclType, cache?: WeakMap<object, unknown>): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object' && cache) {
    const hit = cache.get(v);
    if (hit !== undefined) return hit;
  }
  let out: unknown = v;
  switch (t.kind) {
    case 'dyn':
      out = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
      break;
    case 'scalar':
      switch (t.cel) {
        case 'int':
          out = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
          break;
        case 'bytes':
          out = typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
          break;
        case 'google.protobuf.Timestamp':
          if (typeof v === 'string') {
            const d = new Date(t.format === 'date' ? `${v}T00:00:00Z` : v);
            out = Number.isNaN(d.getTime()) ? v : d;
          }
          break;
        case 'google.protobuf.Duration':
          if (typeof v === 'string') {
            try {
              out = parseDuration(v);
            } catch {
              out = v;
            }
          }
          break;
      }
      break;
    case 'list':
      if (Array.isArray(v)) out = v.map((x) => toCelValue(x, t.elem, cache));
      break;
    case 'map':
      if (typeof v === 'object' && !Array.isArray(v)) {
        const m = new Map<string, unknown>();
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== null) m.set(k, toCelValue(x, t.elem, cache));
        out = m;
      }
      break;
    case 'object':
      if (typeof v === 'object' && !Array.isArray(v)) {
        const o = new t.ctor() as Record<string, unknown>;
        const src = v as Record<string, unknown>;
        for (const [name, f] of t.fields) {
          const x = src[f.property];
          if (x !== undefined && x !== null) o[name] = toCelValue(x, f.type, cache);
        }
        out = o;
      }
      break;
  }
  if (typeof v === 'object' && cache) cache.set(v as object, out);
  return out;
}

/** Structural equality of CEL values (cel-go's Equal for objects, lists and maps). */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) {
    if ((typeof a === 'bigint' && typeof b === 'number') || (typeof a === 'number' && typeof b === 'bigint')) return Number(a) === Number(b);
    return false;
  }
  if (typeof a !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, (b as unknown[])[i]));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !celEquals(x, b.get(k))) return false;
    return true;
  }
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Uint8Array) return b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if ((a as object).constructor !== (b as object).constructor) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!celEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  // Values without own fields (durations): compare their printed form.
  if (ka.length === 0) return String(a) === String(b);
  return true;
}

/**
 * A JSON value as a CEL value when no schema types it (a `dyn` variable, e.g. a
 * ValidatingAdmissionPolicy's object without type information): objects become maps, whole
 * numbers int, other numbers double.
 */
export function jsonToCel(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(jsonToCel);
  if (typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, jsonToCel(x));
    return m;
  }
  return v;
}
