/**
 * Drops what upstream's typed decode would drop: kube-apiserver decodes every
 * body into a Go struct and encodes it back, so an `omitempty` field holding an
 * empty map or an empty list (or null) disappears, e.g. the `labels: {}` a merge
 * patch removing the last label leaves behind.
 *
 * Contract: `dropEmptyCollections(group, version, kind, obj)` walks `obj` with
 * the schema registry and deletes, in place, every `omitempty` field whose value
 * is null, `{}` or `[]` (pointers included: Go omits a nil pointer, and an empty
 * map/list in a pointer-less field). Scalars are left as written (a zero number
 * or empty string the client sent stays: defaulting and validation see it). A
 * kind the registry does not describe is left untouched.
 */
import { type DefinitionSchema, type ElementSchema, definitionFor, fieldOf, refOf } from '../api/schema/index.js';

type JsonObject = Record<string, unknown>;

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyCollection(v: unknown): boolean {
  return v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

export function dropEmptyCollections(group: string, version: string, kind: string, obj: JsonObject): void {
  const def = definitionFor(group, version, kind);
  if (def !== undefined) walkStruct(def, obj);
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function walkStruct(def: DefinitionSchema, obj: JsonObject): void {
  if (def.special !== undefined) return;
  for (const key of Object.keys(obj)) {
    const field = fieldOf(def, key);
    if (field === undefined) continue;
    const value = obj[key];
    walkValue(field, value);
    // A struct-typed field is only omitted by Go when it is a nil pointer.
    const collection = field.type === 'map' || field.type === 'array';
    // `managedFields: []` is kept: it asks the field manager to clear them (a nil list would not).
    if (key === 'managedFields' && Array.isArray(value) && def.name === OBJECT_META) continue;
    if (field.omitempty === true && isEmptyCollection(value) && (collection || value === null)) delete obj[key];
  }
}

function walkValue(schema: ElementSchema, value: unknown): void {
  if (value === null || value === undefined) return;
  if (schema.type === 'array') {
    if (Array.isArray(value) && schema.items !== undefined) for (const item of value) walkValue(schema.items, item);
    return;
  }
  if (schema.type === 'map') {
    if (isPlainObject(value) && schema.values !== undefined) for (const v of Object.values(value)) walkValue(schema.values, v);
    return;
  }
  const ref = refOf(schema);
  if (ref !== undefined && isPlainObject(value)) walkStruct(ref, value);
}
