// Structural-schema checks of a CRD's openAPIV3Schema (upstream's
// pkg/apiserver/schema/validation.go ValidateStructural and the schema part of
// pkg/apis/apiextensions/validation): every specified field has a type, arrays
// have items, properties and additionalProperties are exclusive, the root is an
// object without additionalProperties, metadata restricts only name and
// generateName, and the x-kubernetes-* extensions are used consistently.
// The schema is the plain JSON the client sent; errors carry upstream's paths
// (`properties[spec].type`) and messages.

import { type FieldError, fieldErrors } from '../../machinery/field-errors.js';
import type { JSONSchemaProps } from '../types.js';
import { goRegexpError } from '../../machinery/re2.js';

type Level = 'root' | 'item' | 'field';

const VALID_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** Value-validation keywords that may not carry structure (upstream's "must be empty to be structural"). */
const VALUE_VALIDATION_KEYS = ['allOf', 'anyOf', 'oneOf', 'not'];

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function propertiesOf(s: JSONSchemaProps): Record<string, JSONSchemaProps> {
  const p = s['properties'];
  return isObject(p) ? (p as Record<string, JSONSchemaProps>) : {};
}

/** The schema of additionalProperties, or true (any value), or undefined (none). */
export function additionalPropertiesOf(s: JSONSchemaProps): JSONSchemaProps | true | undefined {
  const a = s['additionalProperties'];
  if (a === true) return true;
  if (isObject(a)) return a;
  return undefined;
}

export function itemsOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  const i = s['items'];
  return isObject(i) ? i : undefined;
}

function typeOf(s: JSONSchemaProps): string {
  return typeof s['type'] === 'string' ? (s['type'] as string) : '';
}

const key = (path: string, k: string): string => `${path}[${k}]`;

/**
 * The schema checks of one openAPIV3Schema rooted at `path`
 * ("spec.validation.openAPIV3Schema" or "spec.versions[0].schema.openAPIV3Schema").
 * `statusEnabled`: the status subresource restricts what the root may hold.
 */
export function validateSchema(schema: JSONSchemaProps, path: string, statusEnabled: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (statusEnabled) {
    if (schema['type'] !== undefined && schema['type'] !== 'object') {
      errors.push(fieldErrors.invalid(`${path}.type`, schema['type'], 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
    }
  }
  if (schema['nullable'] === true) errors.push(fieldErrors.forbidden(`${path}.nullable`, 'nullable cannot be true at the root'));
  openApiChecks(schema, path, true, false, errors);
  if (errors.length > 0) return errors;
  const structural: FieldError[] = [];
  invariants(schema, 'root', path, structural);
  completeness(schema, path, structural);
  structural.sort((a, b) => (a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0));
  errors.push(...structural);
  if (errors.length === 0) errors.push(...defaultsChecks(schema, path));
  return errors;
}

/** ValidateCustomResourceDefinitionOpenAPISchema: per-node checks independent of structurality. */
function openApiChecks(s: JSONSchemaProps, path: string, isRoot: boolean, insideMeta: boolean, errors: FieldError[]): void {
  const type = typeOf(s);
  if (s['type'] !== undefined && !VALID_TYPES.includes(type)) {
    errors.push(fieldErrors.notSupported(`${path}.type`, s['type'], VALID_TYPES));
  }
  if (s['$ref'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (s['uniqueItems'] === true) {
    errors.push(fieldErrors.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  if (s['additionalItems'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.additionalItems`, 'additionalItems cannot be used'));
  if (s['patternProperties'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (s['definitions'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (s['dependencies'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (s['id'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.id`, 'id is not supported'));
  const props = propertiesOf(s);
  const additional = s['additionalProperties'];
  if (additional !== undefined && additional !== false) {
    if (Object.keys(props).length > 0) {
      errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    if (isObject(additional)) openApiChecks(additional, `${path}.additionalProperties`, false, false, errors);
  }
  for (const name of Object.keys(props).sort()) {
    const meta = isRoot || s['x-kubernetes-embedded-resource'] === true ? ['metadata', 'kind', 'apiVersion'].includes(name) : false;
    openApiChecks(props[name]!, key(`${path}.properties`, name), false, meta || insideMeta, errors);
  }
  if (isObject(s['not'])) openApiChecks(s['not'] as JSONSchemaProps, `${path}.not`, false, insideMeta, errors);
  for (const k of ['allOf', 'oneOf', 'anyOf']) {
    const list = s[k];
    if (Array.isArray(list)) list.forEach((sub, i) => isObject(sub) && openApiChecks(sub, `${path}.${k}[${i}]`, false, insideMeta, errors));
  }
  const items = s['items'];
  if (Array.isArray(items)) errors.push(fieldErrors.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  else if (isObject(items)) openApiChecks(items, `${path}.items`, false, insideMeta, errors);
  else if (type === 'array') errors.push(fieldErrors.required(`${path}.items`, 'must be specified'));

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errors.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && type !== 'object') {
    if (type === '') errors.push(fieldErrors.required(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errors.push(fieldErrors.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined && type !== 'array') {
    if (type === '') errors.push(fieldErrors.required(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && isObject(items)) {
    const itemType = typeOf(items);
    if (itemType === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errors.push(fieldErrors.invalid(`${path}.items.x-kubernetes-list-type`, items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (itemType === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errors.push(fieldErrors.invalid(`${path}.items.x-kubernetes-map-type`, listType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errors.push(fieldErrors.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]).map(String) : [];
  if (mapKeys.length > 0) {
    if (listType === undefined) errors.push(fieldErrors.required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errors.push(fieldErrors.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errors.push(fieldErrors.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (items === undefined) errors.push(fieldErrors.required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    if (isObject(items) && typeOf(items) !== 'object') {
      errors.push(fieldErrors.invalid(`${path}.items.type`, typeOf(items), "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (isObject(items) && typeOf(items) === 'object') {
      const itemProps = propertiesOf(items);
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const p = itemProps[k];
        if (p !== undefined) {
          if (typeOf(p) === 'array' || typeOf(p) === 'object') {
            errors.push(fieldErrors.invalid(`${path}.items.properties[${k}].type`, typeOf(items), "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errors.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errors.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      const rule = isObject(r) ? r : {};
      const p = `${path}.x-kubernetes-validations[${i}]`;
      const text = typeof rule['rule'] === 'string' ? rule['rule'].trim() : '';
      const message = typeof rule['message'] === 'string' ? rule['message'] : '';
      if (text === '') errors.push(fieldErrors.required(`${p}.rule`, 'rule is not specified'));
      else if (message.length > 0 && message.trim() === '') errors.push(fieldErrors.invalid(`${p}.message`, message, 'message must be non-empty if specified'));
      else if (/[\r\n]/.test(message.trim())) errors.push(fieldErrors.invalid(`${p}.message`, message, 'message must not contain line breaks'));
      else if (/[\r\n]/.test(text) && message.trim() === '') errors.push(fieldErrors.required(`${p}.message`, 'message must be specified if rule contains line breaks'));
      const reason = rule['reason'];
      const reasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
      if (reason !== undefined && !reasons.includes(String(reason))) errors.push(fieldErrors.notSupported(`${p}.reason`, reason, reasons));
    });
  }
}

/** validateStructuralInvariants. */
function invariants(s: JSONSchemaProps, lvl: Level, path: string, errors: FieldError[]): void {
  const type = typeOf(s);
  const items = itemsOf(s);
  if (items !== undefined) invariants(items, 'item', `${path}.items`, errors);
  const props = propertiesOf(s);
  for (const [name, sub] of Object.entries(props)) invariants(sub, 'field', key(`${path}.properties`, name), errors);
  const additional = additionalPropertiesOf(s);
  if (s['additionalProperties'] !== undefined && s['additionalProperties'] !== false) {
    if (lvl === 'root') errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isObject(additional)) invariants(additional, 'field', `${path}.additionalProperties`, errors);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) errors.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errors.push(fieldErrors.invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  for (const k of VALUE_VALIDATION_KEYS) {
    const v = s[k];
    const list = Array.isArray(v) ? v : isObject(v) ? [v] : [];
    const skip = intOrString && k === 'anyOf' && isIntOrStringAnyOf(v);
    list.forEach((sub, i) => {
      if (!isObject(sub)) return;
      if (skip) return;
      if (intOrString && k === 'allOf' && i === 0 && isIntOrStringAnyOf(sub['anyOf'])) return;
      valueValidationStructure(sub, Array.isArray(v) ? `${path}.${k}[${i}]` : `${path}.${k}`, lvl, errors);
    });
  }
  patternCompiles(s, path, errors);
  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '') errors.push(fieldErrors.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errors.push(fieldErrors.required(`${path}.type`, detail));
  }
  if (embedded && s['additionalProperties'] !== undefined) {
    errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be object at the root'));
  if (checkMetadata && props['kind'] !== undefined && typeOf(props['kind']) !== 'string') {
    errors.push(fieldErrors.invalid(`${path}.properties[kind].type`, typeOf(props['kind']), 'must be string'));
  }
  if (checkMetadata && props['apiVersion'] !== undefined && typeOf(props['apiVersion']) !== 'string') {
    errors.push(fieldErrors.invalid(`${path}.properties[apiVersion].type`, typeOf(props['apiVersion']), 'must be string'));
  }
  const metadata = props['metadata'];
  if (metadata !== undefined) {
    const mp = `${path}.properties[metadata]`;
    if (checkMetadata && typeOf(metadata) !== 'object') errors.push(fieldErrors.invalid(`${mp}.type`, typeOf(metadata), 'must be object'));
    if (lvl === 'root') {
      const { type: _t, default: _d, properties, description: _desc, ...rest } = metadata;
      const names = isObject(properties) ? Object.keys(properties) : [];
      const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
      const structuralRest = Object.keys(rest).filter((k) => !isValueValidationKey(k));
      if (!onlyNames || structuralRest.length > 0) {
        errors.push(fieldErrors.forbidden(mp, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
      }
    }
  }
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errors.push(fieldErrors.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

function isValueValidationKey(k: string): boolean {
  return [
    'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems',
    'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required', 'allOf', 'oneOf', 'anyOf', 'not',
    'example', 'externalDocs', 'title', 'x-kubernetes-validations',
  ].includes(k);
}

function isIntOrStringAnyOf(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.length === 2 &&
    isObject(v[0]) && isObject(v[1]) &&
    Object.keys(v[0]).length === 1 && v[0]['type'] === 'integer' &&
    Object.keys(v[1]).length === 1 && v[1]['type'] === 'string'
  );
}

/** Inside allOf/anyOf/oneOf/not only value validations may appear (upstream's validateNestedValueValidation). */
function valueValidationStructure(s: JSONSchemaProps, path: string, lvl: Level, errors: FieldError[]): void {
  if (s['type'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.type`, 'must be empty to be structural'));
  if (s['additionalProperties'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  if (s['default'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.default`, 'must be undefined to be structural'));
  if (s['title'] !== undefined && s['title'] !== '') errors.push(fieldErrors.forbidden(`${path}.title`, 'must be empty to be structural'));
  if (s['description'] !== undefined && s['description'] !== '') errors.push(fieldErrors.forbidden(`${path}.description`, 'must be empty to be structural'));
  if (s['nullable'] === true) errors.push(fieldErrors.forbidden(`${path}.nullable`, 'must be false to be structural'));
  for (const [k, detail] of [
    ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
    ['x-kubernetes-embedded-resource', 'must be false to be structural'],
    ['x-kubernetes-int-or-string', 'must be false to be structural'],
    ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
    ['x-kubernetes-list-type', 'must be undefined to be structural'],
    ['x-kubernetes-map-type', 'must be undefined to be structural'],
    ['x-kubernetes-validations', 'must be empty to be structural'],
  ] as const) {
    if (s[k] !== undefined && s[k] !== false) errors.push(fieldErrors.forbidden(`${path}.${k}`, detail));
  }
  const props = propertiesOf(s);
  if (lvl !== 'root' && props['metadata'] !== undefined) errors.push(fieldErrors.forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
  for (const [name, sub] of Object.entries(props)) valueValidationStructure(sub, key(`${path}.properties`, name), 'field', errors);
  const items = itemsOf(s);
  if (items !== undefined) valueValidationStructure(items, `${path}.items`, 'item', errors);
  for (const k of VALUE_VALIDATION_KEYS) {
    const v = s[k];
    const list = Array.isArray(v) ? v : isObject(v) ? [v] : [];
    list.forEach((sub, i) => isObject(sub) && valueValidationStructure(sub, Array.isArray(v) ? `${path}.${k}[${i}]` : `${path}.${k}`, lvl, errors));
  }
  patternCompiles(s, path, errors);
}

/** A `pattern` must be a Go regexp (upstream compiles it with regexp.Compile in validateValueValidation). */
function patternCompiles(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const pattern = s['pattern'];
  if (typeof pattern !== 'string' || pattern === '') return;
  const error = goRegexpError(pattern);
  if (error !== undefined) errors.push(fieldErrors.invalid(`${path}.pattern`, pattern, `must be a valid regular expression, but isn't: ${error}`));
}

/** validateStructuralCompleteness: every field named in value validations is specified outside of them. */
function completeness(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const walk = (vv: JSONSchemaProps, vvPath: string, ctx: JSONSchemaProps | undefined): void => {
    for (const [name, sub] of Object.entries(propertiesOf(vv))) {
      const target = ctx === undefined ? undefined : propertiesOf(ctx)[name];
      if (target === undefined && !(ctx !== undefined && ctx['x-kubernetes-preserve-unknown-fields'] === true)) {
        errors.push(fieldErrors.required(key(`${vvPath}.properties`, name), 'must be specified outside of value validations'));
        // Only the first missing level is reported; deeper ones would repeat it.
        continue;
      }
      walk(sub, key(`${vvPath}.properties`, name), target);
    }
    const items = itemsOf(vv);
    if (items !== undefined) {
      const target = ctx === undefined ? undefined : itemsOf(ctx);
      if (target === undefined) errors.push(fieldErrors.required(`${vvPath}.items`, 'must be specified outside of value validations'));
      else walk(items, `${vvPath}.items`, target);
    }
    for (const k of VALUE_VALIDATION_KEYS) {
      const v = vv[k];
      const list = Array.isArray(v) ? v : isObject(v) ? [v] : [];
      list.forEach((sub, i) => isObject(sub) && walk(sub, Array.isArray(v) ? `${vvPath}.${k}[${i}]` : `${vvPath}.${k}`, ctx));
    }
  };
  const visit = (node: JSONSchemaProps, p: string): void => {
    for (const k of VALUE_VALIDATION_KEYS) {
      const v = node[k];
      const list = Array.isArray(v) ? v : isObject(v) ? [v] : [];
      list.forEach((sub, i) => isObject(sub) && walk(sub, Array.isArray(v) ? `${p}.${k}[${i}]` : `${p}.${k}`, node));
    }
    for (const [name, sub] of Object.entries(propertiesOf(node))) visit(sub, key(`${p}.properties`, name));
    const items = itemsOf(node);
    if (items !== undefined) visit(items, `${p}.items`);
    const add = additionalPropertiesOf(node);
    if (isObject(add)) visit(add, `${p}.additionalProperties`);
  };
  visit(s, path);
}

/** Defaults must validate against their schema and may not sit in metadata (a subset of structuraldefaulting.ValidateDefaults). */
function defaultsChecks(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const props = propertiesOf(schema);
  for (const name of ['metadata', 'apiVersion', 'kind']) {
    const p = props[name];
    if (p !== undefined && p['default'] !== undefined) {
      errors.push(fieldErrors.forbidden(`${path}.properties[${name}].default`, `must not be set in top-level ${name}`));
    }
  }
  return errors;
}

/** Whether any node of the schema satisfies `pred`. */
export function schemaHas(s: JSONSchemaProps, pred: (node: JSONSchemaProps) => boolean): boolean {
  if (pred(s)) return true;
  for (const sub of Object.values(propertiesOf(s))) if (schemaHas(sub, pred)) return true;
  const items = itemsOf(s);
  if (items !== undefined && schemaHas(items, pred)) return true;
  const add = additionalPropertiesOf(s);
  if (isObject(add) && schemaHas(add, pred)) return true;
  for (const k of VALUE_VALIDATION_KEYS) {
    const v = s[k];
    const list = Array.isArray(v) ? v : isObject(v) ? [v] : [];
    for (const sub of list) if (isObject(sub) && schemaHas(sub, pred)) return true;
  }
  return false;
}
