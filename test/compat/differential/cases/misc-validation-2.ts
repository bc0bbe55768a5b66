// More validation as kube-apiserver 1.32 words it: endpoint slices, events,
// webhook configurations, ingress and runtime classes, CSI objects, quota
// scopes and limit ranges. Dry-run creates.

import type { DiffCase } from '../case.js';

const post = (title: string, path: string, body: Record<string, unknown>) => ({ title, method: 'POST' as const, path: `${path}?dryRun=All`, body });
const NS = '/namespaces/{ns}';

export const cases: DiffCase[] = [
  {
    name: 'misc validation 2: discovery, events, admission, node, storage, quota',
    steps: [
      post('EndpointSlice: an unknown address type, an endpoint without addresses, a bad port', `/apis/discovery.k8s.io/v1${NS}/endpointslices`, {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'e' }, addressType: 'IPv5', endpoints: [{ addresses: [] }], ports: [{ port: 70000, protocol: 'ICMP' }],
      }),
      post('events.k8s.io Event: no reportingController, an unknown type', `/apis/events.k8s.io/v1${NS}/events`, {
        apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev' }, eventTime: '2026-01-01T00:00:00.000000Z', type: 'Odd', action: 'a', reason: 'r', regarding: { kind: 'Pod', name: 'p' },
      }),
      post('ValidatingWebhookConfiguration: no clientConfig target, an unknown failure policy, no sideEffects', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'diff-vwc' },
        webhooks: [{ name: 'nodots', clientConfig: {}, admissionReviewVersions: ['v1'], failurePolicy: 'Maybe', rules: [{ operations: ['MAKE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }],
      }),
      post('IngressClass: a parameters reference without kind', '/apis/networking.k8s.io/v1/ingressclasses', {
        apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'diff-ic' }, spec: { controller: 'Bad Controller', parameters: { name: 'p' } },
      }),
      post('RuntimeClass: a bad handler, a negative overhead', '/apis/node.k8s.io/v1/runtimeclasses', {
        apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'diff-rc' }, handler: 'Bad_Handler', overhead: { podFixed: { cpu: '-1' } },
      }),
      post('CSIDriver: an unknown fsGroupPolicy and lifecycle mode', '/apis/storage.k8s.io/v1/csidrivers', {
        apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'diff.csi.example.com' }, spec: { fsGroupPolicy: 'Sometimes', volumeLifecycleModes: ['Forever'] },
      }),
      post('ResourceQuota: a scope the resources do not support, an unknown scope selector operator', `/api/v1${NS}/resourcequotas`, {
        apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { configmaps: '1' }, scopes: ['Terminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Near', values: ['x'] }] } },
      }),
      post('LimitRange: min above max, an unknown type', `/api/v1${NS}/limitranges`, {
        apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }, { type: 'Node' }] },
      }),
      post('VolumeAttachment: no attacher, no source', '/apis/storage.k8s.io/v1/volumeattachments', {
        apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'diff-va' }, spec: { nodeName: 'n', source: {} },
      }),
    ],
  },
];
