/**
 * Writes the zero values upstream's typed encode writes: kube-apiserver decodes
 * every object into a Go struct and encodes it back, so a field that is absent
 * from the JSON still appears when Go's `encoding/json` does not leave it out:
 *   - a field without `omitempty` shows its zero value (`"reportingComponent": ""`,
 *     `"replicas": 0`, `"limits": null` for a nil slice or map);
 *   - a struct-typed field that is not a pointer is never omitted, `omitempty` or
 *     not: it shows as `{}` with its own zero fields (`"deprecatedSource": {}`,
 *     a node's `status.daemonEndpoints.kubeletEndpoint.Port: 0`);
 *   - the struct-backed scalars print their own zero: `metav1.Time` and
 *     `MicroTime` as `null` (a pod template's `"creationTimestamp": null`),
 *     `Quantity` as "0", `IntOrString` as 0, `Duration` as "0s",
 *     `RawExtension` and `FieldsV1` as `null`.
 * Pointers, and `omitempty` scalars, slices and maps, stay absent.
 *
 * Contract: `fillZeroValues(group, version, kind, obj, options)` adds, in place,
 * every such missing field under `obj` (into nested structs, list elements and
 * map values too), walking the schema registry. With `dropZeroScalars` it also
 * removes what Go's encode leaves out: an `omitempty` string, number or boolean
 * (not a pointer) holding "", 0 or false, and an `omitempty` map or list that is
 * null or empty (or pointer that is null). Other present values are never
 * changed. A kind the registry does not describe is left untouched. The
 * registry calls it on every write (dropping only on the last call, after
 * validation saw what the client sent), so what is stored, and so every read
 * and watch, looks as upstream's encoding would print it.
 */
import { type DefinitionSchema, type ElementSchema, type FieldSchema, definitionFor, fieldsOf, refOf } from './index.js';

type JsonObject = Record<string, unknown>;

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface FillOptions {
  /** Also remove the omitempty scalars Go's encode leaves out ("", 0, false). */
  dropZeroScalars?: boolean;
}

export function fillZeroValues(group: string, version: string, kind: string, obj: JsonObject, options: FillOptions = {}): void {
  const def = definitionFor(group, version, kind);
  if (def !== undefined) fillStruct(def, obj, options.dropZeroScalars === true);
}

function isZeroScalar(field: FieldSchema, value: unknown): boolean {
  if (field.ref !== undefined) return false;
  switch (field.type) {
    case 'string':
      return value === '';
    case 'integer':
    case 'number':
      return value === 0;
    case 'boolean':
      return value === false;
    default:
      return false;
  }
}

function fillStruct(def: DefinitionSchema, obj: JsonObject, drop: boolean): void {
  if (def.special !== undefined) return;
  for (const field of fieldsOf(def)) {
    const value = obj[field.name];
    if (value !== undefined) {
      if (drop && field.omitempty === true && field.pointer !== true && isZeroScalar(field, value)) delete obj[field.name];
      else if (drop && omittedCollection(def, field, value)) delete obj[field.name];
      else walkValue(field, value, drop);
      continue;
    }
    const zero = zeroOf(field);
    if (zero !== ABSENT) obj[field.name] = zero;
  }
}

/**
 * An omitempty map or list that is null or empty, or an omitempty pointer that is null: Go's
 * encode leaves it out (a server-side apply's `labels: null` or `data: null`, which no
 * body decode dropped). ObjectMeta's `managedFields: []` is kept (it asks for them to be cleared).
 */
function omittedCollection(def: DefinitionSchema, field: FieldSchema, value: unknown): boolean {
  if (field.omitempty !== true) return false;
  if (value === null) return field.pointer === true || field.type === 'map' || field.type === 'array';
  if (field.name === 'managedFields' && def.name === 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') return false;
  if (field.type === 'array') return Array.isArray(value) && value.length === 0;
  if (field.type === 'map') return isPlainObject(value) && Object.keys(value).length === 0;
  return false;
}

const ABSENT = Symbol('absent');

/** What Go prints for an unset field, or ABSENT when it leaves the field out. */
function zeroOf(field: FieldSchema): unknown {
  if (field.pointer === true || field.inline === true) return ABSENT;
  const ref = refOf(field);
  const special = specialZero(ref?.special);
  if (special !== undefined) return special;
  if (ref !== undefined && field.type === 'object') {
    const out: JsonObject = {};
    fillStruct(ref, out, false);
    return out;
  }
  if (field.omitempty === true) return ABSENT;
  if (field.type === 'array' || field.type === 'map') return null;
  return scalarZero(field.type) ?? ABSENT;
}

/** Go's zero value of a hand-encoded type as encoding/json prints it; undefined for any other. */
export function specialZero(special: string | undefined): unknown {
  switch (special) {
    case 'time':
    case 'microTime':
    case 'rawExtension':
    case 'fieldsV1':
      return null;
    case 'quantity':
      return '0';
    case 'intOrString':
      return 0;
    case 'duration':
      return '0s';
    default:
      return undefined;
  }
}

/** Go's zero value of a JSON scalar type; undefined for any other type. */
export function scalarZero(type: string | undefined): unknown {
  switch (type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

function walkValue(schema: ElementSchema, value: unknown, drop: boolean): void {
  if (value === null) return;
  if (schema.type === 'array') {
    if (Array.isArray(value) && schema.items !== undefined) for (const item of value) walkValue(schema.items, item, drop);
    return;
  }
  if (schema.type === 'map') {
    if (isPlainObject(value) && schema.values !== undefined) for (const v of Object.values(value)) walkValue(schema.values, v, drop);
    return;
  }
  const ref = refOf(schema);
  if (ref !== undefined && isPlainObject(value)) fillStruct(ref, value, drop);
}
