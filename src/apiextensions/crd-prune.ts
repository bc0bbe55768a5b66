// Unknown fields of a CustomResourceDefinition body (upstream's strict JSON
// decoding of apiextensions/v1): the fields each v1 struct has, walked through
// the object, JSONSchemaProps included (recursively through properties,
// items, additionalProperties, allOf/oneOf/anyOf/not, …). The apiextensions
// types are not in the generated schema registry (src/api/schema), whose
// generator would need their custom JSON forms (JSONSchemaPropsOrArray, …);
// until it has them, these field lists stand in, checked against upstream's
// messages in test/apiextensions. Free-form values (default, example, enum)
// are kept whole. Paths as upstream writes them: "spec.versions[0].x",
// "…openAPIV3Schema.properties.spec.bar".

/** A struct's fields; `{ $list: item }` is a list of items; the strings name free-form values and schema forms. */
type Field = Shape | List | 'any' | 'schema' | 'schemas' | 'schemaMap' | 'schemaOrBool' | 'schemaOrArray';
interface Shape {
  [field: string]: Field;
}
interface List {
  $list: Shape;
}

const RULE: Shape = { rule: 'any', message: 'any', messageExpression: 'any', reason: 'any', fieldPath: 'any', optionalOldSelf: 'any' };

const SCHEMA_FIELDS: Shape = {
  id: 'any', $schema: 'any', $ref: 'any', description: 'any', type: 'any', format: 'any', title: 'any', default: 'any',
  maximum: 'any', exclusiveMaximum: 'any', minimum: 'any', exclusiveMinimum: 'any', maxLength: 'any', minLength: 'any',
  pattern: 'any', maxItems: 'any', minItems: 'any', uniqueItems: 'any', multipleOf: 'any', enum: 'any', maxProperties: 'any',
  minProperties: 'any', required: 'any', items: 'schemaOrArray', allOf: 'schemas', oneOf: 'schemas', anyOf: 'schemas', not: 'schema',
  properties: 'schemaMap', additionalProperties: 'schemaOrBool', patternProperties: 'schemaMap', dependencies: 'any',
  additionalItems: 'schemaOrBool', definitions: 'schemaMap', externalDocs: { description: 'any', url: 'any' }, example: 'any',
  nullable: 'any', 'x-kubernetes-preserve-unknown-fields': 'any', 'x-kubernetes-embedded-resource': 'any',
  'x-kubernetes-int-or-string': 'any', 'x-kubernetes-list-map-keys': 'any', 'x-kubernetes-list-type': 'any',
  'x-kubernetes-map-type': 'any', 'x-kubernetes-validations': { $list: RULE },
};

const NAMES: Shape = { plural: 'any', singular: 'any', shortNames: 'any', kind: 'any', listKind: 'any', categories: 'any' };

const CRD: Shape = {
  apiVersion: 'any',
  kind: 'any',
  metadata: 'any',
  spec: {
    group: 'any',
    names: NAMES,
    scope: 'any',
    versions: {
      $list: {
        name: 'any', served: 'any', storage: 'any', deprecated: 'any', deprecationWarning: 'any',
        schema: { openAPIV3Schema: 'schema' },
        subresources: { status: {}, scale: { specReplicasPath: 'any', statusReplicasPath: 'any', labelSelectorPath: 'any' } },
        additionalPrinterColumns: { $list: { name: 'any', type: 'any', format: 'any', description: 'any', priority: 'any', jsonPath: 'any' } },
        selectableFields: { $list: { jsonPath: 'any' } },
      },
    },
    conversion: {
      strategy: 'any',
      webhook: {
        clientConfig: { url: 'any', service: { namespace: 'any', name: 'any', path: 'any', port: 'any' }, caBundle: 'any' },
        conversionReviewVersions: 'any',
      },
    },
    preserveUnknownFields: 'any',
  },
  status: {
    conditions: { $list: { type: 'any', status: 'any', lastTransitionTime: 'any', reason: 'any', message: 'any' } },
    acceptedNames: NAMES,
    storedVersions: 'any',
  },
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isList(f: Field): f is List {
  return typeof f === 'object' && '$list' in f;
}

function walk(shape: Field, value: unknown, path: string, dropped: string[]): void {
  if (shape === 'any' || value === null || value === undefined) return;
  if (shape === 'schema') return walk(SCHEMA_FIELDS, value, path, dropped);
  if (shape === 'schemas') {
    if (Array.isArray(value)) value.forEach((v, i) => walk(SCHEMA_FIELDS, v, `${path}[${i}]`, dropped));
    return;
  }
  if (shape === 'schemaMap') {
    if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(SCHEMA_FIELDS, v, `${path}.${k}`, dropped);
    return;
  }
  if (shape === 'schemaOrBool') {
    if (isObject(value)) walk(SCHEMA_FIELDS, value, path, dropped);
    return;
  }
  if (shape === 'schemaOrArray') {
    if (Array.isArray(value)) value.forEach((v, i) => walk(SCHEMA_FIELDS, v, `${path}[${i}]`, dropped));
    else walk(SCHEMA_FIELDS, value, path, dropped);
    return;
  }
  if (isList(shape)) {
    if (Array.isArray(value)) value.forEach((v, i) => walk(shape.$list, v, `${path}[${i}]`, dropped));
    return;
  }
  if (!isObject(value)) return;
  const fields = shape;
  for (const key of Object.keys(value)) {
    const sub = fields[key];
    const p = path === '' ? key : `${path}.${key}`;
    if (sub === undefined) {
      delete value[key];
      dropped.push(p);
    } else walk(sub, value[key], p, dropped);
  }
}

/** Drops the fields a v1 CustomResourceDefinition does not have, in place; returns their paths in document order. */
export function pruneCustomResourceDefinition(obj: Record<string, unknown>): string[] {
  const dropped: string[] = [];
  walk(CRD, obj, '', dropped);
  return dropped;
}
