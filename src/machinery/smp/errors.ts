// The failures of a strategic merge patch, with the status kube-apiserver 1.32
// answers for each: malformed directives are 400 BadRequest, lists of lists
// 422, and every other merge failure surfaces as upstream's plain error does,
// a 500 with no reason and the bare message.

import { StatusError, badRequest } from '../errors.js';
import { goString, goTypeName, goValue } from './go-format.js';

export const MSG_BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const MSG_BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const MSG_BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';
export const MSG_NO_LIST_OF_LISTS = 'lists of lists are not supported';

/** A merge failure upstream leaves untyped: the apiserver answers 500 with the error text. */
export function mergeFailure(message: string): StatusError {
  return new StatusError(500, '', message);
}

export const badPrimitiveList = (): StatusError => badRequest(MSG_BAD_PRIMITIVE_LIST);
export const badRetainKeys = (): StatusError => badRequest(MSG_BAD_RETAIN_KEYS);
export const badSetElementOrder = (): StatusError => badRequest(MSG_BAD_SET_ELEMENT_ORDER);

/**
 * 422 as upstream's NewGenericServerResponse builds it for this error (not an
 * unexpected response, so no causes): clients see only the generic message.
 * The specific text stays on the error's `cause` for logs.
 */
export function noListOfLists(): StatusError {
  const err = new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  err.cause = new Error(MSG_NO_LIST_OF_LISTS);
  return err;
}

export function noMergeKey(map: unknown, mergeKey: string): StatusError {
  return mergeFailure(`map: ${goValue(map)} does not contain declared merge key: ${mergeKey}`);
}

export function unknownPatchType(directive: unknown, map: unknown): StatusError {
  return mergeFailure(`unknown patch type: ${goString(directive)} in map: ${goValue(map)}`);
}

/** A value of the wrong JSON type where a map or list was required. */
export function badArgType(expected: 'map' | 'slice', actual: unknown): StatusError {
  const want = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return mergeFailure(`expected a ${want}, but received a ${goTypeName(actual)}`);
}

/** The body was valid JSON but not an object, as Go's decoder reports it. */
export function patchNotAnObject(patch: unknown): StatusError {
  const kind = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
  return badRequest(`json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
}
