/**
 * Typed decoding: what upstream's decode of a body into its Go struct refuses or
 * changes, checked against the schema registry after the JSON (or YAML) parse.
 *
 * Contract: `decodeTyped(group, version, kind, obj, decoder)` walks `obj` with its
 * kind's schema, in document order, and
 * - throws a TypedDecodeError carrying Go's message for the first value of the
 *   wrong JSON type (a number where a string goes, a string in an int32, 1.5 or
 *   99999999999 in an int32, an object where a list goes, …). With decoder 'json'
 *   (request bodies, the result of a JSON or merge patch: encoding/json) it reads
 *   `json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of
 *   type string`; with 'unstructured' (the result of a strategic merge patch:
 *   runtime.DefaultUnstructuredConverter) `cannot convert int64 to string`,
 *   `cannot restore map from slice`, `unrecognized type: bool`;
 * - decodes every `[]byte` value (Secret.data, ConfigMap.binaryData) as Go's
 *   base64.StdEncoding does and replaces it, in place, by the canonical encoding of
 *   the bytes (what kube-apiserver stores and answers); a string that is not base64
 *   is `illegal base64 data at input byte N` (unstructured: `error decoding from
 *   json: …`); a list of numbers 0–255 is taken as the bytes; null in a map or list
 *   becomes "" (a nil slice, stored empty); a null struct element becomes {}.
 * null is accepted everywhere (Go leaves the zero value). Free-form values
 * (RawExtension, fieldsV1) are not looked into. Time strings and quantities are
 * checked for their JSON type only. A kind the registry does not describe is left
 * untouched.
 */
import { Base64CorruptInputError, decodeStdBase64 } from '../../machinery/base64.js';
import { type DefinitionSchema, type ElementSchema, definitionFor, fieldOf, refOf } from './index.js';
import { rfc3339Error } from '../../machinery/go-time.js';
import { parseQuantity } from '../../machinery/quantity.js';
import { scalarZero } from './zero-values.js';

type JsonObject = Record<string, unknown>;

/** Which decoder upstream runs; see the module comment. */
export type TypedDecoder = 'json' | 'unstructured';

/** A body value the typed decoder cannot take; the message is Go's. */
export class TypedDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TypedDecodeError';
  }
}

const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * Where the walk is, kept cheap (this runs on every write): the struct fields
 * from the root as a stack, and the struct and field being read; Go's names
 * and types are only worked out for an error.
 */
interface Context {
  decoder: TypedDecoder;
  fields: string[];
  struct: DefinitionSchema | undefined;
  /** The Go type of the field being read ("*v1.Probe", "[]v1.Container", …). */
  fieldGoType: string;
  /** How many list or map levels below the field the current value is. */
  depth: number;
}

export function decodeTyped(group: string, version: string, kind: string, obj: JsonObject, decoder: TypedDecoder = 'json'): void {
  const def = definitionFor(group, version, kind);
  if (def !== undefined) walkStruct(def, obj, { decoder, fields: [], struct: undefined, fieldGoType: '', depth: 0 });
}

/** The Go type of the current value: the field's type, pointer dropped, element type per level below it. */
function currentGoType(ctx: Context): string {
  let goType = ctx.fieldGoType.replace(/^\*/, '');
  for (let i = 0; i < ctx.depth; i++) goType = elementGoType(goType);
  return goType;
}

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's short type name: "k8s.io/api/core/v1.Secret" → "Secret". */
function goStructName(def: DefinitionSchema): string {
  const dot = def.goType.lastIndexOf('.');
  return dot < 0 ? def.goType : def.goType.slice(dot + 1);
}

/** The Go type of a list's element or a map's value, from the container's Go type. */
function elementGoType(goType: string): string {
  if (goType.startsWith('[]')) return goType.slice(2);
  if (goType.startsWith('map[')) {
    let depth = 0;
    for (let i = 3; i < goType.length; i++) {
      if (goType[i] === '[') depth++;
      else if (goType[i] === ']' && --depth === 0) return goType.slice(i + 1);
    }
  }
  return goType;
}

function walkStruct(def: DefinitionSchema, obj: JsonObject, ctx: Context): void {
  if (def.special !== undefined) return;
  const outer = { struct: ctx.struct, fieldGoType: ctx.fieldGoType, depth: ctx.depth };
  ctx.struct = def;
  for (const key of Object.keys(obj)) {
    const field = fieldOf(def, key);
    if (field === undefined) continue; // unknown fields are field validation's business
    const value = obj[key];
    if (value === null || value === undefined) continue;
    ctx.fields.push(key);
    ctx.fieldGoType = field.goType;
    ctx.depth = 0;
    const replaced = walkValue(field, value, ctx, true);
    if (replaced !== undefined) obj[key] = replaced;
    ctx.fields.pop();
  }
  ctx.struct = outer.struct;
  ctx.fieldGoType = outer.fieldGoType;
  ctx.depth = outer.depth;
}

/** Checks one value; returns a replacement (canonical base64), or undefined to keep it. */
function walkValue(schema: ElementSchema, value: unknown, ctx: Context, isField = false): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return schema.format === 'byte' && !isField ? '' : undefined;
  if (schema.format === 'byte') return decodeBytes(value, ctx);
  const ref = refOf(schema);
  if (ref?.special !== undefined) return checkSpecial(ref.special, value, ctx);
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') mismatch(value, 'string', ctx);
      return undefined;
    case 'boolean':
      if (typeof value !== 'boolean') mismatch(value, 'bool', ctx);
      return undefined;
    case 'integer':
      checkInteger(value, schema.format === 'int64' ? 64 : 32, ctx);
      return undefined;
    case 'number':
      if (typeof value !== 'number') mismatch(value, 'float64', ctx);
      return undefined;
    case 'array': {
      if (!Array.isArray(value)) return restoreMismatch(value, 'slice', ctx);
      const items = schema.items;
      if (items === undefined || value.length === 0) return undefined;
      ctx.depth++;
      for (let i = 0; i < value.length; i++) {
        if (value[i] === null && items.format !== 'byte') {
          // Go decodes null into an element's zero value.
          const zero = elementZero(items);
          if (zero !== undefined) value[i] = zero;
          continue;
        }
        const replaced = walkValue(items, value[i], ctx);
        if (replaced !== undefined) value[i] = replaced;
      }
      ctx.depth--;
      return undefined;
    }
    case 'map': {
      if (!isPlainObject(value)) return restoreMismatch(value, 'map', ctx);
      const values = schema.values;
      if (values === undefined) return undefined;
      ctx.depth++;
      for (const key in value) {
        const item = value[key];
        // A string in a map of strings (labels, data) is the common case: nothing to do.
        // (Not a map of quantities: a Quantity is a string the decoder parses.)
        if (typeof item === 'string' && values.type === 'string' && values.format === undefined && values.ref === undefined) continue;
        if (item === null && values.format !== 'byte') {
          // A map keeps the key with its value's zero value (a label `a: null` is stored as "").
          const zero = elementZero(values);
          if (zero !== undefined) value[key] = zero;
          continue;
        }
        const replaced = walkValue(values, item, ctx);
        if (replaced !== undefined) value[key] = replaced;
      }
      ctx.depth--;
      return undefined;
    }
    case 'object':
      if (ref === undefined) return undefined;
      if (!isPlainObject(value)) return restoreMismatch(value, 'struct', ctx);
      walkStruct(ref, value, ctx);
      return undefined;
    default:
      return undefined; // free-form
  }
}

/** The zero value of a scalar or struct element (Go's for null: `tolerations: [null]` is one empty toleration), undefined for anything else. */
function elementZero(schema: ElementSchema): unknown {
  if (refOf(schema) !== undefined) return schema.type === 'object' ? {} : undefined;
  return scalarZero(schema.type);
}

/** encoding/json's name for a JSON value in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // string, number
}

/** The Go kind the unstructured converter sees for a decoded JSON value. */
function unstructuredKind(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (isPlainObject(value)) return 'map';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return 'string';
}

function jsonTypeError(what: string, goType: string, ctx: Context): never {
  const struct = ctx.struct === undefined ? '' : goStructName(ctx.struct);
  throw new TypedDecodeError(`json: cannot unmarshal ${what} into Go struct field ${struct}.${ctx.fields.join('.')} of type ${goType}`);
}

/** A scalar of the wrong JSON type for a scalar field. */
function mismatch(value: unknown, goKind: string, ctx: Context): never {
  if (ctx.decoder === 'json') jsonTypeError(jsonKind(value), currentGoType(ctx), ctx);
  // The converter converts between Go kinds where Go can (int64 → int32), refuses int → string by name, and knows nothing else.
  const source = unstructuredKind(value);
  if (goKind === 'string' && source === 'int64') throw new TypedDecodeError('cannot convert int64 to string');
  throw new TypedDecodeError(`unrecognized type: ${goKind}`);
}

/** A value of the wrong JSON type for a list, map or struct field. */
function restoreMismatch(value: unknown, target: 'slice' | 'map' | 'struct', ctx: Context): undefined {
  if (ctx.decoder === 'json') jsonTypeError(jsonKind(value), currentGoType(ctx), ctx);
  const source = unstructuredKind(value);
  throw new TypedDecodeError(target === 'struct' ? `cannot restore struct from: ${source}` : `cannot restore ${target} from ${source}`);
}

function checkInteger(value: unknown, bits: 32 | 64, ctx: Context): void {
  if (typeof value !== 'number') {
    mismatch(value, bits === 32 ? 'int32' : 'int64', ctx);
    return;
  }
  if (ctx.decoder === 'unstructured') return; // Go converts float64/int64 to the field's kind
  const limit = bits === 32 ? 2 ** 31 : 2 ** 63;
  if (!Number.isInteger(value) || value < -limit || value >= limit) jsonTypeError(`number ${String(value)}`, currentGoType(ctx), ctx);
}

/** Checks a value of a type that decodes itself; returns its replacement when the decode changes it (a quantity's canonical form). */
function checkSpecial(special: string, value: unknown, ctx: Context): string | undefined {
  switch (special) {
    case 'time':
    case 'microTime':
      // metav1.Time unmarshals the JSON string itself; Go adds the field to its error.
      if (typeof value !== 'string') {
        if (ctx.decoder === 'json') jsonTypeError(jsonKind(value), 'string', ctx);
        throw new TypedDecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
      }
      if (special === 'time') {
        // metav1.Time parses the string as RFC 3339 and fails the decode with Go's message.
        const invalid = rfc3339Error(value);
        if (invalid !== undefined) throw new TypedDecodeError(invalid);
      }
      return;
    case 'quantity':
      // resource.Quantity unmarshals its JSON text itself: what does not parse fails the decode (400, not validation's 422).
      // It is kept in canonical form ("1.5" is 1500m, "1.5Gi" 1536Mi, a JSON number its quantity), as upstream stores it.
      if (typeof value !== 'string' && typeof value !== 'number') throw new TypedDecodeError(QUANTITY_FORMAT_ERROR);
      try {
        const canonical = parseQuantity(String(value).trim()).toString();
        return canonical === value ? undefined : canonical;
      } catch {
        throw new TypedDecodeError(QUANTITY_FORMAT_ERROR);
      }
    case 'intOrString':
      if (typeof value === 'string') return;
      if (typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) return;
      if (ctx.decoder === 'json') jsonTypeError(typeof value === 'number' ? `number ${String(value)}` : jsonKind(value), 'int32', ctx);
      throw new TypedDecodeError(`json: cannot unmarshal ${typeof value === 'number' ? `number ${String(value)}` : jsonKind(value)} into Go value of type int32`);
    default:
      return; // RawExtension, fieldsV1, Duration: free-form here
  }
}

function decodeBytes(value: unknown, ctx: Context): string {
  if (ctx.decoder === 'unstructured') return convertBytes(value);
  // A JSON array decodes element by element into the slice: numbers 0–255.
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === 'number' && Number.isInteger(item) && item >= 0 && item <= 255) continue;
      jsonTypeError(typeof item === 'number' ? `number ${String(item)}` : jsonKind(item), 'uint8', ctx);
    }
    return Buffer.from(value as number[]).toString('base64');
  }
  if (typeof value !== 'string') jsonTypeError(jsonKind(value), '[]uint8', ctx);
  return base64(value, '');
}

/** The unstructured converter: a string goes through encoding/json, anything but a list is refused by its Go kind. */
function convertBytes(value: unknown): string {
  if (typeof value === 'string') return base64(value, 'error decoding from json: ');
  if (Array.isArray(value)) {
    // Elements convert to uint8 as Go's reflect conversion does: truncated.
    if (value.every((v) => typeof v === 'number')) return Buffer.from((value as number[]).map((n) => Math.trunc(n) & 0xff)).toString('base64');
    throw new TypedDecodeError('unrecognized type: uint8');
  }
  throw new TypedDecodeError(`cannot restore slice from ${unstructuredKind(value)}`);
}

function base64(text: string, prefix: string): string {
  try {
    return decodeStdBase64(text).toString('base64');
  } catch (err) {
    if (err instanceof Base64CorruptInputError) throw new TypedDecodeError(prefix + err.message);
    throw err;
  }
}
