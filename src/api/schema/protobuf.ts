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
import { type DefinitionSchema, type ElementSchema, type FieldSchema, definitionByName, definitionFor, refOf } from './index.js';

type Writer = protobuf.Writer;
type Reader = protobuf.Reader;
type JsonObject = Record<string, unknown>;

/** The 4 bytes every Kubernetes protobuf body starts with. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;

const utf8 = new TextEncoder();

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sorts as Go's sort.Strings does: by UTF-8 bytes, not UTF-16 units. */
function goStringCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const protoFieldCache = new Map<string, FieldSchema[]>();
/** A definition's fields that have protobuf numbers, in number order. */
function protoFields(def: DefinitionSchema): FieldSchema[] {
  let out = protoFieldCache.get(def.name);
  if (out === undefined) {
    out = def.fields.filter((f) => f.proto !== undefined).sort((a, b) => a.proto!.number - b.proto!.number);
    protoFieldCache.set(def.name, out);
  }
  return out;
}

function wireOf(schema: ElementSchema): number {
  const ref = refOf(schema);
  if (ref !== undefined) return WIRE_BYTES;
  switch (schema.type) {
    case 'integer':
    case 'boolean':
      return WIRE_VARINT;
    case 'number':
      return WIRE_FIXED64;
    default:
      return WIRE_BYTES;
  }
}

// ---------------------------------------------------------------- time

const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 text to Unix seconds and nanoseconds. */
function parseTime(text: string): { seconds: number; nanos: number } {
  const m = TIME_RE.exec(text);
  if (m === null) throw badRequest(`parsing time ${JSON.stringify(text)}: not RFC 3339`);
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone!.startsWith('-') ? -1 : 1;
    seconds -= sign * (Number(zone!.slice(1, 3)) * 3600 + Number(zone!.slice(4, 6)) * 60);
  }
  const nanos = frac === undefined ? 0 : Number((frac.slice(1) + '000000000').slice(0, 9));
  return { seconds, nanos };
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const base = iso.slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

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

const SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

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

// ---------------------------------------------------------------- decode

/** Reads a varint int64 as a JS number (protobufjs returns a Long when the long package is present). */
function readInt64(r: Reader): number {
  const v = r.int64() as unknown;
  if (typeof v === 'number') return v;
  const { low, high } = v as { low: number; high: number };
  return Number(BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)));
}

/** What was read for one field: the raw wire values, in order. */
type Collected = Map<FieldSchema, unknown[]>;

const byNumberCache = new Map<string, Map<number, FieldSchema>>();
function fieldsByNumber(def: DefinitionSchema): Map<number, FieldSchema> {
  let m = byNumberCache.get(def.name);
  if (m === undefined) {
    m = new Map(protoFields(def).map((f) => [f.proto!.number, f]));
    byNumberCache.set(def.name, m);
  }
  return m;
}

function readScalar(schema: ElementSchema, wire: number, r: Reader): unknown {
  if (refOf(schema) !== undefined || schema.type === 'string') {
    if (wire !== WIRE_BYTES) throw new Error(`wire type ${wire} for a length-delimited field`);
    return r.bytes();
  }
  switch (schema.type) {
    case 'integer':
      if (wire !== WIRE_VARINT) throw new Error(`wire type ${wire} for an integer field`);
      return schema.format === 'int32' ? r.int32() : readInt64(r);
    case 'boolean':
      if (wire !== WIRE_VARINT) throw new Error(`wire type ${wire} for a boolean field`);
      return r.bool();
    case 'number':
      if (wire !== WIRE_FIXED64) throw new Error(`wire type ${wire} for a double field`);
      return r.double();
  }
  throw new Error(`cannot decode a field of type ${schema.type}`);
}

function collect(def: DefinitionSchema, bytes: Uint8Array): Collected {
  const r = protobuf.Reader.create(bytes);
  const byNumber = fieldsByNumber(def);
  const out: Collected = new Map();
  while (r.pos < r.len) {
    const t = r.uint32();
    const number = t >>> 3;
    const wire = t & 7;
    if (number === 0) throw new Error('field number 0');
    const f = byNumber.get(number);
    if (f === undefined) {
      r.skipType(wire);
      continue;
    }
    let list = out.get(f);
    if (list === undefined) out.set(f, (list = []));
    if (f.inline) {
      if (wire !== WIRE_BYTES) throw new Error('inline struct is not length-delimited');
      list.push(r.bytes());
    } else if (f.type === 'map') {
      if (wire !== WIRE_BYTES) throw new Error('map entry is not length-delimited');
      list.push(readMapEntry(f.values!, r.bytes()));
    } else if (f.type === 'array') {
      const items = f.items!;
      if (wire === WIRE_BYTES && wireOf(items) !== WIRE_BYTES) {
        // A packed run of varints or doubles.
        const packed = protobuf.Reader.create(r.bytes());
        while (packed.pos < packed.len) list.push(readScalar(items, wireOf(items), packed));
      } else {
        list.push(readScalar(items, wire, r));
      }
    } else {
      list.push(readScalar(f, wire, r));
    }
  }
  return out;
}

/** A named slice of strings as a map value (ExtraValue): its items under field 1. */
function readStringItems(bytes: Uint8Array): string[] {
  const r = protobuf.Reader.create(bytes);
  const items: string[] = [];
  while (r.pos < r.len) {
    const t = r.uint32();
    if (t >>> 3 === 1 && (t & 7) === WIRE_BYTES) items.push(r.string());
    else r.skipType(t & 7);
  }
  return items;
}

function readMapEntry(values: ElementSchema, bytes: Uint8Array): [string, unknown] {
  const r = protobuf.Reader.create(bytes);
  let key = '';
  let value: unknown;
  while (r.pos < r.len) {
    const t = r.uint32();
    const wire = t & 7;
    switch (t >>> 3) {
      case 1:
        if (wire !== WIRE_BYTES) throw new Error('map key is not a string');
        key = r.string();
        break;
      case 2:
        if (values.type === 'array' && wire === WIRE_BYTES) value = readStringItems(r.bytes());
        else value = readScalar(values, wire, r);
        break;
      default:
        r.skipType(wire);
    }
  }
  return [key, value];
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** The JSON form of one decoded value (bytes for strings and messages, numbers, booleans). */
function toJson(schema: ElementSchema, raw: unknown): unknown {
  const ref = refOf(schema);
  if (ref !== undefined) {
    const bytes = raw as Uint8Array;
    return ref.special === undefined ? decodeStruct(ref, bytes) : decodeSpecial(ref, bytes);
  }
  if (schema.type === 'string') {
    const bytes = raw as Uint8Array;
    return schema.format === 'byte' ? Buffer.from(bytes).toString('base64') : utf8Decoder.decode(bytes);
  }
  return raw;
}

/** Go's zero value for a field of this schema, as encoding/json prints it. */
function zeroJson(schema: ElementSchema): unknown {
  const ref = refOf(schema);
  if (ref !== undefined) {
    return ref.special === undefined ? decodeStruct(ref, new Uint8Array(0)) : decodeSpecial(ref, new Uint8Array(0));
  }
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return schema.format === 'byte' ? null : '';
    default:
      return null;
  }
}

function isEmptyScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function decodeStruct(def: DefinitionSchema, bytes: Uint8Array): JsonObject {
  const got = collect(def, bytes);
  const out: JsonObject = {};
  for (const f of def.fields) {
    if (f.proto === undefined) continue; // TypeMeta's apiVersion/kind: set by the envelope
    const values = got.get(f);
    if (f.inline) {
      const last = values?.[values.length - 1] as Uint8Array | undefined;
      Object.assign(out, decodeStruct(refOf(f)!, last ?? new Uint8Array(0)));
      continue;
    }
    if (f.type === 'array' || f.type === 'map') {
      if (values === undefined || values.length === 0) {
        if (!f.omitempty) out[f.name] = null;
        continue;
      }
      if (f.type === 'array') {
        out[f.name] = values.map((v) => toJson(f.items!, v));
      } else {
        const entries = (values as Array<[string, unknown]>).map(
          ([k, v]) => [k, v === undefined ? zeroJson(f.values!) : toJson(f.values!, v)] as const,
        );
        const map: JsonObject = {};
        for (const [k, v] of entries.sort((a, b) => goStringCompare(a[0], b[0]))) map[k] = v;
        out[f.name] = map;
      }
      continue;
    }
    const last = values?.[values.length - 1];
    if (last === undefined) {
      if (f.pointer) {
        if (!f.omitempty) out[f.name] = null;
        continue;
      }
      const zero = zeroJson(f);
      if (f.omitempty && (zero === null || isEmptyScalar(zero)) && refOf(f) === undefined) continue;
      out[f.name] = zero;
      continue;
    }
    const v = toJson(f, last);
    if (f.omitempty && !f.pointer && refOf(f) === undefined && (isEmptyScalar(v) || (f.format === 'byte' && v === ''))) continue;
    out[f.name] = v;
  }
  return out;
}

function decodeSpecial(def: DefinitionSchema, bytes: Uint8Array): unknown {
  const r = protobuf.Reader.create(bytes);
  switch (def.special) {
    case 'time':
    case 'microTime': {
      if (bytes.length === 0) return null; // Go's zero time prints as null
      let seconds = 0;
      let nanos = 0;
      while (r.pos < r.len) {
        const t = r.uint32();
        if (t === 0x08) seconds = readInt64(r);
        else if (t === 0x10) nanos = r.int32();
        else r.skipType(t & 7);
      }
      return formatTime(seconds, nanos, def.special === 'microTime');
    }
    case 'quantity': {
      let s = '0';
      while (r.pos < r.len) {
        const t = r.uint32();
        if (t === 0x0a) s = r.string();
        else r.skipType(t & 7);
      }
      return s;
    }
    case 'intOrString': {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < r.len) {
        const t = r.uint32();
        if (t === 0x08) type = readInt64(r);
        else if (t === 0x10) intVal = r.int32();
        else if (t === 0x1a) strVal = r.string();
        else r.skipType(t & 7);
      }
      return type === 1 ? strVal : intVal;
    }
    case 'rawExtension':
    case 'fieldsV1': {
      let raw: Uint8Array | undefined;
      while (r.pos < r.len) {
        const t = r.uint32();
        if (t === 0x0a) raw = r.bytes();
        else r.skipType(t & 7);
      }
      if (raw === undefined || raw.length === 0) return null;
      if (hasMagic(raw)) return decodeEnvelope(raw);
      return JSON.parse(utf8Decoder.decode(raw));
    }
    case 'json':
    case 'schemaOrArray':
    case 'schemaOrBool':
    case 'schemaOrStringArray':
      return decodeSchemaForm(def.special, r);
    default:
      throw new Error(`cannot decode ${def.name}`);
  }
}

/** apiextensions' JSON forms back to the JSON Go's MarshalJSON writes for them. */
function decodeSchemaForm(special: 'json' | 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray', r: protobuf.Reader): unknown {
  const props = definitionByName(SCHEMA_PROPS)!;
  let raw: Uint8Array | undefined;
  let allows = false;
  let schema: JsonObject | undefined;
  const list: unknown[] = [];
  while (r.pos < r.len) {
    const t = r.uint32();
    const field = t >>> 3;
    if (special === 'json' && t === 0x0a) raw = r.bytes();
    else if (special === 'schemaOrBool' && t === 0x08) allows = r.bool();
    else if ((t & 7) !== WIRE_BYTES) r.skipType(t & 7);
    else if (special === 'schemaOrArray') {
      const m = decodeStruct(props, r.bytes());
      if (field === 1) schema = m;
      else if (field === 2) list.push(m);
    } else if (special === 'schemaOrBool' && field === 2) schema = decodeStruct(props, r.bytes());
    else if (special === 'schemaOrStringArray' && field === 1) schema = decodeStruct(props, r.bytes());
    else if (special === 'schemaOrStringArray' && field === 2) list.push(r.string());
    else r.skipType(t & 7);
  }
  switch (special) {
    case 'json':
      return raw === undefined || raw.length === 0 ? null : JSON.parse(utf8Decoder.decode(raw));
    case 'schemaOrArray':
      return list.length > 0 ? list : (schema ?? null);
    case 'schemaOrBool':
      return schema ?? allows;
    case 'schemaOrStringArray':
      return list.length > 0 ? list : (schema ?? null);
  }
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

/**
 * The object of a protobuf envelope (magic + runtime.Unknown), as stored by
 * kube-apiserver; throws a plain error (or decodeProtobuf's StatusErrors for
 * a missing or unknown kind) when the bytes are no such object.
 */
export function decodeEnvelope(bytes: Uint8Array): KubeObject {
  const r = protobuf.Reader.create(bytes.subarray(4));
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array(0);
  let contentEncoding = '';
  while (r.pos < r.len) {
    const t = r.uint32();
    switch (t) {
      case 0x0a: {
        const tm = protobuf.Reader.create(r.bytes());
        while (tm.pos < tm.len) {
          const t2 = tm.uint32();
          if (t2 === 0x0a) apiVersion = tm.string();
          else if (t2 === 0x12) kind = tm.string();
          else tm.skipType(t2 & 7);
        }
        break;
      }
      case 0x12:
        raw = r.bytes();
        break;
      case 0x1a:
        contentEncoding = r.string();
        break;
      default:
        r.skipType(t & 7);
    }
  }
  if (contentEncoding !== '') throw new Error(`unsupported content encoding ${JSON.stringify(contentEncoding)}`);
  if (kind === '') throw badRequest("Object 'Kind' is missing in protobuf body");
  const gv = parseApiVersion(apiVersion);
  const def = definitionFor(gv.group, gv.version, kind);
  if (def === undefined) throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
  return { kind, apiVersion, ...decodeStruct(def, raw) } as KubeObject;
}

function malformed(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return badRequest(`the body of the request could not be decoded as protobuf: ${detail}`);
}

/** Reads a Kubernetes protobuf body (magic + runtime.Unknown) into the object's JSON form. */
export function decodeProtobuf(bytes: Uint8Array): KubeObject {
  if (bytes.length === 0) throw badRequest('empty data');
  if (!hasMagic(bytes)) {
    throw badRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  if (bytes.length === 4) throw badRequest('empty body');
  try {
    return decodeEnvelope(bytes);
  } catch (err) {
    throw malformed(err);
  }
}

/** Reads one watch frame (length prefix included); returns the event and the bytes it used. */
export function decodeWatchEventFrame(bytes: Uint8Array): { type: string; object: KubeObject; length: number } {
  try {
    if (bytes.length < 4) throw new Error('short frame');
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, false);
    if (bytes.length < 4 + n) throw new Error('short frame');
    const ev = decodeStruct(definitionByName('io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent')!, bytes.subarray(4, 4 + n));
    return { type: ev.type as string, object: ev.object as KubeObject, length: 4 + n };
  } catch (err) {
    throw malformed(err);
  }
}
