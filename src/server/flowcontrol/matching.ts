// Does a FlowSchema match a request? (upstream's util/flowcontrol/rule.go):
// one of its rules must match both a subject (the user, one of its groups,
// or its service account) and the request (a resource rule for resource
// requests, a non-resource rule for the others). Pure functions.

import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from '../../api/flowcontrol/v1/types.js';

/** What classification looks at: who asks, and what for. */
export interface RequestDigest {
  user: string;
  groups: readonly string[];
  isResourceRequest: boolean;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  /** '' for cluster-scoped requests. */
  namespace: string;
  path: string;
}

const SA_PREFIX = 'system:serviceaccount:';

function subjectMatches(s: Subject, d: RequestDigest): boolean {
  switch (s.kind) {
    case 'User':
      return s.user !== undefined && (s.user.name === '*' || s.user.name === d.user);
    case 'Group':
      return s.group !== undefined && (s.group.name === '*' || d.groups.includes(s.group.name));
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (sa === undefined || !d.user.startsWith(SA_PREFIX)) return false;
      const rest = d.user.slice(SA_PREFIX.length);
      const colon = rest.indexOf(':');
      if (colon < 0) return false;
      return rest.slice(0, colon) === sa.namespace && (sa.name === '*' || rest.slice(colon + 1) === sa.name);
    }
    default:
      return false;
  }
}

const has = (list: readonly string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

function resourceRuleMatches(r: ResourcePolicyRule, d: RequestDigest): boolean {
  if (!has(r.verbs, d.verb) || !has(r.apiGroups, d.apiGroup)) return false;
  const resource = d.subresource === '' ? d.resource : `${d.resource}/${d.subresource}`;
  if (!has(r.resources, resource)) return false;
  if (d.namespace === '') return r.clusterScope === true;
  return has(r.namespaces, d.namespace);
}

function nonResourceRuleMatches(r: NonResourcePolicyRule, d: RequestDigest): boolean {
  if (!has(r.verbs, d.verb)) return false;
  for (const pattern of r.nonResourceURLs ?? []) {
    if (pattern === '*' || pattern === d.path) return true;
    // "/apis/*" matches "/apis" and everything below it.
    if (pattern.endsWith('/*')) {
      const base = pattern.slice(0, -2);
      if (d.path === base || d.path.startsWith(`${base}/`)) return true;
    }
  }
  return false;
}

function ruleMatches(rule: PolicyRulesWithSubjects, d: RequestDigest): boolean {
  if (!rule.subjects.some((s) => subjectMatches(s, d))) return false;
  if (d.isResourceRequest) return (rule.resourceRules ?? []).some((r) => resourceRuleMatches(r, d));
  return (rule.nonResourceRules ?? []).some((r) => nonResourceRuleMatches(r, d));
}

export function flowSchemaMatches(fs: FlowSchema, d: RequestDigest): boolean {
  return (fs.spec.rules ?? []).some((rule) => ruleMatches(rule, d));
}

/**
 * A schema's matcher, compiled once per configuration: the names of every
 * rule's subjects in sets, so that the (common) schema whose subjects are not
 * the user is passed over without walking its rules.
 */
export function compileFlowSchema(fs: FlowSchema): (d: RequestDigest) => boolean {
  const users = new Set<string>();
  const groups = new Set<string>();
  let serviceAccounts = false;
  let anyone = false;
  for (const rule of fs.spec.rules ?? []) {
    for (const s of rule.subjects ?? []) {
      if (s.kind === 'User' && s.user !== undefined) {
        if (s.user.name === '*') anyone = true;
        users.add(s.user.name);
      } else if (s.kind === 'Group' && s.group !== undefined) {
        if (s.group.name === '*') anyone = true;
        groups.add(s.group.name);
      } else if (s.kind === 'ServiceAccount') serviceAccounts = true;
    }
  }
  return (d) => {
    if (!anyone && !users.has(d.user) && !(serviceAccounts && d.user.startsWith(SA_PREFIX))) {
      let member = false;
      for (const g of d.groups) {
        if (groups.has(g)) {
          member = true;
          break;
        }
      }
      if (!member) return false;
    }
    return flowSchemaMatches(fs, d);
  };
}

/** The flow a request belongs to within its schema: its user, its namespace, or one flow for all. */
export function flowDistinguisher(fs: FlowSchema, d: RequestDigest): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser':
      return d.user;
    case 'ByNamespace':
      return d.namespace;
    default:
      return '';
  }
}
