// Differential cases for authorization (issue 19): the runner talks as a
// system:masters user; steps that carry Impersonate-User headers ask as
// someone else, which exercises impersonation, RBAC decisions and the exact
// Forbidden / escalation messages. Cluster-scoped objects are named after
// the case's namespace and deleted by the last steps.

import type { DiffCase } from '../case.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const alice = { 'Impersonate-User': 'alice' };

const binding = (name: string, role: string, kind = 'ClusterRole') => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
  subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
});

export const cases: DiffCase[] = [
  {
    name: 'rbac: Forbidden messages for a user without bindings',
    steps: [
      { title: 'namespaced list', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps', headers: alice },
      { title: 'list across namespaces', method: 'GET', path: '/api/v1/configmaps', headers: alice },
      { title: 'get by name', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/x', headers: alice },
      { title: 'create', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', headers: alice, body: { metadata: { name: 'x' } } },
      { title: 'subresource', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p/status', headers: alice },
      { title: 'named group resource', method: 'GET', path: `${RBAC}/clusterroles/admin`, headers: alice },
      { title: 'watch across namespaces', method: 'GET', path: '/api/v1/configmaps?watch=true', headers: alice },
      { title: 'non-resource path', method: 'GET', path: '/foo', headers: alice },
      { title: 'discovery is allowed', method: 'GET', path: '/api', headers: alice },
      { title: 'impersonated groups count', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps', headers: { ...alice, 'Impersonate-Group': 'system:masters' } },
    ],
  },
  {
    name: 'rbac: a RoleBinding to edit opens one namespace',
    setup: [{ method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { metadata: { name: 'settings' }, data: { a: 'b' } } }],
    steps: [
      { title: 'bind', method: 'POST', path: `${RBAC}/namespaces/{ns}/rolebindings`, body: binding('alice-edit', 'edit') },
      { title: 'self access review says why', method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', headers: alice,
        body: { spec: { resourceAttributes: { namespace: '{ns}', verb: 'list', resource: 'configmaps' } } } },
      { title: 'subject access review for another namespace', method: 'POST', path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: { spec: { user: 'alice', resourceAttributes: { namespace: 'kube-system', verb: 'list', resource: 'configmaps' } } } },
      { title: 'get in the namespace', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/settings', headers: alice },
      { title: 'still not across namespaces', method: 'GET', path: '/api/v1/configmaps', headers: alice },
      { title: 'edit grants no RBAC writes', method: 'POST', path: `${RBAC}/namespaces/{ns}/roles`, headers: alice,
        body: { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } },
      { title: 'binding table', method: 'GET', path: `${RBAC}/namespaces/{ns}/rolebindings`, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } },
      { title: 'roleRef cannot change', method: 'PATCH', path: `${RBAC}/namespaces/{ns}/rolebindings/alice-edit`,
        headers: { 'Content-Type': 'application/merge-patch+json' }, body: { roleRef: { name: 'admin' } } },
    ],
  },
  {
    name: 'rbac: escalation prevention',
    setup: [{ method: 'POST', path: `${RBAC}/namespaces/{ns}/rolebindings`, body: binding('alice-admin', 'admin') }],
    steps: [
      { title: 'a role within what she holds', method: 'POST', path: `${RBAC}/namespaces/{ns}/roles`, headers: alice,
        body: { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } },
      { title: 'a role with more', method: 'POST', path: `${RBAC}/namespaces/{ns}/roles`, headers: alice,
        body: { metadata: { name: 'node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes', 'configmaps'], verbs: ['get', 'list'] }] } },
      { title: 'binding cluster-admin', method: 'POST', path: `${RBAC}/namespaces/{ns}/rolebindings`, headers: alice, body: binding('x', 'cluster-admin') },
      { title: 'binding a missing role', method: 'POST', path: `${RBAC}/namespaces/{ns}/rolebindings`, headers: alice, body: binding('y', 'missing', 'Role') },
      { title: 'binding a role she holds', method: 'POST', path: `${RBAC}/namespaces/{ns}/rolebindings`, headers: alice, body: binding('z', 'cm-reader', 'Role') },
    ],
  },
  {
    name: 'rbac: validation',
    steps: [
      { title: 'bad kinds', method: 'POST', path: `${RBAC}/namespaces/{ns}/rolebindings`,
        body: { metadata: { name: 'bad' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Nope', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r' }] } },
      { title: 'namespaced non-resource rule', method: 'POST', path: `${RBAC}/namespaces/{ns}/roles`, body: { metadata: { name: 'r' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] } },
      { title: 'rule without groups or resources', method: 'POST', path: `${RBAC}/clusterroles`, body: { metadata: { name: '{ns}-empty' }, rules: [{ verbs: ['get'] }] } },
      { title: 'cluster binding to a Role', method: 'POST', path: `${RBAC}/clusterrolebindings`,
        body: { metadata: { name: '{ns}-crb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] } },
    ],
  },
  {
    name: 'rbac: ClusterRole aggregation into view',
    steps: [
      { title: 'an aggregated role', method: 'POST', path: `${RBAC}/clusterroles`,
        body: { metadata: { name: '{ns}-agg', labels: { 'rbac.authorization.k8s.io/aggregate-to-{ns}': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }] } },
      { title: 'the aggregating role', method: 'POST', path: `${RBAC}/clusterroles`,
        body: { metadata: { name: '{ns}-parent' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-{ns}': 'true' } }] } } },
      { title: 'clean up', method: 'DELETE', path: `${RBAC}/clusterroles/{ns}-agg` },
      { title: 'clean up', method: 'DELETE', path: `${RBAC}/clusterroles/{ns}-parent` },
    ],
  },
];
