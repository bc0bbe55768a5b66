/**
 * OpenAPI schema objects derived from the schema registry (src/api/schema): one
 * converter for Swagger 2.0 (`#/definitions/…` refs) and OpenAPI 3.0
 * (`#/components/schemas/…` refs), nothing written per type.
 *
 * Contract:
 * - `definitionSchema(def, flavour)` is the schema of one registry definition:
 *   `type: object` with `properties` and `required` for structs (inline embeddings
 *   flattened, as in JSON), the scalar forms upstream uses for the special types
 *   (Quantity, Time, IntOrString, …), and the `x-kubernetes-*` markers:
 *   `group-version-kind` on kinds, `list-type`, `list-map-keys`, `map-type`,
 *   `patch-strategy`, `patch-merge-key` on fields, `map-type` on atomic structs.
 * - A field referring to a struct is `{$ref}` in v2 and `{allOf: [{$ref}]}` in v3
 *   (upstream's v3 wraps refs so a sibling description or default can stay).
 * - `closure(names)` is every definition name reachable from `names`.
 * Descriptions are short sentences generated here, in our own words; none are
 * copied from upstream.
 */
import {
  type DefinitionSchema,
  type ElementSchema,
  type FieldSchema,
  definitionByName,
  fieldsOf,
} from '../../api/schema/index.js';

export type Flavour = 'v2' | 'v3';
export type JsonSchema = Record<string, unknown>;

export function refPath(name: string, flavour: Flavour): string {
  return flavour === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}`;
}

/** A reference to a definition, wrapped the way each flavour does it. */
export function refSchema(name: string, flavour: Flavour, extra: JsonSchema = {}): JsonSchema {
  if (flavour === 'v2') return { $ref: refPath(name, flavour), ...extra };
  return { allOf: [{ $ref: refPath(name, flavour) }], ...extra };
}

/** The short name of a definition: `io.k8s.api.core.v1.ConfigMap` → `ConfigMap`. */
export function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** `io.k8s.api.apps.v1.Deployment` → `apps/v1`; meta and core types read as such. */
function groupVersionLabel(name: string): string {
  const parts = name.split('.');
  const version = parts[parts.length - 2] ?? '';
  const group = parts[parts.length - 3] ?? '';
  return `${group}/${version}`;
}

function describeDefinition(def: DefinitionSchema): string {
  const kind = def.gvk?.[0]?.kind;
  if (def.special !== undefined) return `${shortName(def.name)} is a scalar value (${def.special}) written as ${def.type === 'string' ? 'a string' : 'JSON'}.`;
  if (kind !== undefined && kind.endsWith('List')) return `${kind} is a list of ${kind.slice(0, -4)} objects.`;
  if (kind !== undefined) return `${kind} is an API object of ${groupVersionLabel(def.name)}.`;
  return `${shortName(def.name)} is a structure used by ${groupVersionLabel(def.name)} objects.`;
}

/** A field's description: what it is and, where it matters, how patches and lists treat it. */
function describeField(owner: DefinitionSchema, field: FieldSchema): string {
  const name = field.name;
  const ownerName = shortName(owner.name);
  if (name === 'apiVersion') return 'The versioned schema of this representation of the object (group/version).';
  if (name === 'kind') return 'The REST resource kind this object represents, in CamelCase.';
  if (name === 'metadata') return ownerName.endsWith('List') ? 'Metadata of the list (resourceVersion, continue token).' : 'Metadata of the object: name, namespace, labels, annotations and the fields the system sets.';
  if (name === 'spec') return `The desired state of the ${ownerName}.`;
  if (name === 'status') return `The most recently observed state of the ${ownerName}; written by the system, read-only to clients.`;
  if (name === 'items' && ownerName.endsWith('List')) return `The ${ownerName.slice(0, -4)} objects in the list.`;
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  let text = `The ${words} of the ${ownerName}.`;
  if (field.listType === 'map' && field.listMapKeys !== undefined) text += ` Entries are keyed by ${field.listMapKeys.join(', ')}.`;
  return text;
}

function scalarSchema(schema: ElementSchema): JsonSchema {
  const out: JsonSchema = {};
  switch (schema.type) {
    case 'any':
    case 'object':
      out['type'] = 'object';
      break;
    case 'map':
      out['type'] = 'object';
      break;
    default:
      out['type'] = schema.type;
  }
  if (schema.format !== undefined) out['format'] = schema.format;
  return out;
}

/** The schema of a value (a field or an array item / map value) without field-level markers. */
export function elementSchema(schema: ElementSchema, flavour: Flavour, inItems = false): JsonSchema {
  if (schema.ref !== undefined && definitionByName(schema.ref) !== undefined) {
    // v3 gives struct-valued items an empty default object, as upstream does.
    return flavour === 'v3' && inItems ? refSchema(schema.ref, flavour, { default: {} }) : refSchema(schema.ref, flavour);
  }
  if (schema.type === 'array') {
    return { type: 'array', items: schema.items === undefined ? {} : elementSchema(schema.items, flavour, true) };
  }
  if (schema.type === 'map') {
    return { type: 'object', additionalProperties: schema.values === undefined ? {} : elementSchema(schema.values, flavour, true) };
  }
  return scalarSchema(schema);
}

function fieldSchema(owner: DefinitionSchema, field: FieldSchema, flavour: Flavour): JsonSchema {
  const base = elementSchema(field, flavour);
  const out: JsonSchema = { ...base, description: describeField(owner, field) };
  if (flavour === 'v3' && field.default !== undefined) out['default'] = field.default;
  else if (flavour === 'v3' && 'allOf' in base && field.required === true && !field.pointer) out['default'] = {};
  if (field.listType !== undefined) out['x-kubernetes-list-type'] = field.listType;
  if (field.listMapKeys !== undefined) out['x-kubernetes-list-map-keys'] = [...field.listMapKeys];
  if (field.mapType !== undefined) out['x-kubernetes-map-type'] = field.mapType;
  if (field.patchMergeKey !== undefined) out['x-kubernetes-patch-merge-key'] = field.patchMergeKey;
  if (field.patchStrategy !== undefined) out['x-kubernetes-patch-strategy'] = field.patchStrategy;
  return out;
}

function specialSchema(def: DefinitionSchema, flavour: Flavour): JsonSchema {
  const description = describeDefinition(def);
  switch (def.special) {
    case 'quantity':
      return flavour === 'v3' ? { description, oneOf: [{ type: 'string' }, { type: 'number' }] } : { description, type: 'string' };
    case 'intOrString':
      return flavour === 'v3'
        ? { description, oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' }
        : { description, type: 'string', format: 'int-or-string' };
    case 'time':
    case 'microTime':
      return { description, type: 'string', format: 'date-time' };
    case 'duration':
      return { description, type: 'string' };
    case 'json':
    case 'schemaOrArray':
    case 'schemaOrBool':
    case 'schemaOrStringArray':
      // Custom JSON forms (any value, a schema or a list, …): upstream gives them no type.
      return { description };
    default:
      return { description, type: 'object' };
  }
}

const cache = { v2: new Map<string, JsonSchema>(), v3: new Map<string, JsonSchema>() };

/** The OpenAPI schema of one registry definition (see the module comment). */
export function definitionSchema(def: DefinitionSchema, flavour: Flavour): JsonSchema {
  const cached = cache[flavour].get(def.name);
  if (cached !== undefined) return cached;
  let out: JsonSchema;
  if (def.special !== undefined) {
    out = specialSchema(def, flavour);
  } else {
    out = { description: describeDefinition(def), type: 'object' };
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of fieldsOf(def)) {
      if (field.name === '') continue;
      properties[field.name] = fieldSchema(def, field, flavour);
      if (field.required === true) required.push(field.name);
    }
    if (Object.keys(properties).length > 0) out['properties'] = properties;
    if (required.length > 0) out['required'] = required.sort();
    if (def.gvk !== undefined && def.gvk.length > 0) {
      out['x-kubernetes-group-version-kind'] = def.gvk.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
    }
    if (def.structType === 'atomic') out['x-kubernetes-map-type'] = 'atomic';
  }
  cache[flavour].set(def.name, out);
  return out;
}

function refsOf(schema: ElementSchema | undefined, into: string[]): void {
  if (schema === undefined) return;
  if (schema.ref !== undefined) into.push(schema.ref);
  refsOf(schema.items, into);
  refsOf(schema.values, into);
}

/** Every definition name reachable from `roots` (roots included), sorted. */
export function closure(roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    const def = definitionByName(name);
    if (def === undefined) continue;
    seen.add(name);
    const refs: string[] = [];
    for (const field of fieldsOf(def)) refsOf(field, refs);
    queue.push(...refs);
  }
  return [...seen].sort();
}
