/**
 * The Kubernetes protobuf codec, driven by the schema registry's field numbers.
 *
 * Contract:
 * - `encodeProtobuf(obj)` writes what kube-apiserver writes for
 *   `application/vnd.kubernetes.protobuf`: the 4-byte magic `k8s\0`, then a
 *   `runtime.Unknown { typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3, contentType=4 }`
 *   whose raw is the object's message. Messages are written the way upstream's generated
 *   Go code writes them: fields in number order, non-pointer scalars and structs always
 *   (zero values included), pointers, slices and maps only when set, map entries sorted
 *   by key. It throws a 406 StatusError for a kind with no protobuf form (meta/v1 Table)
 *   and a 400 for an object whose apiVersion/kind the registry does not describe.
 * - `decodeProtobuf(bytes)` reads such a body back to the JSON upstream would print for
 *   the same Go object (omitempty zero values dropped, non-omitempty ones present, Go's
 *   map key order); any malformed input is a 400 BadRequest StatusError.
 * - `encodeWatchEventFrame(type, obj)` is one frame of a protobuf watch stream: a 4-byte
 *   big-endian length, then a `WatchEvent { type=1, object=RawExtension{raw=1} }` written
 *   without magic or envelope, whose raw holds the object encoded by `encodeProtobuf`.
 *   `decodeWatchEventFrame` reads one back.
 *
 * Wire types come from each field's JSON type (string, bytes, messages: length-delimited;
 * integers and booleans: varint; numbers: fixed64), not from the struct tag's first word,
 * which upstream's Go tags get wrong for a few fields (PodSpec.priority says "bytes").
 * Known gap: Quantity strings are passed through as written, where upstream would
 * canonicalise them ("1000m" → "1").
 */
import protobuf from 'protobufjs/minimal.js';
import { StatusError, badRequest } from '../../machinery/errors.js';
import { type KubeObject, parseApiVersion } from '../../machinery/meta.js';
import { isImmutable } from '../../machinery/json-memo.js';
import { type DefinitionSchema, type ElementSchema, definitionByName, definitionFor, refOf } from './index.js';
import { PROTOBUF_MAGIC, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT, SCHEMA_PROPS, goStringCompare, isPlainObject, parseTime, protoFields, utf8, type JsonObject, type Writer } from './protobuf-wire.js';

export { PROTOBUF_MAGIC } from './protobuf-wire.js';
export { decodeEnvelope, decodeProtobuf, decodeWatchEventFrame } from './protobuf-decode.js';

// ---------------------------------------------------------------- encode

function tag(w: Writer, number: number, wire: number): void {
  w.uint32((number << 3) | wire);
}

function encodeStruct(def: DefinitionSchema, obj: JsonObject | undefined, w: Writer): void {
  for (const f of protoFields(def)) {
    const n = f.proto!.number;
    if (f.inline) {
      tag(w, n, WIRE_BYTES);
      w.fork();
      encodeStruct(refOf(f)!, obj, w);
      w.ldelim();
      continue;
    }
    const v = obj?.[f.name];
    if (f.type === 'array') {
      if (Array.isArray(v)) for (const el of v) encodeValue(f.items!, el, n, w);
      continue;
    }
    if (f.type === 'map') {
      if (isPlainObject(v)) {
        for (const key of Object.keys(v).sort(goStringCompare)) {
          tag(w, n, WIRE_BYTES);
          w.fork();
          tag(w, 1, WIRE_BYTES);
          w.string(key);
          encodeValue(f.values!, v[key], 2, w);
          w.ldelim();
        }
      }
      continue;
    }
    if (v === undefined || v === null) {
      // Go writes non-pointer fields even when zero, except []byte (nil is left out).
      if (f.pointer || f.format === 'byte') continue;
    }
    encodeValue(f, v, n, w);
  }
}

/** The encoded message of an object that never changes, kept per object and definition. */
const keptStructs = new WeakMap<object, Map<DefinitionSchema, Uint8Array>>();

function structBytes(def: DefinitionSchema, obj: JsonObject): Uint8Array {
  let byDef = keptStructs.get(obj);
  let bytes = byDef?.get(def);
  if (bytes !== undefined) return bytes;
  const w = protobuf.Writer.create();
  encodeStruct(def, obj, w);
  bytes = w.finish();
  if (byDef === undefined) keptStructs.set(obj, (byDef = new Map()));
  byDef.set(def, bytes);
  return bytes;
}

/** Writes one value (a field, an array element or a map value) under field number n. */
function encodeValue(schema: ElementSchema, v: unknown, n: number, w: Writer): void {
  const ref = refOf(schema);
  if (ref !== undefined) {
    tag(w, n, WIRE_BYTES);
    if (ref.special === undefined && isImmutable(v)) {
      // An object of the watch cache (a list's item): its bytes are kept (json-memo.ts).
      w.bytes(structBytes(ref, v as JsonObject));
      return;
    }
    w.fork();
    if (ref.special === undefined) encodeStruct(ref, isPlainObject(v) ? v : undefined, w);
    else encodeSpecial(ref, v, w);
    w.ldelim();
    return;
  }
  switch (schema.type) {
    case 'integer':
      tag(w, n, WIRE_VARINT);
      w.int64(typeof v === 'number' ? Math.trunc(v) : 0);
      return;
    case 'boolean':
      tag(w, n, WIRE_VARINT);
      w.bool(v === true);
      return;
    case 'number':
      tag(w, n, WIRE_FIXED64);
      w.double(typeof v === 'number' ? v : 0);
      return;
    case 'string':
      tag(w, n, WIRE_BYTES);
      if (schema.format === 'byte') w.bytes(typeof v === 'string' ? Buffer.from(v, 'base64') : new Uint8Array(0));
      else w.string(typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
      return;
    case 'array':
      // A named slice as a map value (authentication's ExtraValue): a message of its items under field 1.
      tag(w, n, WIRE_BYTES);
      w.fork();
      for (const el of Array.isArray(v) ? v : []) encodeValue(schema.items!, el, 1, w);
      w.ldelim();
      return;
    default:
      throw badRequest(`cannot encode a value of type ${schema.type} to protobuf`);
  }
}

function encodeSpecial(def: DefinitionSchema, v: unknown, w: Writer): void {
  switch (def.special) {
    case 'time':
    case 'microTime': {
      if (typeof v !== 'string' || v === '') return; // zero time: empty message
      const t = parseTime(v);
      tag(w, 1, WIRE_VARINT);
      w.int64(t.seconds);
      tag(w, 2, WIRE_VARINT);
      // metav1.Time keeps seconds only; MicroTime keeps microseconds.
      w.int32(def.special === 'time' ? 0 : Math.floor(t.nanos / 1000) * 1000);
      return;
    }
    case 'quantity':
      tag(w, 1, WIRE_BYTES);
      w.string(v === undefined || v === null ? '0' : String(v));
      return;
    case 'intOrString': {
      const isString = typeof v === 'string';
      tag(w, 1, WIRE_VARINT);
      w.int64(isString ? 1 : 0);
      tag(w, 2, WIRE_VARINT);
      w.int32(isString ? 0 : typeof v === 'number' ? v : 0);
      tag(w, 3, WIRE_BYTES);
      w.string(isString ? v : '');
      return;
    }
    case 'rawExtension':
    case 'fieldsV1':
      if (v === undefined || v === null) return;
      tag(w, 1, WIRE_BYTES);
      w.bytes(utf8.encode(JSON.stringify(v)));
      return;
    // apiextensions' JSON forms: one JSON value, two shapes in protobuf (fields in number order).
    case 'json':
      tag(w, 1, WIRE_BYTES);
      w.bytes(utf8.encode(JSON.stringify(v ?? null)));
      return;
    case 'schemaOrArray':
      if (Array.isArray(v)) for (const el of v) encodeSchemaProps(el, 2, w);
      else if (isPlainObject(v)) encodeSchemaProps(v, 1, w);
      return;
    case 'schemaOrBool':
      // Allows is a plain bool (always written); an object means "allowed, with this schema".
      tag(w, 1, WIRE_VARINT);
      w.bool(v !== false);
      if (isPlainObject(v)) encodeSchemaProps(v, 2, w);
      return;
    case 'schemaOrStringArray':
      if (isPlainObject(v)) encodeSchemaProps(v, 1, w);
      else if (Array.isArray(v)) {
        for (const s of v) {
          tag(w, 2, WIRE_BYTES);
          w.string(typeof s === 'string' ? s : String(s));
        }
      }
      return;
    default:
      throw badRequest(`cannot encode ${def.name} to protobuf`);
  }
}

function encodeSchemaProps(v: unknown, n: number, w: Writer): void {
  tag(w, n, WIRE_BYTES);
  w.fork();
  encodeStruct(definitionByName(SCHEMA_PROPS)!, isPlainObject(v) ? v : undefined, w);
  w.ldelim();
}

function definitionOfObject(obj: JsonObject): DefinitionSchema {
  const apiVersion = obj.apiVersion;
  const kind = obj.kind;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion === '' || kind === '') {
    throw badRequest('Object \'Kind\' is missing in protobuf encoding');
  }
  const gv = parseApiVersion(apiVersion);
  const def = definitionFor(gv.group, gv.version, kind);
  if (def === undefined) throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
  if (!def.protobuf) {
    throw new StatusError(
      406,
      'NotAcceptable',
      `object *v1.${kind} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
    );
  }
  return def;
}

/** A Kubernetes protobuf body: magic, then the runtime.Unknown envelope. */
export function encodeProtobuf(obj: KubeObject | JsonObject): Uint8Array {
  const o = obj as JsonObject;
  const def = definitionOfObject(o);
  const w = protobuf.Writer.create();
  tag(w, 1, WIRE_BYTES);
  w.fork();
  tag(w, 1, WIRE_BYTES);
  w.string(o.apiVersion as string);
  tag(w, 2, WIRE_BYTES);
  w.string(o.kind as string);
  w.ldelim();
  tag(w, 2, WIRE_BYTES);
  w.fork();
  encodeStruct(def, o, w);
  w.ldelim();
  tag(w, 3, WIRE_BYTES);
  w.string('');
  tag(w, 4, WIRE_BYTES);
  w.string('');
  const body = w.finish();
  const out = new Uint8Array(PROTOBUF_MAGIC.length + body.length);
  out.set(PROTOBUF_MAGIC, 0);
  out.set(body, PROTOBUF_MAGIC.length);
  return out;
}

/** One length-prefixed frame of a protobuf watch stream. */
export function encodeWatchEventFrame(type: string, obj: KubeObject | JsonObject): Uint8Array {
  const inner = encodeProtobuf(obj);
  const w = protobuf.Writer.create();
  tag(w, 1, WIRE_BYTES);
  w.string(type);
  tag(w, 2, WIRE_BYTES);
  w.fork();
  tag(w, 1, WIRE_BYTES);
  w.bytes(inner);
  w.ldelim();
  const msg = w.finish();
  const out = new Uint8Array(4 + msg.length);
  new DataView(out.buffer).setUint32(0, msg.length, false);
  out.set(msg, 4);
  return out;
}
