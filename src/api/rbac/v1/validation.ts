// rbac.authorization.k8s.io/v1 validation (upstream pkg/apis/rbac/validation).
import type { KubeObject } from '../../../machinery/meta.js';
import { validateLabelSelector } from '../../../machinery/selector-validation.js';
import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import { goQuote, goStringSlice } from '../../../machinery/go-syntax.js';
import { isDNS1123Subdomain, pathSegmentName } from '../../../machinery/validation.js';
import { RBAC_GROUP, type ClusterRole, type PolicyRule, type Role, type RoleBinding, type Subject } from './types.js';

const len = (a: unknown): number => (Array.isArray(a) ? a.length : 0);

export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (len(rule.verbs) === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (len(rule.nonResourceURLs) > 0) {
    if (namespaced) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, goStringSlice(rule.nonResourceURLs), 'namespaced rules cannot apply to non-resource URLs'));
    if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0) {
      errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, goStringSlice(rule.nonResourceURLs), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (len(rule.apiGroups) === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (len(rule.resources) === 0) errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function rules(obj: Role | ClusterRole, namespaced: boolean): FieldError[] {
  return (Array.isArray(obj.rules) ? obj.rules : []).flatMap((r, i) => validatePolicyRule(r ?? ({} as PolicyRule), namespaced, `rules[${i}]`));
}

export function validateRole(obj: KubeObject): FieldError[] {
  return rules(obj as Role, true);
}

export function validateClusterRole(obj: KubeObject): FieldError[] {
  const role = obj as ClusterRole;
  const errs = rules(role, false);
  if (role.aggregationRule !== undefined && role.aggregationRule !== null && len(role.aggregationRule.clusterRoleSelectors) === 0) {
    errs.push(fieldErrors.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  }
  (role.aggregationRule?.clusterRoleSelectors ?? []).forEach((selector, i) => {
    const path = `aggregationRule.clusterRoleSelectors[${i}]`;
    const selectorErrs = validateLabelSelector(selector, path);
    errs.push(...selectorErrs);
    // A selector that does not convert is also reported whole (upstream prints the nil result as "null").
    if (selectorErrs.length > 0) errs.push(fieldErrors.invalid(path, 'null', 'invalid label selector.'));
  });
  return errs;
}

function validateSubject(s: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(fieldErrors.required(`${path}.name`));
  switch (s.kind) {
    case 'ServiceAccount':
      if (s.name) for (const msg of isDNS1123Subdomain(s.name)) errs.push(fieldErrors.invalid(`${path}.name`, s.name, msg));
      if (s.apiGroup) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(fieldErrors.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, s.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(b: RoleBinding, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = b.roleRef ?? ({} as RoleBinding['roleRef']);
  if (ref.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(fieldErrors.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(fieldErrors.required('roleRef.name'));
  else for (const msg of pathSegmentName(ref.name, false)) errs.push(fieldErrors.invalid('roleRef.name', ref.name, msg));
  (Array.isArray(b.subjects) ? b.subjects : []).forEach((s, i) => errs.push(...validateSubject(s ?? ({} as Subject), namespaced, `subjects[${i}]`)));
  return errs;
}

function sameRoleRef(a: RoleBinding, b: RoleBinding): boolean {
  return a.roleRef?.apiGroup === b.roleRef?.apiGroup && a.roleRef?.kind === b.roleRef?.kind && a.roleRef?.name === b.roleRef?.name;
}

export const validateRoleBinding = (obj: KubeObject): FieldError[] => validateBinding(obj as RoleBinding, true);
export const validateClusterRoleBinding = (obj: KubeObject): FieldError[] => validateBinding(obj as RoleBinding, false);

export function validateBindingUpdate(namespaced: boolean): (obj: KubeObject, old: KubeObject) => FieldError[] {
  return (obj, old) => {
    const errs = validateBinding(obj as RoleBinding, namespaced);
    if (!sameRoleRef(obj as RoleBinding, old as RoleBinding)) {
      const ref = (obj as RoleBinding).roleRef ?? ({} as RoleBinding['roleRef']);
      // Upstream prints the internal struct with %#v.
      const value = new GoValue(`rbac.RoleRef{APIGroup:${goQuote(ref.apiGroup ?? '')}, Kind:${goQuote(ref.kind ?? '')}, Name:${goQuote(ref.name ?? '')}}`);
      errs.push(fieldErrors.invalid('roleRef', value, 'cannot change roleRef'));
    }
    return errs;
  };
}
