// The schema-driven strategy of one served version of a CRD (upstream's
// pkg/registry/customresource/strategy.go, status_strategy.go and
// tableconvertor): defaulting, validation against the structural schema then
// the CEL rules, status and generation rules that depend on the status
// subresource, and the Table printer from additionalPrinterColumns.

import type { KubeObject } from '../machinery/meta.js';
import { type FieldError, fieldErrors } from '../machinery/field-errors.js';
import { nameIsDNSSubdomain } from '../machinery/validation.js';
import type { Strategy, SubresourceStrategy } from '../registry/strategy.js';
import type { ResourceType, Verb } from '../registry/rest.js';
import { column, NAME_COLUMN, type Printer } from '../api/tables/printer.js';
import { humanDuration } from '../api/tables/duration.js';
import type { TableCell, TableColumnDefinition } from '../api/tables/types.js';
import type { CompiledValidationRules } from './cel.js';
import type { CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from './types.js';
import { storageVersionOf } from './types.js';
import { customResourceOpenApi } from './openapi.js';
import { evaluate } from './jsonpath.js';
import { applyDefaults, deepEqual, validateValue } from './schema/values.js';
import { deepCopy } from '../machinery/deep-copy.js';

/** Custom resources' verbs in the order upstream's discovery lists them (not sorted). */
const ALL_VERBS: Verb[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

export function schemaOf(version: CustomResourceDefinitionVersion): JSONSchemaProps {
  return version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

/** What discovery and routing know of one served version (names from status.acceptedNames, as upstream serves). */
export function customResourceType(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion): ResourceType {
  const names = crd.status?.acceptedNames ?? crd.spec.names ?? {};
  const subresources: string[] = [];
  if (version.subresources?.status !== undefined) subresources.push('status');
  if (version.subresources?.scale !== undefined) subresources.push('scale');
  return {
    group: crd.spec.group ?? '',
    version: version.name ?? '',
    resource: names.plural ?? '',
    kind: names.kind ?? '',
    listKind: names.listKind ?? `${names.kind ?? ''}List`,
    singularName: names.singular ?? '',
    namespaced: crd.spec.scope === 'Namespaced',
    verbs: ALL_VERBS,
    keepVerbOrder: true,
    // Every served version's objects are stored in the storage version (conversion None): discovery's hash follows it.
    storageVersion: { group: crd.spec.group ?? '', version: storageVersionOf(crd) ?? version.name ?? '', kind: names.kind ?? '' },
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    subresources,
    openapi: customResourceOpenApi(crd.spec.group ?? '', version.name ?? '', names.kind ?? '', names.listKind ?? `${names.kind ?? ''}List`, schemaOf(version)),
  };
}

/** Everything but metadata (and status, when it is a subresource): what a generation counts. */
function content(obj: KubeObject, withoutStatus: boolean): Record<string, unknown> {
  const { metadata: _m, ...rest } = obj;
  if (withoutStatus) delete rest['status'];
  return rest;
}

/**
 * The CEL rules run unless schema validation found an error that means the object lacks the
 * shape the rules were written for (a wrong type, a missing required field, a value outside its
 * enum, too long, too many items); then one error says they did not run (upstream's
 * hasBlockingErr). A failed pattern, minimum or format does not stop them.
 */
function rulesUnlessBlocked(schemaErrors: FieldError[], run: () => FieldError[]): FieldError[] {
  if (schemaErrors.some((e) => BLOCKING.has(e.type))) {
    return [fieldErrors.invalid('<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')];
  }
  return run();
}
const BLOCKING = new Set(['NotSupported', 'Required', 'TooLong', 'TooMany', 'TypeInvalid']);

export function customResourceStrategy(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion, rules?: CompiledValidationRules): Strategy {
  const schema = schemaOf(version);
  const statusEnabled = version.subresources?.status !== undefined;
  const scale = version.subresources?.scale;
  // Ratcheted rule failures (an unchanged value that fails a rule) come back as
  // warnings, sent as Warning headers with the error's text, as upstream 1.32.
  const runRules = (obj: KubeObject, old: KubeObject | undefined, warnings: string[] | undefined): FieldError[] => {
    if (rules === undefined) return [];
    const ratcheted: FieldError[] = [];
    const errors = rules.validate(obj, old, ratcheted);
    warnings?.push(...ratcheted.map((e) => e.toString()));
    return errors;
  };
  const validateAll = (obj: KubeObject, old: KubeObject | undefined, warnings?: string[]): FieldError[] => {
    const errors = validateValue(schema, obj);
    if (scale !== undefined) {
      errors.push(...replicasErrors(obj, scale.specReplicasPath ?? ''));
      errors.push(...replicasErrors(obj, scale.statusReplicasPath ?? ''));
      errors.push(...selectorErrors(obj, scale.labelSelectorPath));
    }
    // the rules last, as upstream (after the scale paths' checks)
    if (rules !== undefined) errors.push(...rulesUnlessBlocked(errors, () => runRules(obj, old, warnings)));
    return errors;
  };
  // A /status write validates status alone (upstream's statusSchemaValidator).
  const statusSchema = (schema['properties'] as Record<string, JSONSchemaProps> | undefined)?.['status'];
  const validateStatus = (obj: KubeObject, old: KubeObject, warnings?: string[]): FieldError[] => {
    const errors = statusSchema !== undefined && obj['status'] !== undefined ? validateValue(statusSchema, obj['status'], 'status') : [];
    if (scale !== undefined) {
      errors.push(...replicasErrors(obj, scale.statusReplicasPath ?? ''));
      errors.push(...selectorErrors(obj, scale.labelSelectorPath));
    }
    if (rules !== undefined) errors.push(...rulesUnlessBlocked(errors, () => runRules(obj, old, warnings)));
    return errors;
  };
  const subresources: Record<string, SubresourceStrategy> = {};
  if (statusEnabled) {
    subresources['status'] = {
      // Only status changes: the rest (metadata included) comes from the stored object.
      prepareForUpdate(obj, old) {
        const status = obj['status'];
        const rv = obj.metadata.resourceVersion;
        const managedFields = obj.metadata.managedFields;
        for (const k of Object.keys(obj)) delete obj[k];
        Object.assign(obj, deepCopy(old));
        obj.metadata.resourceVersion = rv;
        if (managedFields !== undefined) obj.metadata.managedFields = managedFields;
        if (status === undefined) delete obj['status'];
        else obj['status'] = status;
      },
      validateUpdate: validateStatus,
    };
  }
  return {
    namespaced: crd.spec.scope === 'Namespaced',
    nameValidator: nameIsDNSSubdomain,
    defaults: (obj, how) => {
      applyDefaults(schema, obj, { keepNulls: how?.applied === true });
      dropNullMetadata(obj);
    },
    prepareForCreate(obj) {
      if (statusEnabled) delete obj['status'];
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (statusEnabled) {
        if (old['status'] === undefined) delete obj['status'];
        else obj['status'] = deepCopy(old['status']);
      }
      if (!deepEqual(content(obj, statusEnabled), content(old, statusEnabled))) {
        obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
    },
    validate: (obj) => validateAll(obj, undefined),
    validateUpdate: (obj, old, warnings) => validateAll(obj, old, warnings),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    // A DELETE that removes the object answers with a Success Status, as upstream's generic store.
    returnDeletedObject: false,
    subresources,
    fields: selectableFields(version),
    // Selectable fields add field labels to the default two.
    ...((version.selectableFields ?? []).length > 0
      ? { fieldLabels: ['metadata.name', 'metadata.namespace', ...Object.keys(selectableFields(version))] }
      : {}),
  };
}

/**
 * Upstream decodes a custom resource's metadata into its typed ObjectMeta and
 * back: a null field there (`labels: null`) is its zero value, left out.
 */
function dropNullMetadata(obj: KubeObject): void {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta === undefined || meta === null || typeof meta !== 'object') return;
  for (const k of Object.keys(meta)) if (meta[k] === null) delete meta[k];
}

/** spec.versions[].selectableFields as field-selector getters ("spec.color"), values rendered as selectors compare them. */
function selectableFields(version: CustomResourceDefinitionVersion): Record<string, (obj: KubeObject) => string> {
  const out: Record<string, (obj: KubeObject) => string> = {};
  for (const f of version.selectableFields ?? []) {
    const path = f.jsonPath ?? '';
    if (path === '') continue;
    out[path.replace(/^\./, '')] = (obj) => {
      const v = evaluate(obj, path)[0];
      return v === undefined || v === null ? '' : typeof v === 'string' ? v : String(v);
    };
  }
  return out;
}

/** Go's %T of a JSON value as unstructured holds it. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's %v of a JSON value, for accessor errors. */
function goValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** The scale paths must hold a non-negative int32 (upstream's ValidateScaleSpec/Status). */
function replicasErrors(obj: KubeObject, path: string): FieldError[] {
  if (path === '') return [];
  const v = readJsonPath(obj, path);
  if (v === undefined || v === null) return [];
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return [fieldErrors.invalid(path, 0, `${path} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected int64`)];
  }
  if (v < 0) return [fieldErrors.invalid(path, v, 'should be a non-negative integer')];
  if (v > 2147483647) return [fieldErrors.invalid(path, v, 'should be less than or equal to 2147483647')];
  return [];
}

function selectorErrors(obj: KubeObject, path: string | undefined): FieldError[] {
  if (path === undefined || path === '') return [];
  const v = readJsonPath(obj, path);
  if (v === undefined || v === null || typeof v === 'string') return [];
  return [fieldErrors.invalid(path, '', `${path} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected string`)];
}

// ---- Table -----------------------------------------------------------------

/** Printer columns of a version: Age alone when none are declared, as upstream. */
function columnsOf(version: CustomResourceDefinitionVersion): CustomResourceColumnDefinition[] {
  const declared = version.additionalPrinterColumns ?? [];
  if (declared.length > 0) return declared;
  return [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
}

/** Reads a simple JSON path (".spec.replicas", ".status.conditions[0].type") from an object. */
export function readJsonPath(obj: unknown, path: string): unknown {
  const parts = path.replace(/^\./, '').match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let v: unknown = obj;
  for (const p of parts) {
    if (v === null || v === undefined) return undefined;
    if (p.startsWith('[')) {
      if (!Array.isArray(v)) return undefined;
      v = v[Number(p.slice(1, -1))];
    } else {
      if (typeof v !== 'object' || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[p];
    }
  }
  return v;
}

function cellFor(type: string, value: unknown, now: Date): TableCell {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const ms = Date.parse(value);
      return Number.isNaN(ms) ? '<invalid>' : humanDuration(now.getTime() - ms);
    }
    default:
      // jsonpath's printing: strings as they are, other values as JSON.
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

export function customResourcePrinter(version: CustomResourceDefinitionVersion): Printer {
  const cols = columnsOf(version);
  const columns: TableColumnDefinition[] = [
    NAME_COLUMN,
    ...cols.map((c) => ({
      ...column(c.name ?? '', c.type ?? 'string', c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath ?? ''}`, {
        format: c.format ?? '',
        priority: c.priority ?? 0,
      }),
    })),
  ];
  return {
    columns,
    print: (object, now) => {
      const meta = (object['metadata'] ?? {}) as Record<string, unknown>;
      const cells: TableCell[] = [typeof meta['name'] === 'string' ? meta['name'] : ''];
      // The first match, as upstream's convertor takes it (filters such as [?(@.type == "Ready")] included).
      for (const c of cols) cells.push(cellFor(c.type ?? 'string', evaluate(object, c.jsonPath ?? '')[0], now));
      return { cells };
    },
  };
}
