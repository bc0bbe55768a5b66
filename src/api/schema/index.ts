/**
 * The schema registry: one description of every built-in type, generated from the
 * Kubernetes Go types by tools/schemagen (see README.md beside this file).
 *
 * Contract: definitions are keyed by upstream's OpenAPI definition names
 * (`io.k8s.api.core.v1.ConfigMap`); each lists its JSON fields with their JSON type,
 * protobuf number and wire type, patch strategy / merge key and list / map markers.
 * A field with `inline: true` embeds another struct: in JSON its fields sit beside the
 * embedding type's own (use `fieldsOf` for that flattened view), in protobuf it is a
 * nested message under its own number. Everything here is read-only; the registry is
 * loaded once at import.
 *
 * OpenAPI, protobuf, field validation (pruning), strategic merge patch and Table derive
 * from this module; nothing else keeps a parallel copy of these facts.
 */
import generated from './types.generated.json' with { type: 'json' };
import { hncDefinitions, hncKinds } from '../hnc/v1alpha2/schema.js';

/** JSON type of a field: OpenAPI's scalar types, plus `array`/`map`, and `any` for free-form values. */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'map' | 'any';

/** The scalar types whose JSON and protobuf forms are not the obvious ones. */
// json, schemaOrArray, schemaOrBool, schemaOrStringArray: apiextensions' custom JSON forms (any JSON; a
// JSONSchemaProps or a list of them; one or a bool; one or a list of strings).
export type SpecialKind = 'quantity' | 'time' | 'microTime' | 'duration' | 'intOrString' | 'rawExtension' | 'fieldsV1' | 'json' | 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray';

/** An array's element or a map's value. `ref` names a definition (a struct or a special scalar). */
export interface ElementSchema {
  type: JsonType;
  format?: string;
  ref?: string;
  items?: ElementSchema;
  values?: ElementSchema;
}

/** The protobuf struct tag of a field, as upstream's Go type declares it. */
export interface ProtoTag {
  number: number;
  /** varint | bytes | fixed64 | fixed32 | zigzag32 | zigzag64 */
  wire: string;
  /** As the tag says ("rep"); a few upstream slices are tagged "opt": repetition follows `type`. */
  repeated?: boolean;
  casttype?: string;
  /** Map fields: the wire types of the entry's key (field 1) and value (field 2). */
  key?: string;
  value?: string;
}

export interface FieldSchema extends ElementSchema {
  /** JSON name; empty for an inline embedding. */
  name: string;
  /** The Go type, for diagnostics. */
  goType: string;
  pointer?: boolean;
  omitempty?: boolean;
  /** Required as upstream's OpenAPI says: neither `+optional` nor `omitempty`. */
  required?: boolean;
  inline?: boolean;
  proto?: ProtoTag;
  patchStrategy?: string;
  patchMergeKey?: string;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
  default?: unknown;
  /** Effective structured-merge-diff relationship (server-side apply), from client-go. */
  apply?: { elementRelationship: 'atomic' | 'associative' | 'separable'; keys?: string[] };
}

export interface DefinitionSchema {
  /** Upstream's definition name (the registry key). */
  name: string;
  type: JsonType;
  format?: string;
  special?: SpecialKind;
  fields: FieldSchema[];
  gvk?: Array<{ group: string; version: string; kind: string }>;
  structType?: 'atomic' | 'granular';
  /** False for types with no protobuf form (meta/v1 Table). */
  protobuf: boolean;
  goType: string;
}

interface RawDefinition extends Omit<DefinitionSchema, 'name' | 'fields'> {
  fields?: FieldSchema[];
}

interface GeneratedFile {
  sources: Record<string, string>;
  definitions: Record<string, RawDefinition>;
  kinds: Record<string, string>;
}

// The JSON import's inferred literal type is wider than ours (plain strings); the
// generator guarantees the narrower shape.
const generatedFile = generated as unknown as GeneratedFile;
// Kinds apiary serves beyond the k8s.io modules (HNC's), described beside their types.
const file: GeneratedFile = {
  ...generatedFile,
  definitions: { ...generatedFile.definitions, ...hncDefinitions },
  kinds: { ...generatedFile.kinds, ...hncKinds },
};

const definitions = new Map<string, DefinitionSchema>();
for (const [name, raw] of Object.entries(file.definitions)) {
  definitions.set(name, { ...raw, name, fields: raw.fields ?? [] });
}

/** Versions of the upstream modules the registry was generated from. */
export const schemaSources: Readonly<Record<string, string>> = file.sources;

/** A definition by upstream name, or undefined. */
export function definitionByName(name: string): DefinitionSchema | undefined {
  return definitions.get(name);
}

/** The definition of a kind (group '' for core), or undefined when we do not describe it. */
export function definitionFor(group: string, version: string, kind: string): DefinitionSchema | undefined {
  // Asked several times on every write: nested maps, so a lookup builds no key string.
  const known = byKind.get(group)?.get(version)?.get(kind);
  if (known !== undefined) return known;
  const name = file.kinds[`${group}/${version}/${kind}`];
  const def = name === undefined ? undefined : definitions.get(name);
  // Only kinds that exist are remembered: callers may ask about any apiVersion a body names.
  if (def !== undefined) {
    let versions = byKind.get(group);
    if (versions === undefined) byKind.set(group, (versions = new Map()));
    let kinds = versions.get(version);
    if (kinds === undefined) versions.set(version, (kinds = new Map()));
    kinds.set(kind, def);
  }
  return def;
}

/** definitionFor's answers for the kinds that exist, by group, version and kind. */
const byKind = new Map<string, Map<string, Map<string, DefinitionSchema>>>();

const flattened = new Map<string, FieldSchema[]>();

/**
 * The JSON fields of a definition, with inline embeddings replaced by the embedded
 * struct's fields (recursively), in declaration order.
 */
export function fieldsOf(def: DefinitionSchema): FieldSchema[] {
  let out = flattened.get(def.name);
  if (out !== undefined) return out;
  out = [];
  for (const f of def.fields) {
    if (f.inline && f.ref !== undefined) out.push(...fieldsOf(definitions.get(f.ref)!));
    else out.push(f);
  }
  flattened.set(def.name, out);
  return out;
}

const byName = new Map<string, Map<string, FieldSchema>>();

/** One JSON field of a definition by name (inline embeddings looked through). */
export function fieldOf(def: DefinitionSchema, name: string): FieldSchema | undefined {
  let index = byName.get(def.name);
  if (index === undefined) {
    index = new Map(fieldsOf(def).map((f) => [f.name, f]));
    byName.set(def.name, index);
  }
  return index.get(name);
}

/** The definition a field (or element) refers to, if it refers to one. */
export function refOf(schema: ElementSchema): DefinitionSchema | undefined {
  return schema.ref === undefined ? undefined : definitions.get(schema.ref);
}

/** Whether a kind has a top-level `status` field (and so, upstream, usually a /status subresource). */
export function hasStatus(group: string, version: string, kind: string): boolean {
  const def = definitionFor(group, version, kind);
  return def !== undefined && fieldOf(def, 'status') !== undefined;
}

/** The names of a kind's top-level fields other than status and TypeMeta/metadata: what a status write leaves alone. */
export function specFieldNames(group: string, version: string, kind: string): string[] {
  const def = definitionFor(group, version, kind);
  if (def === undefined) return [];
  return fieldsOf(def)
    .map((f) => f.name)
    .filter((n) => n !== 'status' && n !== 'apiVersion' && n !== 'kind' && n !== 'metadata');
}

/** Whether objects of this kind can be written in Kubernetes protobuf. */
export function hasProtobuf(group: string, version: string, kind: string): boolean {
  return definitionFor(group, version, kind)?.protobuf === true;
}
