/**
 * `[]byte` fields (`format: byte` in the registry: Secret.data, ConfigMap.binaryData, …)
 * decoded as upstream's typed JSON decoder decodes them.
 *
 * Contract: `decodeByteFields(group, version, kind, obj)` walks `obj` with its kind's
 * schema and, for every `[]byte` value (a field, a map value or a list item):
 * - a string is decoded as Go's base64.StdEncoding does and replaced, in place, by the
 *   canonical encoding of the bytes (newlines dropped, trailing bits cleared), which is
 *   what kube-apiserver stores and answers;
 * - an array of numbers 0–255 is taken as the bytes (Go decodes it element by element);
 * - null is a nil slice: in a map or a list it becomes "" (what the stored object
 *   holds), a null field is left (omitempty drops it);
 * - anything else, or a string that is not base64, throws a TypedDecodeError whose
 *   message is encoding/json's: `illegal base64 data at input byte 0`, or
 *   `json: cannot unmarshal number into Go struct field Secret.data of type []uint8`.
 * The first bad value in document order wins, as Go's decoder keeps its first error.
 * With decoder 'unstructured' (a strategic merge patch's result) the messages are the
 * unstructured converter's: `error decoding from json: illegal base64 …`,
 * `cannot restore slice from int64`.
 * A kind the registry does not describe is left untouched.
 */
import { Base64CorruptInputError, decodeStdBase64 } from '../../machinery/base64.js';
import { type DefinitionSchema, type ElementSchema, definitionFor, fieldOf, refOf } from './index.js';

type JsonObject = Record<string, unknown>;

/** A body value the typed decoder cannot take; the message is Go's. */
export class TypedDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TypedDecodeError';
  }
}

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Which decoder upstream runs: 'json' for request bodies and the result of a JSON or
 * merge patch (encoding/json), 'unstructured' for the result of a strategic merge patch
 * (runtime.DefaultUnstructuredConverter, whose messages differ).
 */
export type ByteDecoder = 'json' | 'unstructured';

/** Where a value sits, as encoding/json's error names it: the innermost struct's Go name and the path of struct fields from the root. */
interface Context {
  struct: string;
  fields: string[];
  decoder: ByteDecoder;
}

export function decodeByteFields(group: string, version: string, kind: string, obj: JsonObject, decoder: ByteDecoder = 'json'): void {
  const def = definitionFor(group, version, kind);
  if (def !== undefined && hasByteFields(def)) walkStruct(def, obj, { struct: '', fields: [], decoder });
}

/** Go's short type name: "k8s.io/api/core/v1.Secret" → "Secret". */
function goStructName(def: DefinitionSchema): string {
  const dot = def.goType.lastIndexOf('.');
  return dot < 0 ? def.goType : def.goType.slice(dot + 1);
}

const byteFieldMemo = new Map<string, boolean>();

/** Whether any []byte value can be reached from this definition (most kinds: none, and the walk is skipped). */
function hasByteFields(def: DefinitionSchema, visiting = new Set<string>()): boolean {
  const known = byteFieldMemo.get(def.name);
  if (known !== undefined) return known;
  if (visiting.has(def.name)) return false;
  visiting.add(def.name);
  const reaches = (schema: ElementSchema | undefined): boolean => {
    if (schema === undefined) return false;
    if (schema.format === 'byte') return true;
    if (reaches(schema.items) || reaches(schema.values)) return true;
    const ref = refOf(schema);
    return ref !== undefined && ref.special === undefined && hasByteFields(ref, visiting);
  };
  const result = def.fields.some((f) => reaches(f));
  visiting.delete(def.name);
  if (visiting.size === 0 || result) byteFieldMemo.set(def.name, result);
  return result;
}

function walkStruct(def: DefinitionSchema, obj: JsonObject, ctx: Context): void {
  if (def.special !== undefined) return;
  const struct = goStructName(def);
  for (const key of Object.keys(obj)) {
    const field = fieldOf(def, key);
    if (field === undefined) continue;
    const next: Context = { struct, fields: [...ctx.fields, key], decoder: ctx.decoder };
    const decoded = walkValue(field, obj[key], next, true);
    if (decoded !== undefined) obj[key] = decoded;
  }
}

/** Returns the canonical string for a []byte value, undefined when nothing is replaced. */
function walkValue(schema: ElementSchema, value: unknown, ctx: Context, isField = false): string | undefined {
  // null in a map or list of []byte is an empty value once stored; a null field is left to omit-empty.
  if (value === null && schema.format === 'byte' && !isField) return '';
  if (value === null || value === undefined) return undefined;
  if (schema.format === 'byte') return decodeBytes(value, ctx);
  if (schema.type === 'array') {
    if (Array.isArray(value) && schema.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const decoded = walkValue(schema.items, value[i], ctx);
        if (decoded !== undefined) value[i] = decoded;
      }
    }
    return undefined;
  }
  if (schema.type === 'map') {
    if (isPlainObject(value) && schema.values !== undefined) {
      for (const key of Object.keys(value)) {
        const decoded = walkValue(schema.values, value[key], ctx);
        if (decoded !== undefined) value[key] = decoded;
      }
    }
    return undefined;
  }
  const ref = refOf(schema);
  if (ref !== undefined && ref.special === undefined && isPlainObject(value) && hasByteFields(ref)) walkStruct(ref, value, ctx);
  return undefined;
}

function decodeBytes(value: unknown, ctx: Context): string {
  if (ctx.decoder === 'unstructured') return convertBytes(value);
  const where = `Go struct field ${ctx.struct}.${ctx.fields.join('.')}`;
  // A JSON array decodes element by element into the slice: numbers 0–255.
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === 'number' && Number.isInteger(item) && item >= 0 && item <= 255) continue;
      const what = typeof item === 'number' ? `number ${String(item)}` : jsonKind(item);
      throw new TypedDecodeError(`json: cannot unmarshal ${what} into ${where} of type uint8`);
    }
    return Buffer.from(value as number[]).toString('base64');
  }
  if (typeof value !== 'string') throw new TypedDecodeError(`json: cannot unmarshal ${jsonKind(value)} into ${where} of type []uint8`);
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
  const kind = typeof value === 'number' ? (Number.isInteger(value) ? 'int64' : 'float64') : typeof value === 'boolean' ? 'bool' : 'map';
  throw new TypedDecodeError(`cannot restore slice from ${kind}`);
}

function base64(text: string, prefix: string): string {
  try {
    return decodeStdBase64(text).toString('base64');
  } catch (err) {
    if (err instanceof Base64CorruptInputError) throw new TypedDecodeError(prefix + err.message);
    throw err;
  }
}

/** encoding/json's name for a JSON value's kind in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // number
}
