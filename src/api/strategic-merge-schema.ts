// The strategic-merge-patch view of the schema registry: for a built-in kind,
// the patchStrategy / patchMergeKey (and list markers) of any field, looked up
// by JSON path as src/machinery/strategic-merge-patch.ts asks for it (list
// elements add no path segment; entries of map-typed fields add their key).
//
// Contract: smpSchemaFor returns undefined for a kind the registry does not
// describe (upstream serves no strategic merge patch for such types: 415).
// Lookups are cached per kind and path; the registry is read-only.

import { definitionFor, fieldOf, refOf, type DefinitionSchema, type ElementSchema, type FieldSchema } from './schema/index.js';
import type { SmpFieldMeta, SmpSchema } from '../machinery/strategic-merge-patch.js';

type Cursor = { kind: 'struct'; def: DefinitionSchema } | { kind: 'map'; values: ElementSchema } | undefined;

/** Where a path continues after a field: lists are transparent, maps expect a key, refs open a struct. */
function descend(schema: ElementSchema | undefined): Cursor {
  if (schema === undefined) return undefined;
  if (schema.type === 'array') return descend(schema.items);
  if (schema.type === 'map') return schema.values === undefined ? undefined : { kind: 'map', values: schema.values };
  const def = refOf(schema);
  if (def === undefined || def.special !== undefined) return undefined;
  return { kind: 'struct', def };
}

function isScalarElement(schema: ElementSchema | undefined): boolean {
  if (schema === undefined) return false;
  if (schema.type === 'array' || schema.type === 'map') return false;
  const def = refOf(schema);
  return def === undefined ? schema.type !== 'object' && schema.type !== 'any' : def.type !== 'object';
}

function metaOf(schema: ElementSchema | FieldSchema): SmpFieldMeta {
  const field = schema as FieldSchema;
  const meta: SmpFieldMeta = {
    isList: schema.type === 'array',
    isMap: schema.type === 'map' || (schema.type === 'object' && descend(schema) !== undefined),
    isPrimitiveList: schema.type === 'array' && isScalarElement(schema.items),
  };
  if (field.patchStrategy !== undefined) meta.patchStrategy = field.patchStrategy;
  if (field.patchMergeKey !== undefined) meta.patchMergeKey = field.patchMergeKey;
  if (field.listType !== undefined) meta.listType = field.listType;
  if (field.listMapKeys !== undefined) meta.listMapKeys = field.listMapKeys;
  return meta;
}

function lookup(root: DefinitionSchema, path: readonly string[]): SmpFieldMeta | undefined {
  let cursor: Cursor = { kind: 'struct', def: root };
  for (let i = 0; i < path.length; i++) {
    if (cursor === undefined) return undefined;
    const last = i === path.length - 1;
    const schema: ElementSchema | undefined = cursor.kind === 'struct' ? fieldOf(cursor.def, path[i]!) : cursor.values;
    if (schema === undefined) return undefined;
    if (last) return metaOf(schema);
    cursor = descend(schema);
  }
  return undefined;
}

const cache = new Map<string, SmpSchema | undefined>();

/** The strategic merge patch schema of a built-in kind (group '' for core), or undefined. */
export function smpSchemaFor(group: string, version: string, kind: string): SmpSchema | undefined {
  const key = `${group}/${version}/${kind}`;
  if (cache.has(key)) return cache.get(key);
  const root = definitionFor(group, version, kind);
  let schema: SmpSchema | undefined;
  if (root !== undefined) {
    const fields = new Map<string, SmpFieldMeta | undefined>();
    schema = {
      fieldAt(path) {
        const k = path.join('\u0000');
        if (!fields.has(k)) fields.set(k, lookup(root, path));
        return fields.get(k);
      },
    };
  }
  cache.set(key, schema);
  return schema;
}
