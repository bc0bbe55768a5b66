// Resource-specific behaviour beyond the common verbs: service IP and port
// allocation and their immutability, pod updates and graceful deletion,
// secrets' stringData and immutability, generateName.

import type { DiffCase } from '../case.js';

const SVC = '/api/v1/namespaces/{ns}/services';
const PODS = '/api/v1/namespaces/{ns}/pods';
const SECRETS = '/api/v1/namespaces/{ns}/secrets';
// A self-signed EC certificate with its key, and another key (test fixtures, generated for these cases).
const TLS_CERT = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrekNDQVRtZ0F3SUJBZ0lVV2JVUDZaSzd5TXJqUWF6dm1OMWdFRWZFNFFzd0NnWUlLb1pJemowRUF3SXcKSGpFY01Cb0dBMVVFQXd3VFlYQnBZWEo1TFdScFptWmxjbVZ1ZEdsaGJEQWdGdzB5TmpFeE1qZ3dPRFV5TURkYQpHQTh5TVRJMk1URXdOREE0TlRJd04xb3dIakVjTUJvR0ExVUVBd3dUWVhCcFlYSjVMV1JwWm1abGNtVnVkR2xoCmJEQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJMM1o1bVZaempaaWpoM244ZW91M1dJRFViS0EKUmd0WHVWUEY4enFoWlhCWGk3eTFGTTB2TE0xcUs0UVdlZXhWU2dSMHpjeGR0OU4yUis3YitLOFIwNktqVXpCUgpNQjBHQTFVZERnUVdCQlRpYUhXekVERlVYMWlETWJNTHRWRHdsVW1GeVRBZkJnTlZIU01FR0RBV2dCVGlhSFd6CkVERlVYMWlETWJNTHRWRHdsVW1GeVRBUEJnTlZIUk1CQWY4RUJUQURBUUgvTUFvR0NDcUdTTTQ5QkFNQ0EwZ0EKTUVVQ0lRRFc3OHVvSnpSc09YQkkwdmZEQkZ3ZFNiekpqMlNSUlRGNnM1VThjemFjRUFJZ05hVEhlOTJoY2ZwegpjK2xjWHAvbStZTWhJK3pKNHFxSDE5cW1EMDQxcllZPQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==';
const TLS_KEY = 'LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUFJRTN4Zk9MSXdnSU1CMm5OS2RpNmM1RStydzBucE01V0IvN3lBYnZHRVNvQW9HQ0NxR1NNNDkKQXdFSG9VUURRZ0FFdmRubVpWbk9ObUtPSGVmeDZpN2RZZ05Sc29CR0MxZTVVOFh6T3FGbGNGZUx2TFVVelM4cwp6V29yaEJaNTdGVktCSFROekYyMzAzWkg3dHY0cnhIVG9nPT0KLS0tLS1FTkQgRUMgUFJJVkFURSBLRVktLS0tLQo=';
const OTHER_KEY = 'LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUs3RUEzcHAyTUM1SE51OFkrMHVVNmVaMUsrSXdHbkZ4MS84NkhUUEo2dHpvQW9HQ0NxR1NNNDkKQXdFSG9VUURRZ0FFMmo0WUVTNjJCTzZTWFVKSmtsUmlYM0FpMEFRTFFvSzM5WDdwUEx0UVBnN3FRcnJVUTdxRQo1czZwWmVVemVJS0h6ZTUxWjcyR1J5Y0FWZjNSL0ZiODNBPT0KLS0tLS1FTkQgRUMgUFJJVkFURSBLRVktLS0tLQo=';
const tlsSecret = (name: string, crt: string, key: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': crt, 'tls.key': key },
});
const MERGE = { 'content-type': 'application/merge-patch+json' };
const service = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const pod = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }], ...spec },
});

export const cases: DiffCase[] = [
  {
    name: 'services: allocation and immutability',
    steps: [
      { title: 'NodePort: a node port per port', method: 'POST', path: SVC, body: service('np', { type: 'NodePort', selector: { app: 'a' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] }) },
      { title: 'headless', method: 'POST', path: SVC, body: service('headless', { clusterIP: 'None', selector: { app: 'a' }, ports: [{ port: 80 }] }) },
      { title: 'ExternalName', method: 'POST', path: SVC, body: service('ext', { type: 'ExternalName', externalName: 'db.example.com' }) },
      { title: 'ExternalName without a name', method: 'POST', path: SVC, body: service('ext-bad', { type: 'ExternalName' }) },
      { title: 'LoadBalancer', method: 'POST', path: SVC, body: service('lb', { type: 'LoadBalancer', ports: [{ port: 80 }] }) },
      { title: 'a cluster IP outside the range', method: 'POST', path: SVC, body: service('outside', { clusterIP: '192.168.99.1', ports: [{ port: 80 }] }) },
      { title: 'a node port outside the range', method: 'POST', path: SVC, body: service('np-outside', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }) },
      { title: 'node ports on a ClusterIP service', method: 'POST', path: SVC, body: service('cip-np', { ports: [{ port: 80, nodePort: 30080 }] }) },
      { title: 'two ports with the same name', method: 'POST', path: SVC, body: service('dup', { ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] }) },
      { title: 'several ports without names', method: 'POST', path: SVC, body: service('unnamed', { ports: [{ port: 80 }, { port: 81 }] }) },
      // An address of the range's static band, which neither allocator hands out at random: one they
      // had allocated here would be masked on that side alone (it made this step flaky, about 1 run in 100).
      { title: 'changing the cluster IP', method: 'PATCH', path: `${SVC}/headless`, headers: MERGE, body: { spec: { clusterIP: '10.0.0.10', clusterIPs: ['10.0.0.10'] } } },
      { title: 'ClusterIP to ExternalName releases the IP', method: 'PATCH', path: `${SVC}/lb`, headers: MERGE, body: { spec: { type: 'ExternalName', externalName: 'x.example.com', clusterIP: '', clusterIPs: null, ports: null } } },
      { title: 'the services as a Table', method: 'GET', path: SVC, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, mask: ['^\\d+[smhd]$', '\\d{5}(?=/TCP)'] },
    ],
  },
  {
    name: 'pods: updates and graceful deletion',
    setup: [
      { method: 'POST', path: PODS, body: pod('scheduled', { nodeName: 'node-a' }) },
      { method: 'POST', path: PODS, body: pod('plain') },
    ],
    steps: [
      { title: 'an image change is allowed', method: 'PATCH', path: `${PODS}/plain`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { containers: [{ name: 'main', image: 'registry.example/app:2' }] } } },
      { title: 'other spec changes are forbidden', method: 'PATCH', path: `${PODS}/plain`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { restartPolicy: 'Never' } } },
      { title: 'binding by nodeName afterwards is forbidden', method: 'PATCH', path: `${PODS}/plain`, headers: MERGE, body: { spec: { nodeName: 'node-b' } } },
      { title: 'activeDeadlineSeconds may be set', method: 'PATCH', path: `${PODS}/plain`, headers: MERGE, body: { spec: { activeDeadlineSeconds: 60 } } },
      { title: 'a pod with two containers of the same name', method: 'POST', path: PODS, body: { ...pod('dup'), spec: { containers: [{ name: 'a', image: 'i' }, { name: 'a', image: 'i' }] } } },
      { title: 'a container without an image', method: 'POST', path: PODS, body: { ...pod('noimage'), spec: { containers: [{ name: 'a' }] } } },
      { title: 'a scheduled pod is deleted gracefully: it stays, marked', method: 'DELETE', path: `${PODS}/scheduled` },
      { title: 'the marked pod', method: 'GET', path: `${PODS}/scheduled` },
      { title: 'a shorter grace period', method: 'DELETE', path: `${PODS}/scheduled?gracePeriodSeconds=5` },
      { title: 'grace period 0 removes it', method: 'DELETE', path: `${PODS}/scheduled?gracePeriodSeconds=0` },
      { title: 'gone', method: 'GET', path: `${PODS}/scheduled` },
    ],
  },
  {
    name: 'secrets and configmaps: data forms and immutability',
    steps: [
      { title: 'stringData merges into data', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { a: 'over', b: 'bee' } } },
      { title: 'no type defaults to Opaque', method: 'GET', path: `${SECRETS}/s` },
      { title: 'a service account token secret without its annotation', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, type: 'kubernetes.io/service-account-token' } },
      { title: 'a docker config secret with bad JSON', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'docker' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'bm90IGpzb24=' } } },
      { title: 'a docker config secret that is a JSON array', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'docker-array' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'WzFd' } } },
      { title: 'a docker config secret that is empty', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'docker-empty' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': '' } } },
      { title: 'a TLS secret with empty values', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls-empty' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } } },
      { title: 'a TLS secret whose key and certificate make a pair', method: 'POST', path: SECRETS, body: tlsSecret('tls-pair', TLS_CERT, TLS_KEY) },
      { title: 'a TLS secret whose key is another one', method: 'POST', path: SECRETS, body: tlsSecret('tls-other', TLS_CERT, OTHER_KEY) },
      { title: 'a TLS secret with certificate and key switched', method: 'POST', path: SECRETS, body: tlsSecret('tls-switched', TLS_KEY, TLS_CERT) },
      { title: 'updating a TLS secret to another key warns too', method: 'PUT', path: `${SECRETS}/tls-pair`, body: tlsSecret('tls-pair', TLS_CERT, OTHER_KEY) },
      { title: 'a legacy dockercfg secret cut short', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dockercfg' }, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': 'eyJhIjo=' } } },
      { title: 'an immutable secret', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'frozen' }, immutable: true, data: { a: 'YQ==' } } },
      { title: 'changing an immutable secret', method: 'PATCH', path: `${SECRETS}/frozen`, headers: MERGE, body: { data: { a: 'Yg==' } } },
      { title: 'changing the type of a secret', method: 'PATCH', path: `${SECRETS}/s`, headers: MERGE, body: { type: 'example.com/other' } },
      { title: 'generateName on a secret', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'gen-' }, stringData: { k: 'v' } } },
      { title: 'binaryData on a configmap', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin' }, binaryData: { blob: 'AAEC' } } },
      { title: 'a configmap over 1 MiB', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } } },
    ],
  },
];
