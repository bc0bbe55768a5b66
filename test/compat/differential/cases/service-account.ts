// Differential cases for ServiceAccount admission (issue 19): the default
// account, the projected token volume (its random suffix masked) and its
// mounts in init containers and containers, a container that already mounts
// the token path, automount opt-outs on the pod and on the account, image pull
// secrets copied from the account, a missing account's Forbidden, mountable
// secrets enforced by the account's annotation.

import type { DiffCase } from '../case.js';

const PODS = '/api/v1/namespaces/{ns}/pods';
const SAS = '/api/v1/namespaces/{ns}/serviceaccounts';
const TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

export const cases: DiffCase[] = [
  {
    name: 'service account admission: default account and token volume',
    setup: [
      { method: 'POST', path: SAS, body: { metadata: { name: 'quiet' }, automountServiceAccountToken: false } },
      { method: 'POST', path: SAS, body: { metadata: { name: 'puller' }, imagePullSecrets: [{ name: 'registry' }] } },
    ],
    steps: [
      {
        title: 'init containers, containers, an existing mount at the token path',
        method: 'POST',
        path: PODS,
        body: pod('p', {
          initContainers: [{ name: 'i', image: 'busybox' }],
          containers: [{ name: 'c', image: 'nginx' }, { name: 'd', image: 'nginx', volumeMounts: [{ name: 'x', mountPath: TOKEN_PATH }] }],
          volumes: [{ name: 'x', emptyDir: {} }],
        }),
      },
      { title: 'automount off on the pod', method: 'POST', path: PODS, body: pod('off', { automountServiceAccountToken: false }) },
      { title: 'automount off on the account', method: 'POST', path: PODS, body: pod('quiet', { serviceAccountName: 'quiet' }) },
      { title: "the pod's automount wins", method: 'POST', path: PODS, body: pod('wins', { serviceAccountName: 'quiet', automountServiceAccountToken: true }) },
      { title: "the account's image pull secrets", method: 'POST', path: PODS, body: pod('pull', { serviceAccountName: 'puller' }) },
      { title: 'an existing kube-api-access volume is reused', method: 'POST', path: PODS, body: pod('reuse', { volumes: [{ name: 'kube-api-access-mine', emptyDir: {} }] }) },
      { title: 'the deprecated serviceAccount field names the account', method: 'POST', path: PODS, body: pod('old', { serviceAccount: 'quiet' }) },
      { title: 'a missing account', method: 'POST', path: PODS, body: pod('ghost', { serviceAccountName: 'ghost' }) },
      { title: 'nothing written for it', method: 'GET', path: `${PODS}/ghost` },
    ],
  },
  {
    name: 'service account admission: mountable secrets',
    setup: [
      {
        method: 'POST',
        path: SAS,
        body: { metadata: { name: 'strict', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }] },
      },
    ],
    steps: [
      { title: 'a listed secret volume', method: 'POST', path: PODS, body: pod('ok', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }) },
      { title: 'an unlisted secret volume', method: 'POST', path: PODS, body: pod('vol', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }) },
      {
        title: 'an unlisted secret in an init container env',
        method: 'POST',
        path: PODS,
        body: pod('env', {
          serviceAccountName: 'strict',
          initContainers: [{ name: 'i', image: 'busybox', env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }],
        }),
      },
      { title: 'an unlisted image pull secret', method: 'POST', path: PODS, body: pod('pull', { serviceAccountName: 'strict', imagePullSecrets: [{ name: 'reg' }] }) },
    ],
  },
];
