// The checks upstream makes of paths inside a volume or a container
// (validateLocalDescendingPath, validatePathNoBacksteps,
// ValidateLocalNonReservedPath).

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';

/** No ".." element (one error even for "../../.."). */
export function noBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [fieldErrors.invalid(path, target, "must not contain '..'")] : [];
}

/** Relative, with no ".." element. */
export function localDescendingPath(target: string, path: string): FieldError[] {
  const errs = target.startsWith('/') ? [fieldErrors.invalid(path, target, 'must be a relative path')] : [];
  return [...errs, ...noBacksteps(target, path)];
}

/** Relative, no ".." element, and not starting with "..". */
export function localNonReservedPath(target: string, path: string): FieldError[] {
  const errs = localDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(fieldErrors.invalid(path, target, "must not start with '..'"));
  return errs;
}
