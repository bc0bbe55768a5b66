// Differential cases for built-in admission plugins of kube-apiserver 1.32's
// default set: RuntimeClass, PersistentVolumeClaimResize, the certificate
// plugins. Cluster-wide defaults (a default StorageClass or IngressClass)
// would change what the other cases (run in parallel) see: DefaultStorageClass
// and DefaultIngressClass are tested in test/admission/ instead.

import type { DiffCase } from '../case.js';

/** ECDSA P-256 certificate requests made with openssl: O=system:masters CN=plugins-admin, and O=dev,qa CN=plugins-user (PEM, base64). */
export const MASTERS_REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIc01JR1RBZ0VBTURFeEZ6QVZCZ05WQkFvTURuTjVjM1JsYlRwdFlYTjBaWEp6TVJZd0ZBWURWUVFEREExdwpiSFZuYVc1ekxXRmtiV2x1TUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFb0M3bzJRWWU2bUxXClJlNldQdHlYdjVWWFM0Y2pEeTZKZ2hpMVRqZUlqRkoyZmZHRjNiNUY2ak1vSHlvU3NJQ0RLTzViSUlRRStmMFUKTHRKQzVjRkpFcUFBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDTmxPRVJyUGdyZGNkbVpXamxPT0pWVEJhcgprWCthbUd3dmt2WFRjU0NNU3dJZ0pBT2drWjVHVkVRZGM4d1A4V2xCMUt6NkxNT0gvQjc3LzlMZjF4d00xdVE9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';
export const USER_REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIc01JR1VBZ0VBTURJeEREQUtCZ05WQkFvTUEyUmxkakVMTUFrR0ExVUVDZ3dDY1dFeEZUQVRCZ05WQkFNTQpESEJzZFdkcGJuTXRkWE5sY2pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkdIUzBkUnZyZVhvClFEU3RlQ3B6MEd5aVFNRlEvMHFlckNDSmh3aWVyWmJSN0xTSkpqUXNYUUYwazNqYVNpbHg5b0JzakE3VlB6eUkKUXFmcUZPbitGMGlnQURBS0JnZ3Foa2pPUFFRREFnTkhBREJFQWlCQ1c1cFlWdU1vMCtnRG9tNjZmSG0wNzEvdwptNThUZ0RNZGlkNXh4anZwc0FJZ0ZHay9nRU5ZUHpqTDY0QjlyRWQyTi9INDk5c2ZhT2hqUmJMUjdVQ1ZjY1k9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';
const CSR = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const csr = (name: string, signerName: string, request: string, usages = ['client auth']) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request, signerName, usages },
});
const AS_USER = { 'Impersonate-User': '{ns}-user' };
const approved = (name: string, signerName: string) => ({
  ...csr(name, signerName, USER_REQUEST),
  status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] },
});
const RC = '/apis/node.k8s.io/v1/runtimeclasses';
const PODS = '/api/v1/namespaces/{ns}/pods';
const pod = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});

export const cases: DiffCase[] = [
  {
    name: 'admission: RuntimeClass sets overhead and merges scheduling',
    setup: [
      {
        method: 'POST',
        path: RC,
        body: {
          apiVersion: 'node.k8s.io/v1',
          kind: 'RuntimeClass',
          metadata: { name: '{ns}-rc' },
          handler: 'runc',
          overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
          scheduling: {
            nodeSelector: { 'runtime': 'fast' },
            tolerations: [
              { key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' },
              { key: 'gpu', operator: 'Equal', value: 'yes', effect: 'NoSchedule' },
            ],
          },
        },
      },
      { method: 'POST', path: RC, body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: '{ns}-plain' }, handler: 'runc' } },
    ],
    cleanup: [{ method: 'DELETE', path: `${RC}/{ns}-rc` }, { method: 'DELETE', path: `${RC}/{ns}-plain` }],
    steps: [
      { title: 'overhead, node selector and tolerations from the class', method: 'POST', path: PODS, body: pod('a', { runtimeClassName: '{ns}-rc' }) },
      {
        title: 'the pod\'s own selector keys and a narrower toleration are merged',
        method: 'POST',
        path: PODS,
        body: pod('b', {
          runtimeClassName: '{ns}-rc',
          nodeSelector: { zone: 'z1' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'x', effect: 'NoSchedule' }, { key: 'other', operator: 'Exists' }],
        }),
      },
      { title: 'the same overhead written another way is accepted', method: 'POST', path: PODS, body: pod('c', { runtimeClassName: '{ns}-rc', overhead: { cpu: '0.25', memory: '64Mi' } }) },
      { title: 'a different overhead is refused', method: 'POST', path: PODS, body: pod('d', { runtimeClassName: '{ns}-rc', overhead: { cpu: '1' } }) },
      { title: 'a conflicting node selector is refused', method: 'POST', path: PODS, body: pod('e', { runtimeClassName: '{ns}-rc', nodeSelector: { runtime: 'slow' } }) },
      { title: 'a missing class is refused', method: 'POST', path: PODS, body: pod('f', { runtimeClassName: '{ns}-missing' }) },
      { title: 'overhead without a class overhead is refused', method: 'POST', path: PODS, body: pod('g', { runtimeClassName: '{ns}-plain', overhead: { cpu: '1' } }) },
      { title: 'overhead without any class is refused', method: 'POST', path: PODS, body: pod('h', { overhead: { cpu: '1' } }) },
      { title: 'a class without overhead or scheduling changes nothing', method: 'POST', path: PODS, body: pod('i', { runtimeClassName: '{ns}-plain' }) },
      { title: 'an update does not re-run it', method: 'PATCH', path: `${PODS}/a`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { x: 'y' } } } },
    ],
  },
  {
    name: 'admission: PersistentVolumeClaimResize refuses growing a claim whose class does not allow expansion',
    setup: [
      { method: 'POST', path: '/apis/storage.k8s.io/v1/storageclasses', body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: '{ns}-fixed' }, provisioner: 'example.com/p' } },
      {
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/persistentvolumeclaims',
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'f' }, spec: { storageClassName: '{ns}-fixed', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      },
      { method: 'PATCH', path: '/api/v1/namespaces/{ns}/persistentvolumeclaims/f/status', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { phase: 'Bound' } } },
    ],
    cleanup: [{ method: 'DELETE', path: '/apis/storage.k8s.io/v1/storageclasses/{ns}-fixed' }],
    steps: [
      {
        title: 'growing the bound claim is refused',
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}/persistentvolumeclaims/f',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: { spec: { resources: { requests: { storage: '2Gi' } } } },
      },
    ],
  },
  {
    name: 'admission: CertificateSubjectRestriction, CertificateApproval and CertificateSigning',
    setup: [
      {
        method: 'POST',
        path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: '{ns}-csr' },
          rules: [
            { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'update', 'patch'] },
            { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] },
            { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['other.io/x'], verbs: ['sign'] },
          ],
        },
      },
      {
        method: 'POST',
        path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: '{ns}-csr' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: '{ns}-csr' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: '{ns}-user' }],
        },
      },
      { method: 'POST', path: CSR, body: csr('{ns}-a', 'example.com/a', USER_REQUEST) },
      { method: 'POST', path: CSR, body: csr('{ns}-b', 'other.io/y', USER_REQUEST) },
      { method: 'GET', path: `${CSR}/{ns}-a`, headers: AS_USER, until: { path: 'kind', equals: 'CertificateSigningRequest' } },
    ],
    cleanup: [
      { method: 'DELETE', path: `${CSR}/{ns}-a` },
      { method: 'DELETE', path: `${CSR}/{ns}-b` },
      { method: 'DELETE', path: `${CSR}/{ns}-m` },
      { method: 'DELETE', path: `${CSR}/{ns}-ok` },
      { method: 'DELETE', path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{ns}-csr' },
      { method: 'DELETE', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/{ns}-csr' },
    ],
    steps: [
      { title: 'kube-apiserver-client with system:masters is refused', method: 'POST', path: CSR, body: csr('{ns}-m', 'kubernetes.io/kube-apiserver-client', MASTERS_REQUEST) },
      { title: 'kube-apiserver-client with other groups is accepted', method: 'POST', path: CSR, body: csr('{ns}-ok', 'kubernetes.io/kube-apiserver-client', USER_REQUEST) },
      { title: 'approving without approve on the signer is refused', method: 'PUT', path: `${CSR}/{ns}-b/approval`, headers: AS_USER, body: approved('{ns}-b', 'other.io/y') },
      { title: 'approve on <domain>/* is enough', method: 'PUT', path: `${CSR}/{ns}-a/approval`, headers: AS_USER, body: approved('{ns}-a', 'example.com/a'), mask: ['"lastUpdateTime":"[^"]*"', '"lastTransitionTime":"[^"]*"'] },
      {
        title: 'signing (a condition on /status) without sign on the signer is refused',
        method: 'PATCH',
        path: `${CSR}/{ns}-a/status`,
        headers: { ...AS_USER, 'Content-Type': 'application/json-patch+json' },
        body: [{ op: 'add', path: '/status/conditions/-', value: { type: 'Failed', status: 'True', reason: 'X', message: 'y' } }],
      },
      { title: 'a status update that changes nothing is not signing', method: 'PATCH', path: `${CSR}/{ns}-b/status`, headers: { ...AS_USER, 'Content-Type': 'application/merge-patch+json' }, body: { status: {} } },
    ],
  },
];
