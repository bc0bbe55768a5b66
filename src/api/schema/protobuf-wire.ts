// The protobuf codec's shared pieces: wire types, field order, Go's string
// order and Kubernetes' time forms (./protobuf.ts encodes, ./protobuf-decode.ts decodes).
import type protobuf from 'protobufjs/minimal.js';
import { badRequest } from '../../machinery/errors.js';
import { type DefinitionSchema, type ElementSchema, type FieldSchema, refOf } from './index.js';

export type Writer = protobuf.Writer;
export type Reader = protobuf.Reader;
export type JsonObject = Record<string, unknown>;

/** The 4 bytes every Kubernetes protobuf body starts with. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;

export const utf8 = new TextEncoder();

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sorts as Go's sort.Strings does: by UTF-8 bytes, not UTF-16 units. */
export function goStringCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export const protoFieldCache = new Map<string, FieldSchema[]>();
/** A definition's fields that have protobuf numbers, in number order. */
export function protoFields(def: DefinitionSchema): FieldSchema[] {
  let out = protoFieldCache.get(def.name);
  if (out === undefined) {
    out = def.fields.filter((f) => f.proto !== undefined).sort((a, b) => a.proto!.number - b.proto!.number);
    protoFieldCache.set(def.name, out);
  }
  return out;
}

export function wireOf(schema: ElementSchema): number {
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

export const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 text to Unix seconds and nanoseconds. */
export function parseTime(text: string): { seconds: number; nanos: number } {
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

export function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const base = iso.slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

export const SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
