/**
 * Pruning: drop the fields the schema does not know, as upstream's typed decoding does.
 *
 * Contract:
 * - `pruneObject(group, version, kind, obj)` removes, in place, every property of `obj`
 *   that its kind's schema does not describe, recursively through structs, arrays and
 *   maps. Free-form values (runtime.RawExtension, managedFields' fieldsV1, Table cells)
 *   are kept whole. Values of the wrong JSON type are left for validation to reject.
 *   It returns the dropped paths in the order met, written as upstream's strict JSON
 *   decoder writes them (`spec.foo`, `spec.containers[0].bar`, `metadata.labels`'s
 *   keys never, being a map of strings); the warning or error text for one path is
 *   `unknownFieldMessage(path)`: `unknown field "spec.foo"`. A kind the registry does
 *   not describe is left untouched and yields no paths.
 * - `findDuplicateFields(rawJson)` lists the keys that occur twice in one JSON object,
 *   as upstream's strict decoder reports them (`duplicate field "metadata.name"`); it
 *   returns [] for input that is not valid JSON (the decoder will report that).
 */
import { type DefinitionSchema, type ElementSchema, definitionFor, fieldOf, refOf } from './index.js';

type JsonObject = Record<string, unknown>;

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** The text upstream uses for one unknown field in a Warning header or a strict-decoding error. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/** The text upstream uses for one duplicate field. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`;
}

/** Drops unknown fields of `obj` in place; returns their paths. See the module comment. */
export function pruneObject(group: string, version: string, kind: string, obj: Record<string, unknown>): string[] {
  const def = definitionFor(group, version, kind);
  if (def === undefined) return [];
  const dropped: string[] = [];
  pruneStruct(def, obj, '', dropped);
  return dropped;
}

function pruneStruct(def: DefinitionSchema, obj: JsonObject, path: string, dropped: string[]): void {
  if (def.special !== undefined) return; // scalars and free-form objects
  for (const key of Object.keys(obj)) {
    const field = fieldOf(def, key);
    if (field === undefined) {
      dropped.push(join(path, key));
      delete obj[key];
      continue;
    }
    pruneValue(field, obj[key], join(path, key), dropped);
  }
}

function pruneValue(schema: ElementSchema, value: unknown, path: string, dropped: string[]): void {
  if (value === null || value === undefined) return;
  switch (schema.type) {
    case 'array':
      if (Array.isArray(value) && schema.items !== undefined) {
        const items = schema.items;
        value.forEach((item, i) => pruneValue(items, item, `${path}[${i}]`, dropped));
      }
      return;
    case 'map':
      if (isPlainObject(value) && schema.values !== undefined) {
        for (const [k, v] of Object.entries(value)) pruneValue(schema.values, v, join(path, k), dropped);
      }
      return;
    default: {
      const ref = refOf(schema);
      if (ref !== undefined && ref.special === undefined && isPlainObject(value)) pruneStruct(ref, value, path, dropped);
    }
  }
}

/**
 * Finds keys repeated within one JSON object. A small scanner: it tracks the path of
 * the value being read and a key set per open object; strings are skipped with their
 * escapes, other tokens are left to JSON.parse (which the caller runs anyway).
 */
export function findDuplicateFields(rawJson: string): string[] {
  try {
    JSON.parse(rawJson);
  } catch {
    return [];
  }
  const found: string[] = [];
  // One frame per open container: for objects the keys seen and the current key, for arrays the index.
  type Frame = { kind: 'object'; path: string; seen: Set<string>; key: string | null } | { kind: 'array'; path: string; index: number };
  const stack: Frame[] = [];
  let i = 0;
  const n = rawJson.length;

  const valuePath = (): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return '';
    if (top.kind === 'array') return `${top.path}[${top.index}]`;
    return join(top.path, top.key ?? '');
  };

  const readString = (): string => {
    // rawJson[i] is the opening quote; JSON.parse decodes escapes exactly.
    const start = i;
    i++;
    while (i < n) {
      const c = rawJson.charCodeAt(i);
      if (c === 0x5c) i += 2;
      else if (c === 0x22) break;
      else i++;
    }
    i++;
    return JSON.parse(rawJson.slice(start, i)) as string;
  };

  while (i < n) {
    const c = rawJson[i]!;
    if (c === '{') {
      stack.push({ kind: 'object', path: valuePath(), seen: new Set(), key: null });
      i++;
    } else if (c === '[') {
      stack.push({ kind: 'array', path: valuePath(), index: 0 });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index++;
      else if (top?.kind === 'object') top.key = null;
      i++;
    } else if (c === '"') {
      const top = stack[stack.length - 1];
      const s = readString();
      if (top?.kind === 'object' && top.key === null) {
        if (top.seen.has(s)) found.push(join(top.path, s));
        top.seen.add(s);
        top.key = s;
      }
    } else {
      i++; // whitespace, ':', numbers, literals
    }
  }
  return found;
}
