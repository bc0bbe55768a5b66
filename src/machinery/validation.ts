// Name and ObjectMeta validation with upstream's wording
// (k8s.io/apimachinery pkg/util/validation, pkg/api/validation/{objectmeta,generic}.go,
// pkg/api/validation/path, pkg/apis/meta/v1/validation).
//
// Contract:
// - The is*() helpers return upstream's error strings (empty array = valid).
//   These strings are wire facts: clients print them after "Invalid value".
// - Lengths are counted in UTF-8 bytes, as Go's len() does.
// - validateObjectMeta / validateObjectMetaUpdate return FieldErrors; the caller
//   turns a non-empty list into a 422 with errors.ts invalid().

import type { ObjectMeta, OwnerReference, ManagedFieldsEntry } from './meta.js';
import { parseApiVersion } from './meta.js';
import { type FieldError, fieldErrors } from './field-errors.js';

/** Go's len(): the byte length of the UTF-8 encoding. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/** Upstream's RegexError: the message, optional examples and the regex text. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += ' or ';
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
export const DNS1123_LABEL_MAX_LENGTH = 63;

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const QUALIFIED_NAME_MAX_LENGTH = 63;

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
export const LABEL_VALUE_MAX_LENGTH = 63;

/** A DNS label (RFC 1123): namespaces, most names that end up in DNS. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** A DNS subdomain (RFC 1123): the default rule for object names. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** A DNS-1035 label (must start with a letter): service names. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** A "qualified name": [DNS-subdomain prefix "/"] name — label keys, annotation keys, finalizers. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** A label value: empty, or up to 63 characters of [-A-Za-z0-9_.] starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * Validates a name for a resource type. `prefix` is true when the value is a
 * generateName that will get a random suffix (so a trailing '-' is fine).
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

// Upstream replaces a trailing dash before validating a prefix, and in doing
// so drops the character before it too (name[:len-2] + "a"); we keep that.
function maskTrailingDash(name: string): string {
  if (name.endsWith('-')) return name.length >= 2 ? `${name.slice(0, -2)}a` : 'a';
  return name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Upstream's ValidatePathSegmentName: any name that is safe as one URL path segment. */
export const pathSegmentName: NameValidator = (name, prefix) => {
  if (!prefix) {
    for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  }
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
};

/** Namespaces are DNS labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** Labels: keys are qualified names, values label values; errors point at the whole map, as upstream's do. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(path, v, msg));
  }
  return errs;
}

/** Annotations: keys are qualified names ignoring case; keys plus values at most 256 KiB in total. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
    total += byteLength(k) + byteLength(String(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/** Owner references: apiVersion with a version, kind, name and uid present; Events may not own; one controller. */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!refs) return errs;
  let firstController = '';
  for (const ref of refs) {
    const gv = parseApiVersion(ref.apiVersion ?? '');
    if (gv.version === '') errs.push(fieldErrors.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(fieldErrors.invalid(`${path}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(fieldErrors.invalid(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(fieldErrors.invalid(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && ref.kind === 'Event') {
      errs.push(fieldErrors.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController !== '') {
        errs.push(
          fieldErrors.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/**
 * Finalizers: each a qualified name; "orphan" and "foregroundDeletion" not both.
 * Upstream does not reject duplicate finalizers, so neither do we.
 */
export function validateFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!finalizers) return errs;
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS) && finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      fieldErrors.invalid(
        path,
        finalizers,
        `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`,
      ),
    );
  }
  return errs;
}

/**
 * The finalizer names built-in kinds accept beyond qualified names (upstream
 * pkg/apis/core/validation's validateKubeFinalizerName): a name without a "/"
 * must be a standard one ("kubernetes", "orphan", "foregroundDeletion").
 * Custom resources are not held to it. One error per finalizer, at its index.
 */
export function validateKubeFinalizerNames(finalizers: string[] | undefined, path: string): FieldError[] {
  const standard = new Set(['kubernetes', FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS]);
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    if (!f.includes('/') && !standard.has(f)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** Finalizers may not be added to an object that is being deleted. */
export function validateNoNewFinalizers(newF: string[] | undefined, oldF: string[] | undefined, path: string): FieldError[] {
  const old = new Set(oldF ?? []);
  const extra = [...new Set((newF ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  return [
    fieldErrors.forbidden(
      path,
      `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
    ),
  ];
}

function validateManagedFields(entries: ManagedFieldsEntry[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = `${path}[${i}]`;
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(fieldErrors.invalid(`${p}.operation`, e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(fieldErrors.invalid(`${p}.fieldsType`, e.fieldsType, 'must be `FieldsV1`'));
    }
    if (e.manager && byteLength(e.manager) > 128) errs.push(fieldErrors.tooLong(`${p}.manager`, 128));
    if (e.subresource && byteLength(e.subresource) > 256) errs.push(fieldErrors.tooLong(`${p}.subresource`, 256));
  });
  return errs;
}

function validateMetaCommon(meta: ObjectMeta, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generation !== undefined && meta.generation < 0) {
    errs.push(fieldErrors.invalid(`${path}.generation`, meta.generation, IS_NEGATIVE_ERROR_MSG));
  }
  append(errs, validateLabels(meta.labels, `${path}.labels`));
  append(errs, validateAnnotations(meta.annotations, `${path}.annotations`));
  append(errs, validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  append(errs, validateFinalizers(meta.finalizers, `${path}.finalizers`));
  append(errs, validateManagedFields(meta.managedFields, `${path}.managedFields`));
  return errs;
}

/**
 * ObjectMeta on create (upstream ValidateObjectMeta). Expects name generation
 * to have happened already: a generateName without a name is still reported
 * as "name or generateName is required", as upstream does.
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  namespaced: boolean,
  nameFn: NameValidator,
  path = 'metadata',
): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const msg of nameFn(meta.generateName, true)) {
      errs.push(fieldErrors.invalid(`${path}.generateName`, meta.generateName, msg));
    }
  }
  if (!meta.name) {
    errs.push(fieldErrors.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of nameFn(meta.name, false)) errs.push(fieldErrors.invalid(`${path}.name`, meta.name, msg));
  }
  if (namespaced) {
    if (!meta.namespace) errs.push(fieldErrors.required(`${path}.namespace`));
    else {
      for (const msg of validateNamespaceName(meta.namespace, false)) {
        errs.push(fieldErrors.invalid(`${path}.namespace`, meta.namespace, msg));
      }
    }
  } else if (meta.namespace) {
    errs.push(fieldErrors.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  append(errs, validateMetaCommon(meta, path));
  return errs;
}

// `unset` is how the missing value prints: "" for Go strings, null for Go pointers.
function immutable(newVal: string | undefined, oldVal: string | undefined, field: string, unset: '' | null = ''): FieldError[] {
  if ((newVal ?? '') === (oldVal ?? '')) return [];
  return [fieldErrors.invalid(field, newVal ?? unset, FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * ObjectMeta on update (upstream ValidateObjectMetaUpdate): resourceVersion
 * required, generation not decremented, identity and deletion fields
 * immutable, no new finalizers while deleting; labels, annotations, owner
 * references and finalizers validated as on create.
 *
 * The registry copies fields that clients may not set (uid, creationTimestamp,
 * deletionTimestamp, …) from the old object before calling this, as upstream's
 * rest.BeforeUpdate does; what is left differing is a client's attempt to change them.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    append(errs, validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, `${path}.finalizers`));
  }
  if (!newMeta.resourceVersion) {
    errs.push(fieldErrors.invalid(`${path}.resourceVersion`, newMeta.resourceVersion ?? '', 'must be specified for an update'));
  }
  if ((newMeta.generation ?? 0) < (oldMeta.generation ?? 0)) {
    errs.push(fieldErrors.invalid(`${path}.generation`, newMeta.generation ?? 0, 'must not be decremented'));
  }
  append(errs, immutable(newMeta.name, oldMeta.name, `${path}.name`));
  append(errs, immutable(newMeta.namespace, oldMeta.namespace, `${path}.namespace`));
  append(errs, immutable(newMeta.uid, oldMeta.uid, `${path}.uid`));
  append(errs, immutable(newMeta.creationTimestamp, oldMeta.creationTimestamp, `${path}.creationTimestamp`));
  append(errs, immutable(newMeta.deletionTimestamp, oldMeta.deletionTimestamp, `${path}.deletionTimestamp`, null));
  if (newMeta.deletionGracePeriodSeconds !== oldMeta.deletionGracePeriodSeconds) {
    errs.push(
      fieldErrors.invalid(
        `${path}.deletionGracePeriodSeconds`,
        newMeta.deletionGracePeriodSeconds ?? null,
        FIELD_IMMUTABLE_ERROR_MSG,
      ),
    );
  }
  append(errs, validateLabels(newMeta.labels, `${path}.labels`));
  append(errs, validateAnnotations(newMeta.annotations, `${path}.annotations`));
  append(errs, validateOwnerReferences(newMeta.ownerReferences, `${path}.ownerReferences`));
  append(errs, validateFinalizers(newMeta.finalizers, `${path}.finalizers`));
  append(errs, validateManagedFields(newMeta.managedFields, `${path}.managedFields`));
  return errs;
}

/**
 * Appends `more` to `errs`. Not `errs.push(...more)`: a spread passes every
 * element as an argument on the stack, and a list of a hundred thousand
 * invalid items (ownerReferences, finalizers) overflows it.
 */
function append(errs: FieldError[], more: readonly FieldError[]): void {
  for (const e of more) errs.push(e);
}
