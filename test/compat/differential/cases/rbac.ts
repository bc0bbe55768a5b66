// Differential cases for authorization (issue 19): the runner talks as a
// system:masters user; steps that carry Impersonate-User headers ask as
// someone else, which exercises impersonation, RBAC decisions and the exact
// Forbidden messages. Decisions right after a binding is written are not
// compared: kube-apiserver's RBAC reads its informers, so a step that follows
// a binding races its propagation there (test/security covers bindings,
// escalation and aggregation against apiary alone, with upstream's messages).

import type { DiffCase } from '../case.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const alice = { 'Impersonate-User': 'alice' };

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
      { title: 'impersonated groups count', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps', headers: { ...alice, 'Impersonate-Group': 'system:masters' } },
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
];
