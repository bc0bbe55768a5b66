// The decode of a create or update body into the object the store gets, as
// upstream's handlers leave it: parsed, repeated keys merged as Go decodes
// them, typed decode ([]byte fields, JSON types), unknown and duplicate fields
// checked per fieldValidation, owner references deduplicated. Every step here
// is a pure function of the body and the kind, which is what lets a large JSON
// body be decoded on a worker thread (body-worker.ts) with the same result.

import type { ServerResponse } from 'node:http';
import { TypedDecodeError, decodeTyped } from '../api/schema/typed-decode.js';
import { badRequest } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import { decodeObject } from './codecs.js';
import { dedupOwnerReferences, jsonBodyOf, mergeDuplicateKeys } from './body-normalization.js';
import { checkFields, setWarningHeaders } from './field-validation.js';

export type ExpectedKind = { group: string; version: string; kind: string };
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/**
 * The typed decode of a create/update body (typed-decode.ts: JSON types,
 * `[]byte` fields as base64, stored canonical). Upstream's decoder fails
 * before its strict checks, with the codec's wording.
 */
export function decodeTypedBody(expected: ExpectedKind, object: KubeObject): void {
  try {
    decodeTyped(expected.group, expected.version, expected.kind, object as unknown as Record<string, unknown>);
  } catch (err) {
    if (!(err instanceof TypedDecodeError)) throw err;
    const { kind, version } = expected;
    throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err.message}`);
  }
}

/**
 * A JSON body of a built-in kind, decoded in one go (the worker thread's
 * path; the handler runs the same steps with pauses between them). Warnings
 * go to `res` as Warning headers.
 */
export function decodeJsonWriteBody(
  body: Buffer,
  expected: ExpectedKind,
  fieldValidation: FieldValidation | undefined,
  isKnownKind: (apiVersion: string, kind: string) => boolean,
  res: ServerResponse,
): KubeObject {
  const object = decodeObject(body, 'application/json', expected, isKnownKind, false);
  const json = jsonBodyOf(body, 'application/json');
  mergeDuplicateKeys(false, object, json);
  decodeTypedBody(expected, object);
  const warnings = checkFields(object, {
    ...expected,
    directive: fieldValidation,
    mode: 'decode',
    ...(json === undefined ? {} : { rawJson: json.text, duplicates: json.duplicates }),
  });
  setWarningHeaders(res, warnings);
  dedupOwnerReferences(res, object, false);
  return object;
}
