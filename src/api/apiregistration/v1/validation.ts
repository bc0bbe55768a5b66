// Validation of APIServices with upstream's paths and messages
// (k8s.io/kube-aggregator/pkg/apis/apiregistration/validation). The name must
// be `version.group`: that check needs the spec, so it runs here rather than in
// the strategy's name validator (which only refuses what cannot be a path segment).

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, pathSegmentName } from '../../../machinery/validation.js';
import type { APIServiceCondition, APIServiceSpec } from './types.js';

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

export function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as APIServiceSpec;
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const name = obj.metadata.name ?? '';
  const required = `${version}.${group}`;
  if (name !== '' && pathSegmentName(name, false).length === 0 && name !== required) {
    errs.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (group === '' && version !== 'v1') errs.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldErrors.invalid('spec.version', version, msg));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(fieldErrors.invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(fieldErrors.invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundleBytes = spec.caBundle === undefined ? 0 : Buffer.from(spec.caBundle, 'base64').length;
  const service = spec.service;
  if (service === undefined || service === null) {
    if (caBundleBytes !== 0) errs.push(fieldErrors.invalid('spec.caBundle', `${caBundleBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify === true) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if ((service.namespace ?? '') === '') errs.push(fieldErrors.required('spec.service.namespace'));
  if ((service.name ?? '') === '') errs.push(fieldErrors.required('spec.service.name'));
  if (spec.insecureSkipTLSVerify === true && caBundleBytes > 0) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

export function validateAPIServiceStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const conditions = ((obj['status'] as { conditions?: APIServiceCondition[] } | undefined)?.conditions ?? []);
  conditions.forEach((c, i) => {
    if (!CONDITION_STATUSES.includes(c?.status)) errs.push(fieldErrors.notSupported(`status.conditions[${i}].status`, c?.status ?? '', CONDITION_STATUSES));
  });
  return errs;
}
