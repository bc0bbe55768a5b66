// Resource-specific behaviour beyond the common verbs: service IP and port
// allocation and their immutability, pod updates and graceful deletion,
// secrets' stringData and immutability, generateName.

import type { DiffCase } from '../case.js';

const SVC = '/api/v1/namespaces/{ns}/services';
const PODS = '/api/v1/namespaces/{ns}/pods';
const SECRETS = '/api/v1/namespaces/{ns}/secrets';
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
      { title: 'an immutable secret', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'frozen' }, immutable: true, data: { a: 'YQ==' } } },
      { title: 'changing an immutable secret', method: 'PATCH', path: `${SECRETS}/frozen`, headers: MERGE, body: { data: { a: 'Yg==' } } },
      { title: 'changing the type of a secret', method: 'PATCH', path: `${SECRETS}/s`, headers: MERGE, body: { type: 'example.com/other' } },
      { title: 'generateName on a secret', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'gen-' }, stringData: { k: 'v' } } },
      { title: 'binaryData on a configmap', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin' }, binaryData: { blob: 'AAEC' } } },
      { title: 'a configmap over 1 MiB', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } } },
    ],
  },
];
