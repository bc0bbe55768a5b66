// Bodies read as Go's decoder and upstream's handlers leave them before the
// store sees them: a JSON object's repeated keys merged as Go decodes them into
// the kind's struct, and owner references equal in every field kept once with
// upstream's warning. Both linear in the body's size.

import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../machinery/meta.js';
import { replaceLoneSurrogates } from '../machinery/json-surrogates.js';
import { parseMergingDuplicates } from '../machinery/json-merge-duplicates.js';
import { findDuplicateFields } from '../api/schema/prune.js';
import { setWarningHeaders } from './field-validation.js';

/**
 * A JSON request body's text, and the object keys it repeats: read and looked
 * for once, though both the merge below and the field checks want them.
 */
export interface JsonBody {
  text: string;
  /** findDuplicateFields of the text, computed on first use. */
  duplicates(): readonly string[];
}

/** The body as JsonBody when it is JSON, else undefined. */
export function jsonBodyOf(body: Buffer, mediaType: string): JsonBody | undefined {
  if (mediaType !== 'application/json') return undefined;
  const text = body.toString('utf8');
  let duplicates: string[] | undefined;
  return { text, duplicates: () => (duplicates ??= findDuplicateFields(text)) };
}

/**
 * A JSON body that repeats an object's key, read as Go decodes it into the
 * kind's struct: objects under the repeated key merged (parseMergingDuplicates).
 * Custom resources decode into maps, where Go keeps the later value as
 * JSON.parse does.
 */
export function mergeDuplicateKeys(unstructured: boolean, object: KubeObject, json: JsonBody | undefined): void {
  if (json === undefined || unstructured) return;
  if (json.duplicates().length === 0) return;
  const merged = replaceLoneSurrogates(parseMergingDuplicates(json.text), json.text) as Record<string, unknown>;
  for (const key of Object.keys(merged)) if (key !== 'apiVersion' && key !== 'kind') (object as unknown as Record<string, unknown>)[key] = merged[key];
}

/**
 * Upstream's dedupOwnerReferencesAndAddWarning: owner references equal in
 * every field are kept once, with a warning naming the duplicated UIDs (a
 * million identical references are one). Linear: references are compared
 * only with the kept ones of the same UID.
 */
export function dedupOwnerReferences(res: ServerResponse, object: KubeObject, afterMutatingAdmission: boolean): void {
  const refs = object.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return;
  const kept: typeof refs = [];
  const seen = new Map<string, Set<string>>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    const uid = String(ref?.uid ?? '');
    const identity = JSON.stringify([ref?.apiVersion, ref?.kind, ref?.name, ref?.uid, ref?.controller, ref?.blockOwnerDeletion]);
    let same = seen.get(uid);
    if (same === undefined) seen.set(uid, (same = new Set()));
    if (same.has(identity)) {
      duplicates.push(uid);
      continue;
    }
    same.add(identity);
    kept.push(ref);
  }
  if (duplicates.length === 0) return;
  object.metadata.ownerReferences = kept;
  const when = afterMutatingAdmission ? ' after mutating admission happens' : '';
  const text = `.metadata.ownerReferences contains duplicate entries${when}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates.join(', ')}`;
  setWarningHeaders(res, [boundedWarning(text)]);
}

/** Upstream's warning recorder keeps 4 KiB of warnings a request, cutting longer ones to 256 characters. */
function boundedWarning(text: string): string {
  if (text.length <= 4096) return text;
  return [...text.slice(0, 512)].slice(0, 256).join('');
}
