// What a structural schema does to a custom resource (upstream's
// pkg/apiserver/schema/{pruning,defaulting} and pkg/apiserver/validation):
//
// - pruneValue(schema, obj): drops, in place, fields the schema does not
//   specify (apiVersion, kind and metadata at the root and in embedded
//   resources stay; x-kubernetes-preserve-unknown-fields keeps everything at
//   its level); returns the dropped paths as fieldValidation reports them
//   ("spec.foo", "spec.items[0].bar").
// - applyDefaults(schema, obj): fills `default`s of missing fields, in place,
//   top-down, and replaces null with the default where the field is not nullable
//   (drops it where nothing defaults it, unless told to keep nulls: apply).
// - validateValue(schema, obj): FieldErrors with the paths and messages of
//   kube-openapi's validator as the apiextensions-apiserver converts them
//   (`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`).

import { type FieldError, fieldErrors } from '../../machinery/field-errors.js';
import { compileGoRegexp, type GoRegexp } from '../../machinery/re2.js';
import { isDNS1035Label } from '../../machinery/validation.js';
import type { JSONSchemaProps } from '../types.js';
import { additionalPropertiesOf, isObject, itemsOf, propertiesOf } from './structural.js';
import { deepCopy } from '../../machinery/deep-copy.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function join(parent: string, k: string): string {
  return parent === '' ? k : `${parent}.${k}`;
}

// ---- pruning ---------------------------------------------------------------

export function pruneValue(schema: JSONSchemaProps, obj: Record<string, unknown>): string[] {
  const dropped: string[] = [];
  pruneObjectNode(schema, obj, '', true, dropped);
  return dropped;
}

function pruneObjectNode(s: JSONSchemaProps, obj: Record<string, unknown>, path: string, isResource: boolean, dropped: string[]): void {
  const props = propertiesOf(s);
  const additional = additionalPropertiesOf(s);
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  for (const k of Object.keys(obj)) {
    const sub = props[k];
    if (isResource && META_FIELDS.has(k)) {
      // metadata is ObjectMeta's business; only a schema for name/generateName applies and never prunes.
      if (k !== 'metadata' && sub !== undefined) pruneNode(sub, obj[k], join(path, k), dropped);
      continue;
    }
    if (sub !== undefined) pruneNode(sub, obj[k], join(path, k), dropped);
    else if (isObject(additional)) pruneNode(additional, obj[k], join(path, k), dropped);
    else if (additional === true || preserve) continue;
    else {
      delete obj[k];
      dropped.push(join(path, k));
    }
  }
}

function pruneNode(s: JSONSchemaProps, value: unknown, path: string, dropped: string[]): void {
  if (isObject(value)) {
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    if (Object.keys(propertiesOf(s)).length === 0 && additionalPropertiesOf(s) === undefined && s['x-kubernetes-preserve-unknown-fields'] === true && !embedded) return;
    pruneObjectNode(s, value, path, embedded, dropped);
  } else if (Array.isArray(value)) {
    const items = itemsOf(s);
    if (items === undefined) return;
    value.forEach((v, i) => pruneNode(items, v, `${path}[${i}]`, dropped));
  }
}

// ---- defaulting ------------------------------------------------------------

/**
 * `keepNulls`: a null nothing defaults stays (a default still replaces a
 * null). Server-side apply's merged object is defaulted upstream but not
 * decoded by its codec, which prunes such nulls: its validation sees them,
 * and a null where the schema allows none is a 422.
 */
export function applyDefaults(schema: JSONSchemaProps, obj: unknown, options: { keepNulls?: boolean } = {}): void {
  defaultNode(schema, obj, options.keepNulls === true);
}

function defaultNode(s: JSONSchemaProps, value: unknown, keepNulls: boolean): void {
  if (isObject(value)) {
    const props = propertiesOf(s);
    for (const [k, sub] of Object.entries(props)) {
      const d = sub['default'];
      const nonNullableNull = k in value && value[k] === null && sub['nullable'] !== true;
      if (d !== undefined && (!(k in value) || nonNullableNull)) value[k] = deepCopy(d);
      // A null where null is not allowed and nothing defaults it is dropped (upstream's
      // PruneNonNullableNullsWithoutDefaults, which runs when its codec decodes a body: not on apply).
      else if (d === undefined && nonNullableNull && !keepNulls) delete value[k];
    }
    for (const [k, v] of Object.entries(value)) {
      const sub = props[k] ?? (isObject(additionalPropertiesOf(s)) ? (additionalPropertiesOf(s) as JSONSchemaProps) : undefined);
      if (sub !== undefined) defaultNode(sub, v, keepNulls);
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(s);
    if (items === undefined) return;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null && items['default'] !== undefined && items['nullable'] !== true) value[i] = deepCopy(items['default']);
      defaultNode(items, value[i], keepNulls);
    }
  }
}

// ---- validation ------------------------------------------------------------

/** Validates `obj` (the whole object, or the value at `path` with `path`'s schema). */
export function validateValue(schema: JSONSchemaProps, obj: unknown, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  validateNode(schema, obj, path, errors, path === '');
  return errors;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The name kube-openapi prints for the value at `path` ("spec.replicas"; the root is "body"). */
function nameOf(path: string): string {
  return path === '' ? 'body' : path;
}

/** The FieldError path: the root object itself is reported at "<root>"; upstream's field path is empty there. */
function errPath(path: string): string {
  return path === '' ? '<nil>' : path;
}

function typeMatches(type: string, v: unknown, s: JSONSchemaProps): boolean {
  const actual = jsonType(v);
  if (s['x-kubernetes-int-or-string'] === true) return actual === 'integer' || actual === 'string';
  switch (type) {
    case '':
      return true;
    case 'number':
      return actual === 'number' || actual === 'integer';
    case 'integer':
      return actual === 'integer';
    default:
      return actual === type;
  }
}

function validateNode(s: JSONSchemaProps, v: unknown, path: string, errors: FieldError[], isRoot = false): void {
  const type = typeof s['type'] === 'string' ? (s['type'] as string) : '';
  const name = nameOf(path);
  if (v === null) {
    if (s['nullable'] === true) return;
    if (type !== '' || s['x-kubernetes-int-or-string'] === true) {
      errors.push(fieldErrors.typeInvalid(errPath(path), 'null', `${name} in body must be of type ${type === '' ? 'integer,string' : type}: "null"`));
    }
    return;
  }
  if (!typeMatches(type, v, s)) {
    const shown = jsonType(v);
    const expected = s['x-kubernetes-int-or-string'] === true ? 'integer,string' : type;
    errors.push(fieldErrors.typeInvalid(errPath(path), shown, `${name} in body must be of type ${expected}: ${JSON.stringify(shown)}`));
    return;
  }
  const enumValues = s['enum'];
  if (Array.isArray(enumValues) && !enumValues.some((e) => deepEqual(e, v))) {
    errors.push(fieldErrors.notSupported(errPath(path), v, enumValues.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof v === 'number') numberChecks(s, v, path, errors);
  if (typeof v === 'string') stringChecks(s, v, path, errors);
  if (Array.isArray(v)) arrayChecks(s, v, path, errors);
  if (isObject(v)) objectChecks(s, v, path, errors, isRoot);
  combinators(s, v, path, errors);
}

function numberChecks(s: JSONSchemaProps, v: number, path: string, errors: FieldError[]): void {
  const name = nameOf(path);
  const max = s['maximum'];
  if (typeof max === 'number') {
    if (s['exclusiveMaximum'] === true ? v >= max : v > max) {
      errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body should be less than ${s['exclusiveMaximum'] === true ? '' : 'or equal to '}${max}`));
    }
  }
  const min = s['minimum'];
  if (typeof min === 'number') {
    if (s['exclusiveMinimum'] === true ? v <= min : v < min) {
      errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body should be greater than ${s['exclusiveMinimum'] === true ? '' : 'or equal to '}${min}`));
    }
  }
  const multipleOf = s['multipleOf'];
  if (typeof multipleOf === 'number' && multipleOf > 0 && !Number.isInteger(v / multipleOf)) {
    errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body should be a multiple of ${multipleOf}`));
  }
}

function stringChecks(s: JSONSchemaProps, v: string, path: string, errors: FieldError[]): void {
  const name = nameOf(path);
  const length = [...v].length;
  const maxLength = s['maxLength'];
  if (typeof maxLength === 'number' && length > maxLength) errors.push(fieldErrors.tooLong(errPath(path), maxLength));
  const minLength = s['minLength'];
  if (typeof minLength === 'number' && length < minLength) {
    errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body should be at least ${minLength} chars long`));
  }
  const pattern = s['pattern'];
  if (typeof pattern === 'string') {
    let re: GoRegexp | undefined;
    try {
      re = compileGoRegexp(pattern);
    } catch {
      re = undefined; // refused when the CRD was created
    }
    if (re !== undefined && !re.test(v)) errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body should match '${pattern}'`));
  }
  const format = s['format'];
  if (typeof format === 'string' && !formatMatches(format, v)) {
    errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body must be of type ${format}: ${JSON.stringify(v)}`));
  }
}

/** The formats kube-openapi checks that operators use most; others are accepted as written. */
function formatMatches(format: string, v: string): boolean {
  switch (format) {
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v);
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(v);
    case 'uuid':
      return /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(v);
    case 'ipv4':
      return /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(v) && v.split('.').every((p) => Number(p) <= 255);
    default:
      return true;
  }
}

function arrayChecks(s: JSONSchemaProps, v: unknown[], path: string, errors: FieldError[]): void {
  const name = nameOf(path);
  const maxItems = s['maxItems'];
  if (typeof maxItems === 'number' && v.length > maxItems) errors.push(fieldErrors.tooMany(errPath(path), v.length, maxItems));
  const minItems = s['minItems'];
  if (typeof minItems === 'number' && v.length < minItems) {
    errors.push(fieldErrors.invalid(errPath(path), v.length, `${name} in body should have at least ${minItems} items`));
  }
  const items = itemsOf(s);
  if (items !== undefined) v.forEach((item, i) => validateNode(items, item, `${path}[${i}]`, errors));
  // x-kubernetes-list-type: set and map forbid duplicates (upstream's listtype validation).
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    for (let i = 0; i < v.length; i++) {
      if (v.slice(0, i).some((prev) => deepEqual(prev, v[i]))) errors.push(fieldErrors.duplicate(`${path}[${i}]`, v[i]));
    }
  } else if (listType === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) {
    const keys = (s['x-kubernetes-list-map-keys'] as unknown[]).map(String);
    const seen: unknown[][] = [];
    v.forEach((item, i) => {
      if (!isObject(item)) return;
      const k = keys.map((key) => item[key]);
      if (seen.some((prev) => deepEqual(prev, k))) {
        const shown = keys.length === 1 ? { [keys[0]!]: item[keys[0]!] } : Object.fromEntries(keys.map((key) => [key, item[key]]));
        errors.push(fieldErrors.duplicate(`${path}[${i}]`, shown));
      }
      seen.push(k);
    });
  }
}

function objectChecks(s: JSONSchemaProps, v: Record<string, unknown>, path: string, errors: FieldError[], isRoot: boolean): void {
  const count = Object.keys(v).length;
  const maxProps = s['maxProperties'];
  if (typeof maxProps === 'number' && count > maxProps) errors.push(fieldErrors.tooMany(errPath(path), count, maxProps));
  const minProps = s['minProperties'];
  if (typeof minProps === 'number' && count < minProps) {
    errors.push(fieldErrors.invalid(errPath(path), count, `${nameOf(path)} in body should have at least ${minProps} properties`));
  }
  const props = propertiesOf(s);
  const additional = additionalPropertiesOf(s);
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded && !isRoot) errors.push(...embeddedTypeMetaErrors(v, path));
  for (const [k, value] of Object.entries(v)) {
    // ObjectMeta is validated as ObjectMeta; the schema may restrict only name and generateName.
    if ((isRoot || embedded) && k === 'metadata') {
      const metaProps = propertiesOf(props['metadata'] ?? {});
      if (isObject(value)) {
        for (const field of ['name', 'generateName']) {
          const sub = metaProps[field];
          if (sub !== undefined && typeof value[field] === 'string') validateNode(sub, value[field], join(join(path, 'metadata'), field), errors);
        }
      }
      continue;
    }
    const sub = props[k] ?? (isObject(additional) ? additional : undefined);
    if (sub !== undefined) validateNode(sub, value, join(path, k), errors);
  }
  const required = s['required'];
  if (Array.isArray(required)) {
    for (const r of required) {
      const k = String(r);
      if (!(k in v)) errors.push(fieldErrors.required(join(path, k)));
    }
  }
}

/** An embedded resource needs apiVersion and kind (upstream's objectmeta.Validate). */
function embeddedTypeMetaErrors(v: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!('apiVersion' in v)) errors.push(fieldErrors.required(join(path, 'apiVersion'), 'must not be empty'));
  if (!('kind' in v)) errors.push(fieldErrors.required(join(path, 'kind'), 'must not be empty'));
  const apiVersion = v['apiVersion'];
  if ('apiVersion' in v) {
    if (typeof apiVersion !== 'string') errors.push(fieldErrors.invalid(join(path, 'apiVersion'), apiVersion, 'must be a string'));
    else if (apiVersion === '') errors.push(fieldErrors.invalid(join(path, 'apiVersion'), apiVersion, 'must not be empty'));
    else if (apiVersion.split('/').length > 2) errors.push(fieldErrors.invalid(join(path, 'apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  const kind = v['kind'];
  if ('kind' in v) {
    if (typeof kind !== 'string') errors.push(fieldErrors.invalid(join(path, 'kind'), kind, 'must be a string'));
    else if (kind === '') errors.push(fieldErrors.invalid(join(path, 'kind'), kind, 'must not be empty'));
    else {
      const errs = isDNS1035Label(kind.toLowerCase());
      if (errs.length > 0) errors.push(fieldErrors.invalid(join(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
    }
  }
  return errors;
}

function combinators(s: JSONSchemaProps, v: unknown, path: string, errors: FieldError[]): void {
  const name = nameOf(path);
  const passes = (sub: unknown): boolean => {
    if (!isObject(sub)) return true;
    const e: FieldError[] = [];
    validateNode(sub, v, path, e);
    return e.length === 0;
  };
  const allOf = s['allOf'];
  if (Array.isArray(allOf)) {
    for (const sub of allOf) if (isObject(sub)) validateNode(sub, v, path, errors);
  }
  const anyOf = s['anyOf'];
  if (Array.isArray(anyOf) && anyOf.length > 0 && !anyOf.some(passes)) {
    errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body must validate at least one schema (anyOf)`));
  }
  const oneOf = s['oneOf'];
  if (Array.isArray(oneOf) && oneOf.length > 0 && oneOf.filter(passes).length !== 1) {
    errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body must validate one and only one schema (oneOf)`));
  }
  const not = s['not'];
  if (isObject(not) && passes(not)) errors.push(fieldErrors.invalid(errPath(path), v, `${name} in body must not validate the schema (not)`));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => k in bo && deepEqual(ao[k], bo[k]));
}
