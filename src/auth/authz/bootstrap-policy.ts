// The bootstrap RBAC policy kube-apiserver 1.32 reconciles on start (upstream
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy): the roles' rules are data,
// bootstrap-policy.json beside this file, checked when loaded (checkBootstrapPolicy:
// a malformed rule stops the server at start, not at the first request it
// would have decided). admin, edit and view carry only their aggregation
// rules; aggregation fills their rules from the system:aggregate-to-* roles
// (and any role a user labels to join them). Each controller apiary runs
// writes as its service account system:serviceaccount:kube-system:<name>,
// bound to system:controller:<name>.

import type { ClusterRole, ClusterRoleBinding, PolicyRule } from '../../api/rbac/v1/types.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import data from './bootstrap-policy.json' with { type: 'json' };

interface RoleFacts {
  name: string;
  labels: Record<string, string>;
  rules?: PolicyRule[];
  aggregationRule?: ClusterRole['aggregationRule'];
}

export interface BootstrapPolicy {
  clusterRoles: RoleFacts[];
  /** The rules of system:controller:<name>, by service account name in kube-system. */
  controllerRoles: Record<string, PolicyRule[]>;
  /** ClusterRoleBindings of the role of that name to groups. */
  groupBindings: Record<string, string[]>;
  /** ClusterRoleBindings of the role of that name to users. */
  userBindings: Record<string, string[]>;
}

const RULE_FIELDS = new Set(['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs']);

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '');
}

function isStringMap(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((s) => typeof s === 'string');
}

/** Why a rule is malformed (as RBAC's rule validation would say), or undefined. */
function ruleProblem(rule: unknown): string | undefined {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return 'not an object';
  const r = rule as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !RULE_FIELDS.has(k));
  if (unknown.length > 0) return `unknown fields ${unknown.join(', ')}`;
  for (const k of Object.keys(r)) if (!Array.isArray(r[k]) || !(r[k] as unknown[]).every((s) => typeof s === 'string')) return `${k} is not a list of strings`;
  if (!isStringList(r['verbs']) || r['verbs'].length === 0) return 'verbs must name at least one verb';
  const resourceRule = r['apiGroups'] !== undefined || r['resources'] !== undefined;
  const urlRule = r['nonResourceURLs'] !== undefined;
  if (resourceRule && urlRule) return 'a rule names either resources or nonResourceURLs, not both';
  if (urlRule) return (r['nonResourceURLs'] as string[]).length === 0 ? 'nonResourceURLs is empty' : undefined;
  if (!Array.isArray(r['apiGroups']) || !isStringList(r['resources']) || r['resources'].length === 0) return 'a resource rule needs apiGroups and resources';
  return undefined;
}

function rulesProblem(rules: unknown, where: string): string | undefined {
  if (!Array.isArray(rules)) return `${where}: rules is not a list`;
  for (const [i, rule] of rules.entries()) {
    const problem = ruleProblem(rule);
    if (problem !== undefined) return `${where}: rules[${i}]: ${problem}`;
  }
  return undefined;
}

/** Checks the policy's shape and every rule; throws naming the first problem. */
export function checkBootstrapPolicy(raw: unknown): BootstrapPolicy {
  const fail = (why: string): never => {
    throw new Error(`bootstrap policy: ${why}`);
  };
  if (typeof raw !== 'object' || raw === null) return fail('not an object');
  const p = raw as Record<string, unknown>;
  if (!Array.isArray(p['clusterRoles'])) return fail('clusterRoles is not a list');
  const names = new Set<string>();
  for (const [i, role] of (p['clusterRoles'] as unknown[]).entries()) {
    const r = (role ?? {}) as Record<string, unknown>;
    const name = r['name'];
    if (typeof name !== 'string' || name === '') return fail(`clusterRoles[${i}] has no name`);
    if (names.has(name)) fail(`${name} is listed twice`);
    names.add(name);
    if (!isStringMap(r['labels'])) fail(`${name}: labels must map strings to strings`);
    if ((r['rules'] === undefined) === (r['aggregationRule'] === undefined)) fail(`${name}: needs rules or an aggregationRule (one of them)`);
    if (r['rules'] !== undefined) {
      const problem = rulesProblem(r['rules'], name);
      if (problem !== undefined) fail(problem);
    }
  }
  const controllers = p['controllerRoles'];
  if (typeof controllers !== 'object' || controllers === null || Array.isArray(controllers)) return fail('controllerRoles is not an object');
  for (const [name, rules] of Object.entries(controllers)) {
    const problem = rulesProblem(rules, `system:controller:${name}`);
    if (problem !== undefined) fail(problem);
  }
  for (const field of ['groupBindings', 'userBindings']) {
    const bindings = p[field];
    if (typeof bindings !== 'object' || bindings === null || Array.isArray(bindings)) return fail(`${field} is not an object`);
    for (const [role, subjects] of Object.entries(bindings)) {
      if (!names.has(role)) fail(`${field}: ${role} is not a cluster role of the policy`);
      if (!isStringList(subjects) || subjects.length === 0) fail(`${field}: ${role} needs a list of names`);
    }
  }
  return raw as BootstrapPolicy;
}

const POLICY = checkBootstrapPolicy(data);

const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const BOOTSTRAPPING = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

/** The controllers' roles, by service account name in kube-system. */
export const CONTROLLER_ROLES: Readonly<Record<string, PolicyRule[]>> = POLICY.controllerRoles;

/** The user a controller acts as. */
export function controllerUser(name: string): string {
  return `system:serviceaccount:kube-system:${name}`;
}

function allRoles(): RoleFacts[] {
  const controllers = Object.entries(POLICY.controllerRoles).map(([name, rules]): RoleFacts => ({
    name: `system:controller:${name}`,
    labels: BOOTSTRAPPING,
    rules,
  }));
  return [...POLICY.clusterRoles, ...controllers];
}

export function bootstrapClusterRoles(): ClusterRole[] {
  return allRoles().map((r) => {
    const role: ClusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: r.name, labels: { ...r.labels }, annotations: { ...AUTOUPDATE } },
    };
    if (r.aggregationRule !== undefined) role.aggregationRule = deepCopy(r.aggregationRule);
    else role.rules = deepCopy(r.rules ?? []);
    return role;
  });
}

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  const binding = (name: string, subjects: ClusterRoleBinding['subjects']): ClusterRoleBinding => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAPPING }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects,
  });
  const to = (kind: 'Group' | 'User', names: string[]): ClusterRoleBinding['subjects'] =>
    names.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name }));
  return [
    ...Object.entries(POLICY.groupBindings).map(([name, groups]) => binding(name, to('Group', groups))),
    ...Object.entries(POLICY.userBindings).map(([name, users]) => binding(name, to('User', users))),
    ...Object.keys(POLICY.controllerRoles).map((name) => binding(`system:controller:${name}`, [{ kind: 'ServiceAccount', name, namespace: 'kube-system' }])),
  ];
}
