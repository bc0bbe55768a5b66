// The RBAC index keeps Roles and RoleBindings as the authorizer reads them
// (authorizationView): the view keeps what authorization, the write waits and
// the binding scope read, drops the rest (managedFields, annotations, other
// labels), and every decision made from views equals the one made from the
// whole objects, with and without hierarchical namespaces. The RBAC suites
// against a real server (test/security, test/tenancy) cover the index itself.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authorizationView } from '../../src/server/rbac-index.js';
import { type RbacSource, RbacAuthorizer } from '../../src/auth/authz/rbac.js';
import type { ClusterRole, Role, RoleBinding } from '../../src/api/rbac/v1/types.js';
import type { Attributes } from '../../src/auth/authz/attributes.js';
import type { UserInfo } from '../../src/machinery/user.js';
import { inheritedBindingScope } from '../../src/tenancy/inherited-bindings.js';
import { LABEL_INHERITED_FROM } from '../../src/api/hnc/v1alpha2/types.js';

const GROUP = 'rbac.authorization.k8s.io';
const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'rbac.authorization.k8s.io/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:roleRef': {} } }];

function meta(namespace: string, name: string, labels: Record<string, string> = {}): RoleBinding['metadata'] {
  return {
    name,
    namespace,
    uid: `uid-${namespace}-${name}`,
    resourceVersion: '42',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'x', ...labels },
    annotations: { note: 'y' },
    managedFields,
  };
}

function binding(namespace: string, name: string, roleRef: RoleBinding['roleRef'], subjects: RoleBinding['subjects'], labels?: Record<string, string>): RoleBinding {
  return { apiVersion: `${GROUP}/v1`, kind: 'RoleBinding', metadata: meta(namespace, name, labels), roleRef, ...(subjects === undefined ? {} : { subjects }) };
}

function role(namespace: string, name: string, rules: Role['rules'], labels?: Record<string, string>): Role {
  return { apiVersion: `${GROUP}/v1`, kind: 'Role', metadata: meta(namespace, name, labels), ...(rules === undefined ? {} : { rules }) };
}

const clusterRole = (name: string): RoleBinding['roleRef'] => ({ apiGroup: GROUP, kind: 'ClusterRole', name });
const localRole = (name: string): RoleBinding['roleRef'] => ({ apiGroup: GROUP, kind: 'Role', name });

/** parent ⊃ child ⊃ grandchild; other stands alone. */
const NAMESPACES = ['parent', 'child', 'grandchild', 'other'];
const ANCESTORS: Record<string, string[]> = { parent: [], child: ['parent'], grandchild: ['child', 'parent'], other: [] };

const roles: Role[] = [
  role('parent', 'reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]),
  role('child', 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]),
  role('grandchild', 'reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }], { [LABEL_INHERITED_FROM]: 'parent' }),
  role('other', 'empty', undefined),
  role('other', 'writer', [{ verbs: ['create', 'update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }]),
];
const bindings: RoleBinding[] = [
  binding('parent', 'alice-view', clusterRole('view'), [{ apiGroup: GROUP, kind: 'User', name: 'alice' }]),
  binding('parent', 'devs-reader', localRole('reader'), [{ apiGroup: GROUP, kind: 'Group', name: 'devs' }]),
  binding('child', 'devs-reader', localRole('reader'), [{ apiGroup: GROUP, kind: 'Group', name: 'devs' }], { [LABEL_INHERITED_FROM]: 'parent' }),
  binding('child', 'sa-edit', clusterRole('edit'), [{ kind: 'ServiceAccount', name: 'builder' }]),
  binding('child', 'sa-other-ns', clusterRole('admin'), [{ kind: 'ServiceAccount', name: 'deployer', namespace: 'other' }]),
  binding('other', 'missing', localRole('nope'), [{ apiGroup: GROUP, kind: 'User', name: 'bob' }]),
  binding('other', 'bob-writer', localRole('writer'), [{ apiGroup: GROUP, kind: 'User', name: 'bob' }, { apiGroup: GROUP, kind: 'Group', name: 'system:authenticated' }]),
  binding('other', 'empty', localRole('empty'), [{ apiGroup: GROUP, kind: 'User', name: 'carol' }]),
  binding('other', 'no-subjects', clusterRole('view'), undefined),
];
const clusterBindings: RoleBinding[] = [
  { apiVersion: `${GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'auditors' }, roleRef: clusterRole('view'), subjects: [{ apiGroup: GROUP, kind: 'Group', name: 'auditors' }] },
];

function source(view: (o: Role | RoleBinding) => Role | RoleBinding): RbacSource {
  const rs = roles.map((r) => view(r) as Role);
  const bs = bindings.map((b) => view(b) as RoleBinding);
  const clusterRoles = new Map<string, ClusterRole>([
    ['view', { metadata: { name: 'view' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['', 'apps'], resources: ['configmaps', 'pods', 'deployments'] }] }],
    ['edit', { metadata: { name: 'edit' }, rules: [{ verbs: ['create', 'update', 'delete'], apiGroups: ['', 'apps'], resources: ['configmaps', 'pods', 'deployments'] }] }],
    ['admin', { metadata: { name: 'admin' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }],
  ]);
  return {
    clusterRoleBindings: () => clusterBindings,
    roleBindings: (ns) => bs.filter((b) => b.metadata.namespace === ns),
    role: (ns, name) => rs.find((r) => r.metadata.namespace === ns && r.metadata.name === name),
    clusterRole: (name) => clusterRoles.get(name),
    allRoleBindings: () => bs,
  };
}

const USERS: UserInfo[] = [
  { name: 'alice', groups: ['system:authenticated'] },
  { name: 'dave', groups: ['devs', 'system:authenticated'] },
  { name: 'system:serviceaccount:child:builder', groups: ['system:serviceaccounts', 'system:authenticated'] },
  { name: 'system:serviceaccount:grandchild:builder', groups: ['system:serviceaccounts', 'system:authenticated'] },
  { name: 'system:serviceaccount:other:deployer', groups: ['system:serviceaccounts', 'system:authenticated'] },
  { name: 'bob', groups: ['system:authenticated'] },
  { name: 'carol', groups: ['system:authenticated'] },
  { name: 'erin', groups: ['auditors', 'system:authenticated'] },
];
const REQUESTS: Array<Pick<Attributes, 'verb' | 'apiGroup' | 'resource' | 'name'>> = [
  { verb: 'get', apiGroup: '', resource: 'configmaps', name: 'a' },
  { verb: 'list', apiGroup: '', resource: 'configmaps', name: '' },
  { verb: 'get', apiGroup: '', resource: 'secrets', name: 's' },
  { verb: 'create', apiGroup: 'apps', resource: 'deployments', name: 'web' },
  { verb: 'update', apiGroup: 'apps', resource: 'deployments', name: 'api' },
  { verb: 'delete', apiGroup: '', resource: 'pods', name: 'p' },
];

function decisions(authorizer: RbacAuthorizer): string[] {
  const out: string[] = [];
  for (const user of USERS) {
    for (const namespace of [...NAMESPACES, '']) {
      for (const r of REQUESTS) {
        const d = authorizer.authorize({ user, namespace, isResourceRequest: true, path: '', apiVersion: 'v1', subresource: '', ...r });
        out.push(`${user.name} ${r.verb} ${r.resource} in ${namespace}: ${d.allowed} ${d.reason}`);
      }
      const rules = authorizer.rulesFor(user, namespace);
      out.push(`${user.name} rules in ${namespace}: ${JSON.stringify(rules)}`);
    }
    const grants = authorizer.namespacesWithGrants(user);
    out.push(`${user.name} grants: ${[...grants.inherited].sort().join(',')} / ${[...grants.local].sort().join(',')}`);
  }
  return out;
}

describe('the RBAC index: authorizationView', () => {
  it('keeps what authorization reads and drops the rest', () => {
    const copy = binding('child', 'b', clusterRole('view'), [{ apiGroup: GROUP, kind: 'ServiceAccount', name: 'sa', namespace: 'other' }], { [LABEL_INHERITED_FROM]: 'parent' });
    copy.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
    // Absent fields are undefined in a view: compare as JSON.
    const json = (o: unknown): unknown => JSON.parse(JSON.stringify(o));
    assert.deepEqual(json(authorizationView(copy)), {
      metadata: { name: 'b', namespace: 'child', uid: 'uid-child-b', resourceVersion: '42', deletionTimestamp: '2026-01-02T00:00:00Z', labels: { [LABEL_INHERITED_FROM]: 'parent' } },
      roleRef: clusterRole('view'),
      subjects: [{ kind: 'ServiceAccount', apiGroup: GROUP, name: 'sa', namespace: 'other' }],
    });
    const r = role('parent', 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
    assert.deepEqual(json(authorizationView(r)), { metadata: { name: 'reader', namespace: 'parent', uid: 'uid-parent-reader', resourceVersion: '42' }, rules: r.rules });
    assert.deepEqual(json(authorizationView(role('other', 'empty', undefined))), { metadata: { name: 'empty', namespace: 'other', uid: 'uid-other-empty', resourceVersion: '42' } });
    // The object given is left as it was.
    assert.ok(copy.metadata.managedFields !== undefined && copy.metadata.annotations !== undefined);
  });

  it('every decision, rule list and namespace grant is the same from views as from whole objects', () => {
    for (const hierarchical of [false, true]) {
      const whole = new RbacAuthorizer(source((o) => o));
      const views = new RbacAuthorizer(source(authorizationView));
      if (hierarchical) {
        const scope = inheritedBindingScope({ ancestorsOf: (ns: string) => ANCESTORS[ns] ?? [] } as unknown as Parameters<typeof inheritedBindingScope>[0]);
        whole.setBindingScope(scope);
        views.setBindingScope(scope);
      }
      const expected = decisions(whole);
      assert.ok(expected.some((d) => d.includes(': true ')) && expected.some((d) => d.includes(': false ')), 'the matrix has both answers');
      assert.deepEqual(decisions(views), expected, hierarchical ? 'with hierarchical namespaces' : 'flat');
    }
  });
});
