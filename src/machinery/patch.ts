// JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) with the statuses
// upstream's PATCH handler returns (apiserver pkg/endpoints/handlers/patch.go,
// which uses evanphx/json-patch).
//
// Contract — applyJsonPatch(target, patchBody):
// - patchBody is the parsed request body. null is an empty patch (Go decodes it
//   to an empty list). Anything but an array of objects → 400 BadRequest with
//   Go's decode error text.
// - More than 10000 operations → 413 RequestEntityTooLarge.
// - Any failure while applying (failed "test", missing path, bad op) → 422
//   Invalid with upstream's generic message "the server rejected our request
//   due to an error in our request" and empty details: upstream drops the
//   underlying text, so clients never see it. We keep it as the error's
//   `cause` for logs.
//
// Contract — applyMergePatch(target, patch): RFC 7386 as upstream applies it:
// null deletes a key, objects merge recursively, anything else replaces, and
// nulls inside replaced values' objects are pruned (also inside arrays, as
// evanphx does). A top-level patch that is null or a scalar → 400 "Invalid
// JSON Patch"; a top-level array replaces the document (the caller's decode
// step then rejects it as not an object).
//
// Neither function mutates its inputs; results share no structure with them.

import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { StatusError, badRequest } from './errors.js';
import { deepCopy } from './deep-copy.js';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** Go's name for a JSON value's kind in unmarshal errors. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function patchFailed(cause: unknown): StatusError {
  const err = new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  err.cause = cause;
  return err;
}

export function applyJsonPatch(target: unknown, patchBody: unknown): unknown {
  if (patchBody === null) return deepCopy(target);
  if (!Array.isArray(patchBody)) {
    throw badRequest(`json: cannot unmarshal ${goJsonKind(patchBody)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patchBody) {
    if (op !== null && !isObject(op)) {
      throw badRequest(`json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  if (patchBody.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patchBody.length}`,
    );
  }
  // A null operation has no kind: upstream fails it at apply time ("Unexpected kind").
  if (patchBody.some((op) => op === null)) throw patchFailed(new Error('Unexpected kind: unknown'));
  const ops = deepCopy(patchBody) as Operation[];
  try {
    return jsonpatch.applyPatch(deepCopy(target), ops, true, true).newDocument;
  } catch (err) {
    throw patchFailed(err);
  }
}

/** Removes null members from objects, recursing through objects and arrays; null array elements stay. */
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === null ? null : pruneNulls(x)));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
    return out;
  }
  return v;
}

function mergeObjects(doc: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  for (const [k, pv] of Object.entries(patch)) {
    if (pv === null) {
      delete out[k];
    } else if (isObject(pv) && isObject(out[k])) {
      out[k] = mergeObjects(out[k] as Record<string, unknown>, pv);
    } else {
      out[k] = pruneNulls(pv);
    }
  }
  return out;
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  // pruneNulls and mergeObjects build new containers, so nothing is shared with the inputs.
  if (Array.isArray(patch)) return pruneNulls(patch);
  if (!isObject(patch)) throw badRequest('Invalid JSON Patch');
  const doc = isObject(target) ? (deepCopy(target) as Record<string, unknown>) : {};
  return mergeObjects(doc, patch);
}
