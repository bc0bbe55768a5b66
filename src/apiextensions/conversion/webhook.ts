// Webhook conversion (upstream's conversion/webhook_converter.go): an object
// not at the desired version is sent, alone, in an apiextensions.k8s.io
// ConversionReview (v1, or v1beta1: the first of the CRD's
// conversionReviewVersions this server speaks); the answer must carry the
// request's uid (v1), result.status Success, and one converted object of the
// desired apiVersion and the same kind. The webhook may change labels and
// annotations only: name, namespace and uid must be unchanged (an error
// otherwise), the rest of metadata is put back from the original.
//
// Errors are upstream's texts, "conversion webhook for <group>/<version>,
// Kind=<Kind> failed: …" (the GVK is the input object's), thrown as the
// plain 500 (no reason) that kube-apiserver makes of them.
//
// One object per review, as kube-apiserver sends them (it converts each
// object as it decodes it from storage); calls run concurrently, each
// webhook's connections capped by the admission webhook client's agents.
//
// The HTTPS call itself is injected (ConversionWebhookCaller): the server
// wires the admission webhook client (caBundle, service resolution,
// timeouts) so this layer does not import admission/.

import type { KubeObject } from '../../machinery/meta.js';
import { unknownError } from '../../machinery/errors.js';
import { aggregateFieldErrors } from '../../machinery/field-errors.js';
import { newUid } from '../../machinery/names.js';
import { validateAnnotations, validateLabels } from '../../machinery/validation.js';
import type { WebhookClientConfig } from '../../api/admissionregistration/v1/types.js';
import type { CustomResourceDefinition } from '../types.js';
import type { CustomResourceConverter } from './converter.js';
import { deepCopy } from '../../machinery/deep-copy.js';

/** Sends `review` to the webhook, resolves with its decoded JSON answer, or throws an Error in client-go's words. */
export type ConversionWebhookCaller = (clientConfig: WebhookClientConfig, review: unknown, timeoutSeconds: number) => Promise<unknown>;

/** The review versions this server speaks, as upstream 1.32. */
export const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** Upstream's conversion client has no per-CRD timeout; its requests carry ?timeout=30s. */
const TIMEOUT_SECONDS = 30;
const REVIEW_GROUP = 'apiextensions.k8s.io';

type Json = Record<string, unknown>;

/** A plain error whose text kube-apiserver shows as it is. */
class ConversionError extends Error {}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's %T of a JSON value as unstructured decoding holds it. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** schema.GroupVersion's String(): "group/version", or the version alone for the core group. */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function gvString(apiVersion: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return group === '' ? version : `${group}/${version}`;
}

/** schema.GroupVersionKind's String(): "group/version, Kind=Kind". */
function gvkString(apiVersion: string, kind: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return `${group}/${version}, Kind=${kind}`;
}

export function webhookConverter(crd: CustomResourceDefinition, options: { callWebhook?: ConversionWebhookCaller | undefined; uid?: () => string }): CustomResourceConverter {
  const webhook = (crd.spec.conversion?.webhook ?? {}) as { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
  const clientConfig = webhook.clientConfig ?? {};
  const reviewVersion = (webhook.conversionReviewVersions ?? []).find((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v));
  const uid = options.uid ?? newUid;
  const call = options.callWebhook;

  async function convert(obj: KubeObject, apiVersion: string): Promise<KubeObject> {
    if (obj.apiVersion === apiVersion) return obj;
    const inGvk = gvkString(obj.apiVersion ?? '', obj.kind ?? '');
    if (reviewVersion === undefined) throw unknownError('no supported conversion review versions');
    const requestUid = uid();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `${REVIEW_GROUP}/${reviewVersion}`,
      request: { uid: requestUid, desiredAPIVersion: apiVersion, objects: [obj] },
      // Upstream sends the review with an empty response beside the request.
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let answer: unknown;
    try {
      if (call === undefined) throw new Error('no conversion webhook client configured');
      answer = await call(clientConfig, review, TIMEOUT_SECONDS);
    } catch (err) {
      throw unknownError(`conversion webhook for ${inGvk} failed: ${(err as Error).message}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(answer, reviewVersion, requestUid);
    } catch (err) {
      throw unknownError(`conversion webhook for ${inGvk} failed: ${(err as Error).message}`);
    }
    if (converted.length !== 1) throw unknownError(`conversion webhook for ${inGvk} returned ${converted.length} objects, expected 1`);
    const out = converted[0];
    if (!isObject(out) || typeof out['kind'] !== 'string' || out['kind'] === '') {
      // Decoding the raw object fails before any check (upstream returns that error unwrapped).
      throw unknownError(`Object 'Kind' is missing in '${JSON.stringify(out)}'`);
    }
    const outApiVersion = typeof out['apiVersion'] === 'string' ? out['apiVersion'] : '';
    if (gvString(outApiVersion) !== gvString(apiVersion)) {
      throw unknownError(`conversion webhook for ${inGvk} returned invalid object at index 0: invalid groupVersion (expected ${gvString(apiVersion)}, received ${gvString(outApiVersion)})`);
    }
    if (out['kind'] !== obj.kind) {
      throw unknownError(`conversion webhook for ${inGvk} returned invalid object at index 0: invalid kind (expected ${obj.kind ?? ''}, received ${out['kind']})`);
    }
    const result = deepCopy(out) as Json;
    try {
      checkConvertedObject(obj, result);
    } catch (err) {
      throw unknownError(`conversion webhook for ${inGvk} returned invalid object: ${(err as Error).message}`);
    }
    try {
      restoreObjectMeta(obj, result);
    } catch (err) {
      throw unknownError(`conversion webhook for ${inGvk} returned invalid metadata: ${(err as Error).message}`);
    }
    return result as unknown as KubeObject;
  }

  return { strategy: 'Webhook', convert };
}

/** Validates the ConversionReview answer and returns its convertedObjects (upstream's getConvertedObjectsFromResponse). */
function convertedObjectsOf(answer: unknown, reviewVersion: string, requestUid: string): unknown[] {
  const review = isObject(answer) ? answer : {};
  if (reviewVersion === 'v1') {
    // v1 answers must say what they are and echo the uid; v1beta1 was never checked (upstream keeps it so).
    const expected = `${REVIEW_GROUP}/v1, Kind=ConversionReview`;
    const got = gvkString(typeof review['apiVersion'] === 'string' ? review['apiVersion'] : '', typeof review['kind'] === 'string' ? review['kind'] : '');
    if (got !== expected) throw new ConversionError(`expected webhook response of ${expected}, got ${got}`);
  }
  const response = review['response'];
  if (!isObject(response)) throw new ConversionError('no response provided');
  if (reviewVersion === 'v1') {
    const got = typeof response['uid'] === 'string' ? response['uid'] : '';
    if (got !== requestUid) throw new ConversionError(`expected response.uid=${JSON.stringify(requestUid)}, got ${JSON.stringify(got)}`);
  }
  const result = isObject(response['result']) ? response['result'] : {};
  const status = typeof result['status'] === 'string' ? result['status'] : '';
  if (status !== 'Success') {
    const message = typeof result['message'] === 'string' ? result['message'] : '';
    throw new ConversionError(message !== '' ? message : `response.result.status was '${status}', not 'Success'`);
  }
  const objects = response['convertedObjects'];
  return Array.isArray(objects) ? objects : [];
}

function metaOf(obj: Json): Json {
  return isObject(obj['metadata']) ? obj['metadata'] : {};
}

/** Only labels and annotations may change: kind, name, namespace and uid must be the original's (validateConvertedObject). */
function checkConvertedObject(original: KubeObject, converted: Json): void {
  const inMeta = metaOf(original as unknown as Json);
  const outMeta = metaOf(converted);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const same = (what: string, a: string, b: string): void => {
    if (a !== b) throw new ConversionError(`must have the same ${what}: ${a} != ${b}`);
  };
  same('kind', original.kind ?? '', str(converted['kind']));
  same('name', str(inMeta['name']), str(outMeta['name']));
  same('namespace', str(inMeta['namespace']), str(outMeta['namespace']));
  same('UID', str(inMeta['uid']), str(outMeta['uid']));
}

/** The original's metadata with the converted object's labels and annotations (validated when they changed). */
function restoreObjectMeta(original: KubeObject, converted: Json): void {
  if (!('metadata' in converted)) throw new ConversionError('missing metadata in converted object');
  const answered = converted['metadata'];
  if (!isObject(answered)) throw new ConversionError(`invalid metadata of type ${goType(answered)} in converted object`);
  const restored: Json = deepCopy((original.metadata ?? {}) as Json);
  for (const field of ['labels', 'annotations'] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    if (!isObject(value)) throw new ConversionError(`invalid metadata.${field} of type ${goType(value)} in converted object`);
    const before = isObject(restored[field]) ? (restored[field] as Json) : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new ConversionError(`metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      // upstream's path for annotations is "metadata.annotation"
      const errs = field === 'labels' ? validateLabels(strings, 'metadata.labels') : validateAnnotations(strings, 'metadata.annotation');
      if (errs.length > 0) throw new ConversionError(aggregateFieldErrors(errs));
    }
    restored[field] = value;
  }
  converted['metadata'] = restored;
}
