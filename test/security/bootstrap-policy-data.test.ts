// The bootstrap RBAC policy is data (src/auth/authz/bootstrap-policy.json):
// the file parses, passes its checks (every rule well-formed, every binding
// names a role of the policy), and the checks refuse a malformed policy
// rather than serving it.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, checkBootstrapPolicy } from '../../src/auth/authz/bootstrap-policy.js';

const FILE = new URL('../../src/auth/authz/bootstrap-policy.json', import.meta.url);
// Loosely typed on purpose: the cases below spoil the parsed file in place.
const load = (): Record<string, any> => JSON.parse(fs.readFileSync(FILE, 'utf8'));

test('the policy file parses and every rule is well-formed', () => {
  const policy = checkBootstrapPolicy(load());
  assert.ok(policy.clusterRoles.some((r) => r.name === 'system:kube-controller-manager'));
  const rules = [...policy.clusterRoles.flatMap((r) => r.rules ?? []), ...Object.values(policy.controllerRoles).flat()];
  for (const rule of rules) {
    assert.ok(rule.verbs.length > 0, JSON.stringify(rule));
    const urls = rule.nonResourceURLs !== undefined;
    assert.notEqual(urls, rule.resources !== undefined, `either resources or nonResourceURLs: ${JSON.stringify(rule)}`);
    if (!urls) assert.ok(Array.isArray(rule.apiGroups) && rule.resources!.length > 0, JSON.stringify(rule));
  }
});

test('the roles and bindings built from it are those kube-apiserver bootstraps', () => {
  const roles = new Map(bootstrapClusterRoles().map((r) => [r.metadata.name, r]));
  assert.deepEqual(roles.get('cluster-admin')?.rules, [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]);
  assert.equal(roles.get('admin')?.rules, undefined);
  assert.ok(roles.get('admin')?.aggregationRule?.clusterRoleSelectors?.length);
  assert.ok(roles.has('system:controller:namespace-controller'));
  for (const r of roles.values()) assert.equal(r.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
  const bindings = bootstrapClusterRoleBindings();
  for (const b of bindings) assert.ok(roles.has(b.roleRef.name), `${b.metadata.name} binds a role of the policy`);
  const admin = bindings.find((b) => b.metadata.name === 'cluster-admin');
  assert.deepEqual(admin?.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
});

test('a malformed policy is refused with the place of the problem', () => {
  const cases: [string, (p: Record<string, any>) => void, RegExp][] = [
    ['a rule without verbs', (p) => (p.clusterRoles[0].rules[0].verbs = []), /rules\[0\]: verbs must name at least one verb/],
    ['a rule with resources and URLs', (p) => (p.clusterRoles[0].rules[0].resources = ['pods']), /either resources or nonResourceURLs/],
    ['an unknown rule field', (p) => (p.controllerRoles['namespace-controller'][0].verb = ['get']), /system:controller:namespace-controller: rules\[0\]: unknown fields verb/],
    ['a role twice', (p) => p.clusterRoles.push(structuredClone(p.clusterRoles[0])), /is listed twice/],
    ['a binding of an unknown role', (p) => (p.groupBindings['no-such-role'] = ['g']), /groupBindings: no-such-role is not a cluster role/],
    ['rules and an aggregation rule', (p) => (p.clusterRoles.find((r: any) => r.name === 'admin').rules = []), /admin: needs rules or an aggregationRule/],
  ];
  for (const [what, spoil, message] of cases) {
    const policy = load();
    spoil(policy);
    assert.throws(() => checkBootstrapPolicy(policy), message, what);
  }
});
