// The query options of a resource request, parsed and validated as
// kube-apiserver 1.32's parameter codec and option validation do: list and
// watch options (ListOptions), and the write options of create, update and
// patch (dryRun, fieldManager, fieldValidation, force), every error reported
// in one 422 of kind CreateOptions/UpdateOptions/PatchOptions. The handlers
// (handlers.ts) call these before touching the store.

import { badRequest, invalid } from '../machinery/errors.js';
import { type FieldError, fieldErrors } from '../machinery/field-errors.js';
import { goStringSlice } from '../machinery/go-syntax.js';
import type { ListOptions, WatchOptions, WriteOptions } from '../registry/rest.js';
import { APPLY_PATCH_TYPE } from './negotiation.js';
import { parseBool } from './request-info.js';

function clampSafe(n: number | undefined): number | undefined {
  return n === undefined ? undefined : Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, n));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A query integer as upstream's parameter codec reads it (strconv.ParseInt, 64 bits): malformed or out of range → 400. */
export function parseInteger(query: URLSearchParams, key: string): number | undefined {
  const raw = query.get(key);
  if (raw === null || raw === '') return undefined;
  if (!/^[-+]?\d+$/.test(raw)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
  if (raw.length > 18) {
    const value = BigInt(raw);
    if (value < INT64_MIN || value > INT64_MAX) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: value out of range`);
  }
  return Number(raw);
}

export function setIfPresent<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined | null): void {
  if (value !== undefined && value !== null && value !== '') target[key] = value;
}

export function listOptionsFrom(query: URLSearchParams): ListOptions {
  const options: ListOptions = {};
  setIfPresent(options, 'labelSelector', query.get('labelSelector'));
  setIfPresent(options, 'fieldSelector', query.get('fieldSelector'));
  setIfPresent(options, 'resourceVersion', query.get('resourceVersion'));
  setIfPresent(options, 'resourceVersionMatch', query.get('resourceVersionMatch'));
  // Past 2^53 every limit means "all": kept exact for the backends' integer parameters.
  setIfPresent(options, 'limit', clampSafe(parseInteger(query, 'limit')));
  setIfPresent(options, 'continue', query.get('continue'));
  // A list reads timeoutSeconds too (upstream bounds the request by it): a malformed one is refused alike.
  parseInteger(query, 'timeoutSeconds');
  return options;
}

export function watchOptionsFrom(query: URLSearchParams, name: string): WatchOptions {
  const options: WatchOptions = listOptionsFrom(query);
  setIfPresent(options, 'timeoutSeconds', parseInteger(query, 'timeoutSeconds'));
  setIfPresent(options, 'allowWatchBookmarks', parseBool(query.get('allowWatchBookmarks')));
  setIfPresent(options, 'sendInitialEvents', parseBool(query.get('sendInitialEvents')));
  if (name !== '') {
    // A watch on a named path is a watch of that one object.
    const byName = `metadata.name=${name}`;
    options.fieldSelector = options.fieldSelector ? `${options.fieldSelector},${byName}` : byName;
  }
  return options;
}

const FIELD_VALIDATION_VALUES = ['Ignore', 'Strict', 'Warn'];
/** What upstream's message lists: its allowed set, sorted, "" (unset) included. */
const FIELD_VALIDATION_SUPPORTED = ['', 'Ignore', 'Strict', 'Warn'];

/** ValidateDryRun: one error for the whole list when any value is not "All". */
export function dryRunErrors(dryRun: string[]): FieldError[] {
  return dryRun.every((v) => v === 'All') ? [] : [fieldErrors.notSupported('dryRun', goStringSlice(dryRun), ['All'])];
}

/**
 * The manager of a write: ?fieldManager=, else the User-Agent up to its first
 * "/", printable characters only, at most 128 bytes (upstream's
 * managerOrUserAgent).
 */
export function managerOrUserAgent(manager: string | undefined, userAgent: string | undefined): string {
  if (manager !== undefined && manager !== '') return manager;
  const prefix = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

const FIELD_MANAGER_MAX_LENGTH = 128;

/** dryRun, fieldManager and fieldValidation (and force, for patches), validated as upstream's Create/Update/PatchOptions are (every error reported). */
export function writeOptionsFrom(query: URLSearchParams, optionsKind: string, patchType?: string): WriteOptions & { force?: boolean } {
  const options: WriteOptions & { force?: boolean } = {};
  const patchErrors: FieldError[] = [];
  if (patchType !== undefined) {
    const force = query.get('force');
    if (patchType !== APPLY_PATCH_TYPE) {
      if (force !== null) patchErrors.push(fieldErrors.forbidden('force', 'may not be specified for non-apply patch'));
    } else {
      if ((query.get('fieldManager') ?? '') === '') patchErrors.push(fieldErrors.required('fieldManager', 'is required for apply patch'));
      if (force !== null) options.force = parseBool(force) === true;
    }
  }
  const manager = query.get('fieldManager') ?? '';
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) patchErrors.push(fieldErrors.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  const dryRun = query.getAll('dryRun');
  const errors = [...patchErrors, ...dryRunErrors(dryRun)];
  if (dryRun.length > 0) options.dryRun = true;
  setIfPresent(options, 'fieldManager', query.get('fieldManager'));
  const validation = query.get('fieldValidation');
  if (validation !== null && validation !== '') {
    if (FIELD_VALIDATION_VALUES.includes(validation)) options.fieldValidation = validation as WriteOptions['fieldValidation'];
    else errors.push(fieldErrors.notSupported('fieldValidation', validation, FIELD_VALIDATION_SUPPORTED));
  }
  if (errors.length > 0) throw invalid('meta.k8s.io', optionsKind, '', errors);
  return options;
}
