/**
 * Server-side apply's schema of a custom resource (a TypeNode, see
 * machinery/apply/schema.ts), built from a CRD version's structural schema as
 * upstream's apiextensions-apiserver does through its OpenAPI models:
 *
 * - the root declares apiVersion and kind (scalars) and metadata (ObjectMeta,
 *   the built-in type), beside the schema's own properties;
 * - arrays are atomic unless x-kubernetes-list-type is set (a set of
 *   scalars) or map (items identified by x-kubernetes-list-map-keys, a key's
 *   missing value taking its schema default);
 * - objects are granular unless x-kubernetes-map-type is atomic; declared
 *   properties are fields, additionalProperties types the other keys, and an
 *   object with neither additionalProperties nor
 *   x-kubernetes-preserve-unknown-fields is closed (an applied configuration
 *   naming another key fails with "field not declared in schema");
 * - x-kubernetes-preserve-unknown-fields makes the undeclared keys (or a node
 *   without a type) untyped; x-kubernetes-embedded-resource adds apiVersion,
 *   kind and metadata (ObjectMeta) as for the root;
 * - x-kubernetes-int-or-string and every other type are scalars.
 *
 * Custom resources are stored unstructured, so no node lists `implicit`
 * fields (Go's always-encoded zero values do not exist for them).
 */
import { applySchemaFor } from '../api/schema/apply-schema.js';
import { scalar, untyped, type TypeNode } from '../machinery/apply/schema.js';
import type { JSONSchemaProps } from './types.js';
import { additionalPropertiesOf, isObject, itemsOf, propertiesOf } from './schema/structural.js';

let objectMetaNode: TypeNode | undefined;

/** metadata as built-in kinds have it (ObjectMeta), without the zero values a typed Go object carries. */
function objectMeta(): TypeNode {
  if (objectMetaNode !== undefined) return objectMetaNode;
  // Any built-in kind's metadata is ObjectMeta; a ConfigMap's is always described.
  const meta = applySchemaFor('', 'v1', 'ConfigMap')?.field('metadata');
  if (meta === undefined) return untyped;
  const { implicit: _implicit, ...rest } = meta;
  objectMetaNode = rest;
  return objectMetaNode;
}

/** The apply schema of one CRD version's openAPIV3Schema (the root object of its custom resources). */
export function customResourceApplySchema(schema: JSONSchemaProps): TypeNode {
  return objectNode(schema, true);
}

function isTrue(s: JSONSchemaProps, key: string): boolean {
  return s[key] === true;
}

function node(s: JSONSchemaProps): TypeNode {
  if (isTrue(s, 'x-kubernetes-int-or-string')) return scalar;
  const type = s['type'];
  if (type === 'array') return listNode(s);
  const structural = isObject(s['properties']) || additionalPropertiesOf(s) !== undefined || isTrue(s, 'x-kubernetes-embedded-resource');
  if (type === 'object' || (type === undefined && structural)) return objectNode(s, isTrue(s, 'x-kubernetes-embedded-resource'));
  if (type === undefined) return untyped; // preserve-unknown-fields without a type: anything
  return scalar;
}

function listNode(s: JSONSchemaProps): TypeNode {
  const itemSchema = itemsOf(s);
  let items: TypeNode | undefined;
  const elements = (): TypeNode => (items ??= itemSchema === undefined ? untyped : node(itemSchema));
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') return { kind: 'list', atomic: false, listType: 'set', keys: [], field: () => undefined, elements };
  if (listType === 'map') {
    const raw = s['x-kubernetes-list-map-keys'];
    const keys = Array.isArray(raw) ? raw.filter((k): k is string => typeof k === 'string') : [];
    const itemProps = itemSchema === undefined ? {} : propertiesOf(itemSchema);
    return {
      kind: 'list',
      atomic: false,
      listType: 'map',
      keys,
      field: () => undefined,
      elements,
      keyDefault: (name) => itemProps[name]?.['default'],
    };
  }
  return { kind: 'list', atomic: true, listType: 'atomic', field: () => undefined, elements };
}

function objectNode(s: JSONSchemaProps, resource: boolean): TypeNode {
  const props = propertiesOf(s);
  const fieldNodes = new Map<string, TypeNode>();
  const additional = additionalPropertiesOf(s);
  const preserve = isTrue(s, 'x-kubernetes-preserve-unknown-fields');
  let values: TypeNode | undefined;
  return {
    kind: 'map',
    atomic: s['x-kubernetes-map-type'] === 'atomic',
    closed: additional === undefined && !preserve,
    field(name) {
      let n = fieldNodes.get(name);
      if (n !== undefined) return n;
      if (resource && (name === 'apiVersion' || name === 'kind')) n = scalar;
      else if (resource && name === 'metadata') n = objectMeta();
      else if (Object.hasOwn(props, name)) n = node(props[name]!);
      else return undefined;
      fieldNodes.set(name, n);
      return n;
    },
    elements: () => (values ??= isObject(additional) ? node(additional) : untyped),
  };
}
