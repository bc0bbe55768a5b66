// Matching one request against one RBAC rule, and one subject against a user
// (upstream plugin/pkg/auth/authorizer/rbac: RuleAllows, appliesTo; and
// pkg/apis/rbac/v1 helpers: VerbMatches, ResourceMatches, …).

import type { UserInfo } from '../../machinery/user.js';
import type { PolicyRule, Subject } from '../../api/rbac/v1/types.js';
import type { Attributes } from './attributes.js';

const has = (list: string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(rule.apiGroups, a.apiGroup) || !resourceMatches(rule, combined, a.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

/** Whether a binding subject names this user; `bindingNamespace` fills a service account's missing namespace. */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}
