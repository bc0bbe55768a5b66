// CustomResourceDefinition validation (upstream's
// pkg/apis/apiextensions/validation/validation.go), on the v1 object as JSON.
// Upstream validates the internal version: a v1 CRD whose versions all carry
// the same schema (or subresources, or printer columns) has them lifted to
// spec.validation (spec.subresources, spec.additionalPrinterColumns) first, so
// error paths name those; `pathsFor` reproduces that.

import { type FieldError, fieldErrors } from '../machinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../machinery/validation.js';
import { validateReviewVersions, validateWebhookService, validateWebhookURL } from '../api/admissionregistration/v1/validation.js';
import type { WebhookClientConfig } from '../api/admissionregistration/v1/types.js';
import { ACCEPTED_CONVERSION_REVIEW_VERSIONS } from './conversion/webhook.js';
import type { CustomResourceColumnDefinition, CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceSubresources, JSONSchemaProps } from './types.js';
import { isConditionTrue } from './types.js';
import { isObject, schemaHas, validateSchema } from './schema/structural.js';
import { deepEqual } from './schema/values.js';
import { celCompiler, type ValidationRuleCompiler } from './cel.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

function identical<T>(values: (T | undefined)[], nonEmpty: (v: T | undefined) => boolean): boolean {
  if (values.length === 0) return false;
  return values.every((v) => nonEmpty(v) && deepEqual(v, values[0]));
}

/** Where upstream reports a version's schema, subresources and columns (see the module comment). */
function pathsFor(crd: CustomResourceDefinition): { schema(i: number): string; subresources(i: number): string; columns(i: number): string } {
  const versions = crd.spec.versions ?? [];
  const schemaLifted = identical(versions.map((v) => v.schema), (s) => s !== undefined);
  const subLifted = identical(versions.map((v) => v.subresources), (s) => s !== undefined);
  const colsLifted = identical(versions.map((v) => v.additionalPrinterColumns), (c) => c !== undefined && c.length > 0);
  return {
    schema: (i) => (schemaLifted ? 'spec.validation' : `spec.versions[${i}].schema`),
    subresources: (i) => (subLifted ? 'spec.subresources' : `spec.versions[${i}].subresources`),
    columns: (i) => (colsLifted ? 'spec.additionalPrinterColumns' : `spec.versions[${i}].additionalPrinterColumns`),
  };
}

export interface CrdValidationOptions {
  /** The previous object on update. */
  old?: CustomResourceDefinition;
  /** Compiles x-kubernetes-validations (default: machinery/cel). */
  compiler?: ValidationRuleCompiler | undefined;
}

export function validateCustomResourceDefinition(crd: CustomResourceDefinition, options: CrdValidationOptions = {}): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const name = crd.metadata.name ?? '';
  if (name !== '' && name !== `${names.plural ?? ''}.${spec.group ?? ''}`) {
    errors.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  errors.push(...validateSpec(crd, options));
  errors.push(...validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames'));
  errors.push(...validateStoredVersions(crd));
  const old = options.old;
  if (old !== undefined) {
    if (isConditionTrue(old, 'Established')) {
      if (spec.scope !== old.spec.scope) errors.push(fieldErrors.invalid('spec.scope', spec.scope ?? '', 'field is immutable'));
      if (names.kind !== old.spec.names?.kind) errors.push(fieldErrors.invalid('spec.names.kind', names.kind ?? '', 'field is immutable'));
    }
    if (spec.group !== old.spec.group) errors.push(fieldErrors.invalid('spec.group', spec.group ?? '', 'field is immutable'));
    if (names.plural !== old.spec.names?.plural) errors.push(fieldErrors.invalid('spec.names.plural', names.plural ?? '', 'field is immutable'));
  }
  return errors;
}

function validateSpec(crd: CustomResourceDefinition, options: CrdValidationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec ?? {};
  const group = spec.group ?? '';
  if (group === '') errors.push(fieldErrors.required('spec.group'));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length > 0) errors.push(fieldErrors.invalid('spec.group', group, errs.join(',')));
    else if (group.split('.').length < 2) errors.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = spec.scope ?? '';
  if (scope === '') errors.push(fieldErrors.required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errors.push(fieldErrors.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const versions = spec.versions ?? [];
  const paths = pathsFor(crd);
  versions.forEach((v, i) => {
    if (v.schema?.openAPIV3Schema === undefined) {
      errors.push(fieldErrors.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    }
  });
  const preserveUnknownFields = spec.preserveUnknownFields === true;
  if (preserveUnknownFields) {
    errors.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  const lifted = new Set<string>();
  versions.forEach((v, i) => {
    if (v.storage === true) storage++;
    const vName = v.name ?? '';
    if (seen.has(vName)) unique = false;
    seen.add(vName);
    const errs = isDNS1035Label(vName);
    if (errs.length > 0) errors.push(fieldErrors.invalid(`spec.versions[${i}].name`, vName, errs.join(',')));
    for (const msg of deprecationWarningErrors(v.deprecated === true, v.deprecationWarning)) {
      errors.push(fieldErrors.invalid(`spec.versions[${i}].deprecationWarning`, v.deprecationWarning ?? '', msg));
    }
    // A lifted (shared) schema, subresource set or column list is validated once, at its top-level path.
    const schemaPath = paths.schema(i);
    const statusEnabled = v.subresources?.status !== undefined;
    const schema = v.schema?.openAPIV3Schema;
    if (schema !== undefined && !lifted.has(schemaPath)) {
      if (schemaPath === 'spec.validation') lifted.add(schemaPath);
      if (!isObject(schema)) errors.push(fieldErrors.invalid(`${schemaPath}.openAPIV3Schema`, '', 'must be an object'));
      else errors.push(...validateVersionSchema(schema, `${schemaPath}.openAPIV3Schema`, statusEnabled, options));
    }
    const subPath = paths.subresources(i);
    if (v.subresources !== undefined && !lifted.has(subPath)) {
      if (subPath === 'spec.subresources') lifted.add(subPath);
      errors.push(...validateSubresources(v.subresources, subPath));
    }
    const colPath = paths.columns(i);
    if (!lifted.has(colPath)) {
      if (colPath === 'spec.additionalPrinterColumns') lifted.add(colPath);
      (v.additionalPrinterColumns ?? []).forEach((c, j) => errors.push(...validateColumn(c, `${colPath}[${j}]`)));
    }
  });
  if (!unique) errors.push(fieldErrors.invalid('spec.versions', versions, 'must contain unique version names'));
  if (storage !== 1) errors.push(fieldErrors.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  if (versions.length === 0) errors.push(fieldErrors.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));

  const names = spec.names ?? {};
  if (!names.plural) errors.push(fieldErrors.required('spec.names.plural'));
  if (!names.singular) errors.push(fieldErrors.required('spec.names.singular'));
  if (!names.kind) errors.push(fieldErrors.required('spec.names.kind'));
  if (!names.listKind) errors.push(fieldErrors.required('spec.names.listKind'));
  errors.push(...validateNames(names, 'spec.names'));

  errors.push(...validateConversion(spec.conversion, options.old));
  if (spec.conversion !== undefined && spec.conversion.strategy !== undefined && spec.conversion.strategy !== 'None' && preserveUnknownFields) {
    errors.push(fieldErrors.invalid('spec.conversion.strategy', spec.conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  return errors;
}

/**
 * spec.conversion (upstream's validateCustomResourceConversion). Errors name the internal
 * type's fields, as upstream's do: v1's webhook.clientConfig is webhookClientConfig and
 * webhook.conversionReviewVersions is conversionReviewVersions.
 */
function validateConversion(conversion: CustomResourceConversion | undefined, old: CustomResourceDefinition | undefined): FieldError[] {
  if (conversion === undefined || conversion === null) return [];
  const errors: FieldError[] = [];
  const path = 'spec.conversion';
  const strategy = conversion.strategy ?? '';
  if (strategy === '') errors.push(fieldErrors.required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errors.push(fieldErrors.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = (conversion.webhook ?? undefined) as { clientConfig?: WebhookClientConfig | null; conversionReviewVersions?: string[] | null } | undefined;
  const clientConfig = webhook?.clientConfig ?? undefined;
  const reviewVersions = webhook?.conversionReviewVersions ?? [];
  if (strategy === 'Webhook') {
    if (clientConfig === undefined) {
      errors.push(fieldErrors.required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    } else {
      const hasUrl = clientConfig.url !== undefined && clientConfig.url !== null;
      const hasService = clientConfig.service !== undefined && clientConfig.service !== null;
      if (hasUrl === hasService) errors.push(fieldErrors.required(`${path}.webhookClientConfig`, 'exactly one of url or service is required'));
      else if (hasUrl) errors.push(...validateWebhookURL(`${path}.webhookClientConfig.url`, clientConfig.url!));
      else errors.push(...validateWebhookService(`${path}.webhookClientConfig.service`, clientConfig.service!));
    }
    // An update may keep a list without a version this server speaks if the old object had one too.
    const oldVersions = (old?.spec.conversion?.webhook as { conversionReviewVersions?: string[] } | undefined)?.conversionReviewVersions ?? [];
    const requireRecognized = old === undefined || oldVersions.length === 0 || oldVersions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v));
    errors.push(...validateReviewVersions(reviewVersions, requireRecognized, `${path}.conversionReviewVersions`, ACCEPTED_CONVERSION_REVIEW_VERSIONS, ''));
  } else {
    if (clientConfig !== undefined) errors.push(fieldErrors.forbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) errors.push(fieldErrors.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errors;
}

function validateVersionSchema(schema: JSONSchemaProps, path: string, statusEnabled: boolean, options: CrdValidationOptions): FieldError[] {
  const errors = validateSchema(schema, path, statusEnabled);
  if (errors.length > 0) return errors;
  const hasRules = schemaHas(schema, (n) => Array.isArray(n['x-kubernetes-validations']) && (n['x-kubernetes-validations'] as unknown[]).length > 0);
  if (!hasRules) return errors;
  errors.push(...(options.compiler ?? celCompiler)(schema, path).errors);
  return errors;
}

function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const out: string[] = [];
  if ([...warning].length > 256) out.push('must be <= 256 characters long');
  if (warning.length === 0) out.push('must not be an empty string');
  let index = 0;
  for (const ch of warning) {
    // Go's unicode.IsPrint/IsControl over runes; index is the byte offset.
    if (/[\p{Cc}]/u.test(ch)) {
      out.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch);
  }
  return out;
}

export function validateNames(names: CustomResourceDefinitionNames, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const label = (value: string | undefined, p: string, mixed = false): void => {
    if (value === undefined || value === '') return;
    const errs = isDNS1035Label(mixed ? value.toLowerCase() : value);
    if (errs.length > 0) errors.push(fieldErrors.invalid(p, value, (mixed ? 'may have mixed case, but should otherwise match: ' : '') + errs.join(',')));
  };
  label(names.plural, `${path}.plural`);
  label(names.singular, `${path}.singular`);
  label(names.kind, `${path}.kind`, true);
  label(names.listKind, `${path}.listKind`, true);
  (names.shortNames ?? []).forEach((s, i) => {
    const errs = isDNS1035Label(s);
    if (errs.length > 0) errors.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, errs.join(',')));
  });
  if (names.kind !== undefined && names.kind !== '' && names.kind === names.listKind) {
    errors.push(fieldErrors.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  }
  (names.categories ?? []).forEach((c, i) => {
    const errs = isDNS1035Label(c);
    if (errs.length > 0) errors.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, errs.join(',')));
  });
  return errors;
}

function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const path = 'status.storedVersions';
  if (stored.length === 0) return [fieldErrors.invalid(path, stored, 'must have at least one stored version')];
  const errors: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of crd.spec.versions ?? []) {
    const has = remaining.has(v.name ?? '');
    if (v.storage === true && !has) errors.push(fieldErrors.invalid(path, stored, `must have the storage version ${v.name ?? ''}`));
    if (has) remaining.delete(v.name ?? '');
  }
  for (const [v, i] of remaining) errors.push(fieldErrors.invalid(`${path}[${i}]`, v, 'must appear in spec.versions'));
  return errors;
}

function validateSubresources(sub: CustomResourceSubresources, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const scale = sub.scale;
  if (scale === undefined) return errors;
  const p = `${path}.scale`;
  const spec = scale.specReplicasPath ?? '';
  if (spec === '') errors.push(fieldErrors.required(`${p}.specReplicasPath`));
  else {
    const pathErrors = simpleJsonPathErrors(spec, `${p}.specReplicasPath`);
    errors.push(...pathErrors);
    if (pathErrors.length === 0 && !spec.startsWith('.spec.')) errors.push(fieldErrors.invalid(`${p}.specReplicasPath`, spec, 'should be a json path under .spec'));
  }
  const status = scale.statusReplicasPath ?? '';
  if (status === '') errors.push(fieldErrors.required(`${p}.statusReplicasPath`));
  else {
    const pathErrors = simpleJsonPathErrors(status, `${p}.statusReplicasPath`);
    errors.push(...pathErrors);
    if (pathErrors.length === 0 && !status.startsWith('.status.')) errors.push(fieldErrors.invalid(`${p}.statusReplicasPath`, status, 'should be a json path under .status'));
  }
  const selector = scale.labelSelectorPath;
  if (selector !== undefined && selector !== '') {
    const pathErrors = simpleJsonPathErrors(selector, `${p}.labelSelectorPath`);
    errors.push(...pathErrors);
    if (pathErrors.length === 0 && !selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errors.push(fieldErrors.invalid(`${p}.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errors;
}

/** A simple JSON path: dot-separated field names, no brackets or wildcards. */
function simpleJsonPathErrors(path: string, field: string): FieldError[] {
  if (!path.startsWith('.')) return [fieldErrors.invalid(field, path, 'must be a simple json path starting with .')];
  if (!/^(\.[A-Za-z0-9_-]+)+$/.test(path)) return [fieldErrors.invalid(field, path, 'must be a simple json path')];
  return [];
}

function validateColumn(c: CustomResourceColumnDefinition, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!c.name) errors.push(fieldErrors.required(`${path}.name`));
  if (!c.type) errors.push(fieldErrors.required(`${path}.type`, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  else if (!PRINTER_COLUMN_TYPES.includes(c.type)) errors.push(fieldErrors.invalid(`${path}.type`, c.type, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  if (c.format && !PRINTER_COLUMN_FORMATS.includes(c.format)) {
    errors.push(fieldErrors.invalid(`${path}.format`, c.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  if (!c.jsonPath) errors.push(fieldErrors.required(`${path}.JSONPath`));
  else if (!c.jsonPath.startsWith('.')) errors.push(fieldErrors.invalid(`${path}.JSONPath`, c.jsonPath, 'must be a simple json path starting with .'));
  return errors;
}
