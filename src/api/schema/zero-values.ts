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
import { isEmptyRecord } from '../../machinery/known-keys.js';
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
  if (def !== undefined) fillStruct(planOf(def), obj, options.dropZeroScalars === true, false);
}

/**
 * Whether fillZeroValues with these options would change `obj` (add or remove
 * anything), without changing it: a caller that wants the filled form as a
 * separate copy copies only when it would differ.
 */
export function zeroValuesWouldChange(group: string, version: string, kind: string, obj: JsonObject, options: FillOptions = {}): boolean {
  const def = definitionFor(group, version, kind);
  return def !== undefined && fillStruct(planOf(def), obj, options.dropZeroScalars === true, true);
}

// Every write walks its object along the schema (twice or three times), so
// each definition's fields are compiled once into what the walk needs to know
// of them: the zero to add when absent, when a present value is left out, and
// how to walk into it (nothing, for a map or list of scalars).

/** How to walk into a present value: a struct, or the elements of a list or map; undefined when nothing under it can change. */
type Walk = { struct: StructPlan } | { items: NonNullable<Walk> } | { values: NonNullable<Walk> } | undefined;

interface FieldPlan {
  name: string;
  /** ABSENT, a shared scalar zero, or a struct whose zero is built fresh each time. */
  zero: unknown;
  zeroStruct: StructPlan | undefined;
  /** An omitempty non-pointer scalar: its zero ("", 0 or false) is left out; undefined for any other field. */
  omittedZero: unknown;
  /** An omitempty pointer, map or list: null is left out. */
  dropsNull: boolean;
  /** An omitempty list (not ObjectMeta's managedFields) or map: empty is left out. */
  dropsEmpty: 'array' | 'map' | undefined;
  walk: Walk;
}

interface StructPlan {
  /** Special scalars (Quantity, Time, …) are not structs to walk. */
  special: boolean;
  fields: FieldPlan[];
}

const plans = new Map<string, StructPlan>();

function planOf(def: DefinitionSchema): StructPlan {
  let plan = plans.get(def.name);
  if (plan !== undefined) return plan;
  // Registered before its fields are compiled: recursive types (JSONSchemaProps) refer to themselves.
  plan = { special: def.special !== undefined, fields: [] };
  plans.set(def.name, plan);
  if (plan.special) return plan;
  for (const field of fieldsOf(def)) {
    const ref = refOf(field);
    const structZero = field.pointer !== true && field.inline !== true && ref !== undefined && field.type === 'object' && specialZero(ref.special) === undefined;
    const omitempty = field.omitempty === true;
    plan.fields.push({
      name: field.name,
      zero: structZero ? ABSENT : zeroOf(field),
      zeroStruct: structZero ? planOf(ref) : undefined,
      omittedZero: omitempty && field.pointer !== true && field.ref === undefined ? scalarZero(field.type) : undefined,
      dropsNull: omitempty && (field.pointer === true || field.type === 'map' || field.type === 'array'),
      dropsEmpty: !omitempty
        ? undefined
        : field.type === 'array'
          ? field.name === 'managedFields' && def.name === 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'
            ? undefined // `managedFields: []` is kept: it asks for them to be cleared
            : 'array'
          : field.type === 'map'
            ? 'map'
            : undefined,
      walk: walkOf(field),
    });
  }
  return plan;
}

const walks = new WeakMap<ElementSchema, { walk: Walk }>();

function walkOf(schema: ElementSchema): Walk {
  const cached = walks.get(schema);
  if (cached !== undefined) return cached.walk;
  let walk: Walk;
  if (schema.type === 'array' || schema.type === 'map') {
    const inner = schema.type === 'array' ? schema.items : schema.values;
    const elements = inner === undefined ? undefined : walkOf(inner);
    walk = elements === undefined ? undefined : schema.type === 'array' ? { items: elements } : { values: elements };
  } else {
    const ref = refOf(schema);
    walk = ref === undefined || ref.special !== undefined ? undefined : { struct: planOf(ref) };
  }
  walks.set(schema, { walk });
  return walk;
}

/** Fills (or, with `check`, only tells whether it would change anything) one struct; true when something changed. */
function fillStruct(plan: StructPlan, obj: JsonObject, drop: boolean, check: boolean): boolean {
  if (plan.special) return false;
  let changed = false;
  for (const f of plan.fields) {
    const value = obj[f.name];
    if (value !== undefined) {
      if (drop && ((f.omittedZero !== undefined && value === f.omittedZero) || omitted(f, value))) {
        if (check) return true;
        delete obj[f.name];
        changed = true;
      } else if (f.walk !== undefined && walkValue(f.walk, value, drop, check)) {
        if (check) return true;
        changed = true;
      }
      continue;
    }
    if (f.zeroStruct !== undefined) {
      if (check) return true;
      const out: JsonObject = {};
      fillStruct(f.zeroStruct, out, false, false);
      obj[f.name] = out;
      changed = true;
    } else if (f.zero !== ABSENT) {
      if (check) return true;
      obj[f.name] = f.zero;
      changed = true;
    }
  }
  return changed;
}

/**
 * An omitempty map or list that is null or empty, or an omitempty pointer that is null: Go's
 * encode leaves it out (a server-side apply's `labels: null` or `data: null`, which no
 * body decode dropped).
 */
function omitted(f: FieldPlan, value: unknown): boolean {
  if (value === null) return f.dropsNull;
  if (f.dropsEmpty === 'array') return Array.isArray(value) && value.length === 0;
  // Not Object.keys: a map of 100,000 keys would be listed (and sorted) by every write's walks.
  if (f.dropsEmpty === 'map') return isPlainObject(value) && isEmptyRecord(value);
  return false;
}

const ABSENT = Symbol('absent');

/** What Go prints for an unset field that is not a struct, or ABSENT when it leaves the field out. */
function zeroOf(field: FieldSchema): unknown {
  if (field.pointer === true || field.inline === true) return ABSENT;
  const special = specialZero(refOf(field)?.special);
  if (special !== undefined) return special;
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

function walkValue(walk: NonNullable<Walk>, value: unknown, drop: boolean, check: boolean): boolean {
  if (value === null) return false;
  if ('struct' in walk) return isPlainObject(value) ? fillStruct(walk.struct, value, drop, check) : false;
  let changed = false;
  if ('items' in walk) {
    if (!Array.isArray(value)) return false;
    for (const item of value) {
      if (walkValue(walk.items, item, drop, check)) {
        if (check) return true;
        changed = true;
      }
    }
  } else if (isPlainObject(value)) {
    for (const v of Object.values(value)) {
      if (walkValue(walk.values, v, drop, check)) {
        if (check) return true;
        changed = true;
      }
    }
  }
  return changed;
}
