// DeleteOptions as upstream's delete handler reads them: from a JSON or YAML
// body when there is one, else from the query; validated in
// ValidateDeleteOptions' order (every error in one 422), the deprecated
// orphanDependents turned into the policy it stands for, and the unsafe
// deletion of corrupt objects honoured only behind its feature gate.

import { badRequest, invalid } from '../machinery/errors.js';
import { type FieldError, fieldErrors } from '../machinery/field-errors.js';
import type { DeleteOptions } from '../registry/rest.js';
import { decodeDocument } from './codecs.js';
import { negotiateInput } from './negotiation.js';
import { parseBool } from './request-info.js';
import { dryRunErrors, parseInteger, setIfPresent } from './request-options.js';

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/** DeleteOptions from a JSON/YAML body when there is one, else from the query (as upstream). */
export function deleteOptionsFrom(body: Buffer, contentType: string | undefined, query: URLSearchParams, unsafeDeletionGate: boolean): { options: DeleteOptions; orphanDependents?: boolean } {
  const options: DeleteOptions = {};
  let orphanDependents: boolean | undefined;
  let dryRun: string[] = [];
  let ignoreReadError = false;
  if (body.length > 0) {
    const mediaType = negotiateInput(contentType);
    const decoded = decodeDocument(body, mediaType, 'DeleteOptions');
    if (decoded !== null && (typeof decoded !== 'object' || Array.isArray(decoded))) {
      throw badRequest('decoded object cannot be converted to DeleteOptions');
    }
    const raw = (decoded ?? {}) as Record<string, unknown>;
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
