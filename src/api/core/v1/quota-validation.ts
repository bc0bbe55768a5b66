// ResourceQuota validation (upstream pkg/apis/core/validation: 
// ValidateResourceQuotaSpec / ...Status / ...Update): resource names must be
// standard quota names or fully qualified, quantities non-negative (whole
// numbers for object counts), scopes known, fitting the resources they are
// applied to and not conflicting, scopeSelector operators valid; spec.scopes
// cannot change. Map keys are checked in sorted order (upstream's map order is
// random; sorting makes the causes stable).

import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import { goQuote, goStringSlice } from '../../../machinery/go-syntax.js';
import { type Quantity, parseQuantity } from '../../../machinery/quantity.js';
import { IS_NEGATIVE_ERROR_MSG, isQualifiedName } from '../../../machinery/validation.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { ResourceList, ResourceQuota } from './types.js';

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const STANDARD_RESOURCES = new Set([...STANDARD_QUOTA_RESOURCES, 'storage']);
const INTEGER_RESOURCES = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);
const STANDARD_SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const EXISTS_ONLY = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);

const isHugePages = (n: string): boolean => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-');
const isStandardQuotaName = (n: string): boolean => STANDARD_QUOTA_RESOURCES.has(n) || isHugePages(n);

function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** helper.IsResourceQuotaScopeValidForResource */
function scopeFits(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return resource === 'pods';
    default:
      return true;
  }
}

/** validateResourceName then ValidateResourceQuotaResourceName; a ResourceName prints bare. */
function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const bare = new GoValue(name);
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, bare, m));
  if (errs.length === 0 && !name.includes('/') && !STANDARD_RESOURCES.has(name) && !isHugePages(name)) {
    errs.push(fieldErrors.invalid(path, bare, 'must be a standard resource type or fully qualified'));
  }
  if (!name.includes('/') && !isStandardQuotaName(name)) errs.push(fieldErrors.invalid(path, bare, 'must be a standard resource for quota'));
  return errs;
}

/** How Go's %#v prints a resource.Quantity (the "must be an integer" error shows it raw). */
export function goQuantity(q: Quantity, text: string): GoValue {
  const cached = q.toString() === text ? text : '';
  return new GoValue(
    `resource.Quantity{i:resource.int64Amount{value:${q.unscaled}, scale:${q.scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(cached)}, Format:${JSON.stringify(q.format)}}`,
  );
}

function validateQuantity(name: string, raw: string | number, path: string): FieldError[] {
  let q: Quantity;
  try {
    q = parseQuantity(String(raw));
  } catch (err) {
    return [fieldErrors.invalid(path, String(raw), err instanceof Error ? err.message : String(err))];
  }
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(fieldErrors.invalid(path, q.toString(), IS_NEGATIVE_ERROR_MSG));
  if ((INTEGER_RESOURCES.has(name) || isExtendedResourceName(name)) && q.milliValue() % 1000n !== 0n) {
    errs.push(fieldErrors.invalid(path, goQuantity(q, String(raw)), 'must be an integer'));
  }
  return errs;
}

function validateList(list: ResourceList | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(list ?? {}).sort()) {
    const p = `${path}[${k}]`;
    errs.push(...validateQuotaResourceName(k, p), ...validateQuantity(k, list![k]!, p));
  }
  return errs;
}

interface Requirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

/** A []core.ResourceQuotaScope as Go's %#v prints it; an absent list is a nil slice. */
const scopeList = (scopes: readonly string[] | undefined): GoValue =>
  scopes === undefined ? new GoValue('[]core.ResourceQuotaScope(nil)') : new GoValue(`[]core.ResourceQuotaScope{${scopes.map(goQuote).join(', ')}}`);

function conflicting(scopes: Set<string>): boolean {
  return (scopes.has('BestEffort') && scopes.has('NotBestEffort')) || (scopes.has('Terminating') && scopes.has('NotTerminating'));
}

function validateScopes(rq: ResourceQuota): FieldError[] {
  const scopes = rq.spec?.scopes ?? [];
  if (scopes.length === 0) return [];
  const errs: FieldError[] = [];
  const hard = Object.keys(rq.spec?.hard ?? {}).sort();
  for (const scope of scopes) {
    if (!STANDARD_SCOPES.has(scope)) errs.push(fieldErrors.invalid('spec.scopes', scopeList(scopes), 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaName(k) && !scopeFits(scope, k)) errs.push(fieldErrors.invalid('spec.scopes', scopeList(scopes), 'unsupported scope applied to resource'));
    }
  }
  if (conflicting(new Set(scopes))) errs.push(fieldErrors.invalid('spec.scopes', scopeList(scopes), 'conflicting scopes'));
  return errs;
}

function validateScopeSelector(rq: ResourceQuota): FieldError[] {
  const selector = rq.spec?.scopeSelector as { matchExpressions?: Requirement[] } | undefined | null;
  if (selector === undefined || selector === null) return [];
  const errs: FieldError[] = [];
  const path = 'spec.scopeSelector.matchExpressions';
  const hard = Object.keys(rq.spec?.hard ?? {}).sort();
  const seen = new Set<string>();
  for (const req of selector.matchExpressions ?? []) {
    const scope = req.scopeName ?? '';
    const op = req.operator ?? '';
    if (!STANDARD_SCOPES.has(scope)) errs.push(fieldErrors.invalid(`${path}.scopeName`, scope, 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaName(k) && !scopeFits(scope, k)) errs.push(fieldErrors.invalid(path, goScopeSelector(selector), 'unsupported scope applied to resource'));
    }
    if (EXISTS_ONLY.has(scope) && op !== 'Exists') {
      errs.push(
        fieldErrors.invalid(
          `${path}.operator`,
          op,
          "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    const values = req.values ?? [];
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldErrors.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length !== 0) errs.push(fieldErrors.invalid(`${path}.values`, goStringSlice(values), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else {
      errs.push(fieldErrors.invalid(`${path}.operator`, op, 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  if (conflicting(seen)) errs.push(fieldErrors.invalid(path, scopeList(rq.spec?.scopes), 'conflicting scopes'));
  return errs;
}

export function validateResourceQuota(obj: KubeObject): FieldError[] {
  const rq = obj as ResourceQuota;
  return [
    ...validateList(rq.spec?.hard, 'spec.hard'),
    ...validateScopes(rq),
    ...validateScopeSelector(rq),
    ...validateList(rq.status?.hard, 'status.hard'),
    ...validateList(rq.status?.used, 'status.used'),
  ];
}

export function validateResourceQuotaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const rq = obj as ResourceQuota;
  const errs = [...validateList(rq.spec?.hard, 'spec.hard'), ...validateScopes(rq), ...validateScopeSelector(rq)];
  const a = new Set(rq.spec?.scopes ?? []);
  const b = new Set((old as ResourceQuota).spec?.scopes ?? []);
  if (a.size !== b.size || [...a].some((s) => !b.has(s))) errs.push(fieldErrors.invalid('spec.scopes', scopeList(rq.spec?.scopes), 'field is immutable'));
  return errs;
}

export function validateResourceQuotaStatusUpdate(obj: KubeObject): FieldError[] {
  const rq = obj as ResourceQuota;
  const errs: FieldError[] = [];
  if ((rq.metadata.resourceVersion ?? '') === '') errs.push(fieldErrors.required('resourceVersion'));
  errs.push(...validateList(rq.status?.hard, 'status.hard'), ...validateList(rq.status?.used, 'status.used'));
  return errs;
}

/** A scope selector as Go's %#v prints the internal type in a field error. */
function goScopeSelector(selector: { matchExpressions?: Requirement[] }): GoValue {
  const reqs = (selector.matchExpressions ?? []).map((r) => {
    const values = r.values === undefined || r.values === null ? '[]string(nil)' : `[]string{${r.values.map(goQuote).join(', ')}}`;
    return `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(r.scopeName ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${values}}`;
  });
  const list = selector.matchExpressions === undefined || selector.matchExpressions === null ? '[]core.ScopedResourceSelectorRequirement(nil)' : `[]core.ScopedResourceSelectorRequirement{${reqs.join(', ')}}`;
  return new GoValue(`core.ScopeSelector{MatchExpressions:${list}}`);
}
