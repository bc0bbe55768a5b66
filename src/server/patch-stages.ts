// The stages of a non-apply patch (JSON, merge, strategic merge) that turn
// the current object into the patched one: the patch applied, the typed
// decode of its result, its re-decode as a request body and the field checks.
// One implementation for the main thread (handlers.ts, paused between the
// stages of a large patch) and the worker thread (body-worker-thread.ts runs
// them in one go for a large patch of a built-in kind: each stage is a walk
// of the whole object, and together they held the loop for hundreds of
// milliseconds at 100,000 keys).

import type { ServerResponse } from 'node:http';
import { TypedDecodeError, decodeTyped } from '../api/schema/typed-decode.js';
import type { smpSchemaFor } from '../api/strategic-merge-schema.js';
import { invalid } from '../machinery/errors.js';
import { fieldErrors } from '../machinery/field-errors.js';
import type { KubeObject } from '../machinery/meta.js';
import { applyJsonPatch, applyMergePatch } from '../machinery/patch.js';
import { goValue } from '../machinery/smp/go-format.js';
import { applyStrategicMergePatch } from '../machinery/strategic-merge-patch.js';
import { dedupOwnerReferences } from './body-normalization.js';
import { decodeObject, typeMismatch } from './codecs.js';
import { checkFields } from './field-validation.js';
import type { ExpectedKind, FieldValidation } from './write-body.js';

export interface PatchStagesInput {
  patchType: string;
  /** The parsed patch (patch-bodies.ts parsePatch). */
  patch: unknown;
  /** The patch's text. */
  text: string;
  /** The kind the result must be (the endpoint's, or Scale's). */
  expected: ExpectedKind;
  smpSchema: ReturnType<typeof smpSchemaFor>;
  /** A /scale write: no typed decode of the patched document before its re-decode. */
  scale: boolean;
  /** A custom resource (decoded without a typed schema). */
  unstructured: boolean;
  isKnownKind: (apiVersion: string, kind: string) => boolean;
  fieldValidation: FieldValidation | undefined;
  /** Where the owner-reference dedup's Warning headers go. */
  res: ServerResponse;
}

/** The patched object and the warnings of its field checks; the generator yields between its stages. */
export function* patchStages(current: KubeObject, input: PatchStagesInput): Generator<undefined, { object: KubeObject; warnings: string[] }, undefined> {
  const { patchType, patch, expected } = input;
  let result: unknown;
  if (patchType === 'application/json-patch+json') result = applyJsonPatch(current, patch);
  else if (patchType === 'application/strategic-merge-patch+json') result = applyStrategicMergePatch(current, patch, input.smpSchema!);
  else result = applyMergePatch(current, patch);
  yield;
  // The patched document is decoded like a request body: it must still be this kind and name.
  // (Its name and namespace are checked by the store, after this returns.)
  // The typed decode sees the patched document first (a wrong type anywhere, metadata included, is its 422).
  const strategic = patchType === 'application/strategic-merge-patch+json';
  const patchValue = strategic ? goValue(patch) : JSON.stringify(result);
  if (!input.scale && result !== null && typeof result === 'object' && !Array.isArray(result)) {
    decodePatchedTyped(input, result as KubeObject, strategic, patchValue);
  }
  yield;
  const object = decodeObject(Buffer.from(JSON.stringify(result)), 'application/json', expected, input.isKnownKind, input.unstructured);
  yield;
  const warnings = checkFields(object, {
    ...expected,
    directive: input.fieldValidation,
    mode: 'patch',
    patchValue,
    ...(patchType === 'application/json-patch+json' ? {} : { rawJson: input.text }),
  });
  dedupOwnerReferences(input.res, object, true);
  return { object, warnings };
}

/**
 * The typed decode of a patch's result. Upstream reports its failure as a 422
 * on the field "patch" of no kind: a strategic merge patch shows the patch
 * (Go's %v of the map) and the unstructured converter's message, a JSON or
 * merge patch the patched document and encoding/json's message.
 */
function decodePatchedTyped(input: PatchStagesInput, object: KubeObject, strategic: boolean, patchValue: string): void {
  const doc = object as unknown as Record<string, unknown>;
  // A JSON or merge patch of a built-in kind that changed the type fields: the decoder reads the kind the document
  // names (its typed decode first, then the conversion to the endpoint's kind fails), and the patch handler reports it.
  const mismatch = strategic || input.unstructured ? undefined : typeMismatch(doc, input.expected, input.isKnownKind);
  const target = mismatch?.known ?? input.expected;
  try {
    decodeTyped(target.group, target.version, target.kind, doc, strategic ? 'unstructured' : 'json');
  } catch (err) {
    if (!(err instanceof TypedDecodeError)) throw err;
    throw invalid('', '', '', [fieldErrors.invalid('patch', patchValue, err.message)]);
  }
  if (mismatch !== undefined) throw invalid('', '', '', [fieldErrors.invalid('patch', patchValue, mismatch.inner)]);
}
