/**
 * Server-side apply's view of the schema registry: a TypeNode (see
 * machinery/apply/schema.ts) for every built-in kind, built lazily and cached.
 *
 * Merge relationships come from the registry's `apply` facts (client-go's
 * structured-merge-diff schema) and list/map/struct markers: an array is
 * atomic unless marked associative (a map list with keys, or a set), a map
 * is granular unless marked atomic, a struct is granular unless its
 * structType is atomic. Upstream's special scalars (quantity, time,
 * int-or-string) are scalars; so is RawExtension (kube-apiserver's OpenAPI gives
 * it no fields, and its field manager records `data` of a ControllerRevision as
 * one leaf, whatever it holds); FieldsV1 is untyped.
 *
 * `implicit` lists what Go always encodes for a struct (fields without
 * omitempty, and struct-valued fields, which omitempty does not drop) with
 * their zero values, so walks over stored objects see what kube-apiserver's
 * typed objects hold.
 */
import { scalar, untyped, type TypeNode } from '../../machinery/apply/schema.js';
import { type DefinitionSchema, type ElementSchema, type FieldSchema, definitionByName, definitionFor, fieldsOf } from './index.js';
import { scalarZero, specialZero } from './zero-values.js';

const structNodes = new Map<string, TypeNode>();

/** The apply schema of a kind, or undefined when the registry does not describe it. */
export function applySchemaFor(group: string, version: string, kind: string): TypeNode | undefined {
  const def = definitionFor(group, version, kind);
  return def === undefined ? undefined : structNode(def);
}

function structNode(def: DefinitionSchema): TypeNode {
  let node = structNodes.get(def.name);
  if (node !== undefined) return node;
  const fields = new Map<string, FieldSchema>();
  for (const f of fieldsOf(def)) fields.set(f.name, f);
  const fieldNodes = new Map<string, TypeNode>();
  let implicit: Array<readonly [string, unknown]> | undefined;
  node = {
    kind: 'map',
    atomic: def.structType === 'atomic',
    closed: true,
    field(name) {
      let n = fieldNodes.get(name);
      if (n === undefined) {
        const f = fields.get(name);
        if (f === undefined) return undefined;
        n = fieldNode(f);
        fieldNodes.set(name, n);
      }
      return n;
    },
    elements: () => untyped,
    implicit() {
      implicit ??= [...fields.values()].filter(isImplicit).map((f) => [f.name, zeroOf(f)] as const);
      return implicit;
    },
  };
  structNodes.set(def.name, node);
  return node;
}

function special(schema: ElementSchema): DefinitionSchema['special'] {
  return schema.ref === undefined ? undefined : definitionByName(schema.ref)?.special;
}

function isImplicit(f: FieldSchema): boolean {
  if (f.inline === true) return false;
  if (f.omitempty !== true) return true;
  // omitempty leaves a struct value in place (encoding/json never finds a struct empty).
  return f.ref !== undefined && f.pointer !== true && f.type !== 'array' && f.type !== 'map';
}

function zeroOf(f: FieldSchema): unknown {
  if (f.pointer === true) return null;
  // Not `??`: a special's zero may be null (times), which must not fall through to the JSON type's.
  const specialValue = specialZero(special(f));
  if (specialValue !== undefined) return specialValue;
  const scalar = scalarZero(f.type);
  if (scalar !== undefined) return scalar;
  return f.type === 'object' && f.ref !== undefined ? {} : null;
}

function fieldNode(f: FieldSchema): TypeNode {
  const relationship = f.apply?.elementRelationship;
  if (f.type === 'array') {
    const items = f.items === undefined ? untyped : elementNode(f.items);
    if (relationship === 'associative' || f.listType === 'set' || f.listType === 'map') {
      const keys = f.apply?.keys ?? f.listMapKeys ?? [];
      const itemDef = f.items?.ref === undefined ? undefined : definitionByName(f.items.ref);
      return {
        kind: 'list',
        atomic: false,
        listType: keys.length > 0 ? 'map' : 'set',
        keys,
        field: () => undefined,
        elements: () => items,
        keyDefault(name) {
          if (itemDef === undefined) return undefined;
          return fieldsOf(itemDef).find((x) => x.name === name)?.default;
        },
      };
    }
    return { kind: 'list', atomic: true, listType: 'atomic', field: () => undefined, elements: () => items };
  }
  if (f.type === 'map') {
    const values = f.values === undefined ? untyped : elementNode(f.values);
    return { kind: 'map', atomic: relationship === 'atomic' || f.mapType === 'atomic', field: () => undefined, elements: () => values };
  }
  const node = elementNode(f);
  if (relationship === 'atomic' && node.kind === 'map' && !node.atomic) return { ...node, atomic: true };
  return node;
}

function elementNode(e: ElementSchema): TypeNode {
  if (e.ref !== undefined) {
    const def = definitionByName(e.ref);
    if (def === undefined) return untyped;
    // RawExtension: one atomic value (a leaf), never walked into.
    if (def.special === 'fieldsV1') return untyped;
    if (def.special !== undefined) return scalar;
    return structNode(def);
  }
  switch (e.type) {
    case 'array':
      // An element that is itself a list (rare: [][]string): atomic.
      return { kind: 'list', atomic: true, listType: 'atomic', field: () => undefined, elements: () => (e.items === undefined ? untyped : elementNode(e.items)) };
    case 'map':
      return { kind: 'map', atomic: false, field: () => undefined, elements: () => (e.values === undefined ? untyped : elementNode(e.values)) };
    case 'any':
    case 'object':
      return untyped;
    default:
      return scalar;
  }
}
