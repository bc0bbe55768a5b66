// Reading Kubernetes protobuf bodies back to JSON (the contract is in ./protobuf.ts).
import protobuf from 'protobufjs/minimal.js';
import { StatusError, badRequest } from '../../machinery/errors.js';
import { type KubeObject, parseApiVersion } from '../../machinery/meta.js';
import { type DefinitionSchema, type ElementSchema, type FieldSchema, definitionByName, definitionFor, refOf } from './index.js';
import { SCHEMA_PROPS, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT, formatTime, goStringCompare, wireOf, protoFields, type JsonObject, type Reader } from './protobuf-wire.js';

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
