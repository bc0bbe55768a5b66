// DeleteOptions as upstream's delete handler reads them: from a JSON or YAML
// body when there is one, else from the query; validated in
// ValidateDeleteOptions' order (every error in one 422), the deprecated
// orphanDependents turned into the policy it stands for, and the unsafe
// deletion of corrupt objects honoured only behind its feature gate.

import { invalid, unknownError } from '../machinery/errors.js';
import { parseApiVersion } from '../machinery/meta.js';
import { type FieldError, fieldErrors } from '../machinery/field-errors.js';
import type { DeleteOptions } from '../registry/rest.js';
import { decodeDocument, typeFieldsError, UnreadableBody } from './codecs.js';
import { negotiateInput } from './negotiation.js';
import { parseBool } from './request-info.js';
import { dryRunErrors, parseInteger, setIfPresent } from './request-options.js';

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/** DeleteOptions from a JSON/YAML body when there is one, else from the query (as upstream). */
export function deleteOptionsFrom(
  body: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
  unsafeDeletionGate: boolean,
  /** Whether the server serves a group version ("v1", "apps/v1"): each registers DeleteOptions in upstream's scheme. */
  servesGroupVersion: (apiVersion: string) => boolean,
): { options: DeleteOptions; orphanDependents?: boolean } {
  const options: DeleteOptions = {};
  let orphanDependents: boolean | undefined;
  let dryRun: string[] = [];
  let ignoreReadError = false;
  if (body.length > 0) {
    const mediaType = negotiateInput(contentType);
    const raw = decodeBody(body, mediaType, servesGroupVersion);
    if (typeof raw['gracePeriodSeconds'] === 'number') options.gracePeriodSeconds = raw['gracePeriodSeconds'];
    if (typeof raw['propagationPolicy'] === 'string') options.propagationPolicy = raw['propagationPolicy'] as DeleteOptions['propagationPolicy'];
    if (typeof raw['orphanDependents'] === 'boolean') orphanDependents = raw['orphanDependents'];
    if (Array.isArray(raw['dryRun'])) dryRun = raw['dryRun'].map(String);
    ignoreReadError = raw['ignoreStoreReadErrorWithClusterBreakingPotential'] === true;
    const pre = raw['preconditions'];
    if (pre !== null && typeof pre === 'object') {
      const preconditions: NonNullable<DeleteOptions['preconditions']> = {};
      const { uid, resourceVersion } = pre as Record<string, unknown>;
      if (typeof uid === 'string') preconditions.uid = uid;
      if (typeof resourceVersion === 'string') preconditions.resourceVersion = resourceVersion;
      options.preconditions = preconditions;
    }
  } else {
    setIfPresent(options, 'gracePeriodSeconds', parseInteger(query, 'gracePeriodSeconds'));
    const policy = query.get('propagationPolicy');
    if (policy !== null && policy !== '') options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
    orphanDependents = parseBool(query.get('orphanDependents'));
    dryRun = query.getAll('dryRun');
    ignoreReadError = parseBool(query.get('ignoreStoreReadErrorWithClusterBreakingPotential')) === true;
  }
  // Without the gate the option is dropped, as upstream's handler drops it.
  if (!unsafeDeletionGate) ignoreReadError = false;
  // ValidateDeleteOptions' order: both set, then the policy, then dryRun.
  const errors: FieldError[] = [];
  if (orphanDependents !== undefined && options.propagationPolicy !== undefined) {
    errors.push(fieldErrors.invalid('propagationPolicy', options.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (options.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(options.propagationPolicy)) {
    errors.push(fieldErrors.notSupported('propagationPolicy', options.propagationPolicy, [...PROPAGATION_POLICIES, 'nil']));
  }
  errors.push(...dryRunErrors(dryRun));
  if (ignoreReadError) {
    // ValidateIgnoreStoreReadError: the option goes alone.
    const alone = (what: string): FieldError => fieldErrors.invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, `cannot be set together with .${what}`);
    if (dryRun.length > 0) errors.push(alone('dryRun'));
    if (options.propagationPolicy !== undefined) errors.push(alone('propagationPolicy'));
    if (orphanDependents !== undefined) errors.push(alone('orphanDependents'));
    if (options.gracePeriodSeconds !== undefined) errors.push(alone('gracePeriodSeconds'));
    if (options.preconditions !== undefined) errors.push(alone('preconditions'));
  }
  if (errors.length > 0) throw invalid('meta.k8s.io', 'DeleteOptions', '', errors);
  if (ignoreReadError) options.ignoreStoreReadErrorWithClusterBreakingPotential = true;
  if (dryRun.length > 0) options.dryRun = true;
  // The deprecated boolean decides as the policy it stands for (true: Orphan, false: Background).
  if (orphanDependents !== undefined && options.propagationPolicy === undefined) options.propagationPolicy = orphanDependents ? 'Orphan' : 'Background';
  return orphanDependents === undefined ? { options } : { options, orphanDependents };
}

/** The option kinds every group version registers beside DeleteOptions; they decode, then fail the conversion. */
const OTHER_OPTION_KINDS = new Set(['ListOptions', 'GetOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions']);

/**
 * A DeleteOptions body as upstream's delete handler decodes it. Its failures are
 * plain errors there, so each is a 500 with the decoder's text and no reason.
 */
function decodeBody(body: Buffer, mediaType: string, servesGroupVersion: (apiVersion: string) => boolean): Record<string, unknown> {
  let decoded: unknown;
  try {
    decoded = decodeDocument(body, mediaType, 'DeleteOptions');
  } catch (err) {
    throw err instanceof UnreadableBody ? unknownError(err.decodeError) : err;
  }
  if (decoded === null) return {};
  const wrongType = typeFieldsError(decoded);
  if (wrongType !== undefined) throw unknownError(wrongType);
  const raw = decoded as Record<string, unknown>;
  // Missing type fields default to meta.k8s.io/v1 DeleteOptions.
  const apiVersion = typeof raw['apiVersion'] === 'string' && raw['apiVersion'] !== '' ? raw['apiVersion'] : 'meta.k8s.io/v1';
  const kind = typeof raw['kind'] === 'string' && raw['kind'] !== '' ? raw['kind'] : 'DeleteOptions';
  const registered = apiVersion === 'meta.k8s.io/v1' || apiVersion === 'meta.k8s.io/v1beta1' || servesGroupVersion(apiVersion);
  if (registered && kind === 'DeleteOptions') return raw;
  if (registered && OTHER_OPTION_KINDS.has(kind)) {
    throw unknownError(`converting (${parseApiVersion(apiVersion).version}.${kind}) to (v1.DeleteOptions): unknown conversion`);
  }
  throw unknownError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/runtime/scheme.go:100"`);
}
