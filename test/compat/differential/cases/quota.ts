// Differential cases for ResourceQuota and LimitRange (issue 20). Verified by
// hand against kube-apiserver v1.32.4 with its kube-controller-manager.
//
// The differential test's reference runs no quota controller (and apiary's
// side none either); a reference that does (a full cluster) fills a quota's
// status asynchronously. These cases hold either way:
// - validation answers (422) do not depend on status at all;
// - LimitRanger reads a namespace's LimitRanges live when its informer holds
//   none (each case has a fresh namespace), so a LimitRange made in setup
//   applies to the first step;
// - the one quota-exceeded case uses a quota whose true status is known in
//   advance (hard 0, used 0) and writes that status itself in setup, so
//   whichever write lands last — a controller's or the setup's — the status
//   is the same; setup then waits until a read shows it, and reads
//   once more, which gives the reference's admission informer time to see
//   it (it refuses nothing while it holds the quota without status).

import type { DiffCase } from '../case.js';

const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

const limitRange = {
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: { name: 'lr' },
  spec: {
    limits: [
      {
        type: 'Container',
        default: { cpu: '500m', memory: '256Mi' },
        defaultRequest: { cpu: '100m' },
        max: { cpu: '1' },
        min: { cpu: '50m' },
        maxLimitRequestRatio: { cpu: '5' },
      },
      { type: 'Pod', max: { memory: '1Gi' } },
      { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '5Gi' } },
    ],
  },
};

export const cases: DiffCase[] = [
  {
    name: 'quota: invalid specs are 422 with upstream causes',
    steps: [
      {
        title: 'unknown resource name, unknown scope',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/resourcequotas',
        body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad4' }, spec: { hard: { pods: '1', foo: '1' }, scopes: ['Bogus'] } },
      },
      {
        title: 'object counts must be integers',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/resourcequotas',
        body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad3' }, spec: { hard: { configmaps: '1500m' } } },
      },
      {
        title: 'negative quantity, a scope that does not fit, conflicting scopes',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/resourcequotas',
        body: {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          metadata: { name: 'bad1' },
          spec: { hard: { pods: '-1', 'requests.cpu': '1' }, scopes: ['BestEffort', 'NotBestEffort'] },
        },
      },
      {
        title: 'scope selector operators and values',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/resourcequotas',
        body: {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          metadata: { name: 'bad2' },
          spec: {
            hard: { pods: '1' },
            scopeSelector: {
              matchExpressions: [
                { scopeName: 'NotTerminating', operator: 'Foo' },
                { scopeName: 'PriorityClass', operator: 'Bar', values: ['a'] },
                { scopeName: 'PriorityClass', operator: 'In' },
                { scopeName: 'Terminating', operator: 'Exists', values: ['x'] },
              ],
            },
          },
        },
      },
    ],
  },
  {
    name: 'quota: scopes are immutable, status is validated on /status',
    setup: [
      {
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/resourcequotas',
        body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'scoped' }, spec: { hard: { pods: '3' }, scopes: ['BestEffort'] } },
      },
    ],
    steps: [
      {
        title: 'changing spec.scopes',
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}/resourcequotas/scoped',
        headers: mergePatch,
        body: { spec: { scopes: ['NotTerminating'] } },
      },
      {
        title: 'a negative used on /status',
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}/resourcequotas/scoped/status',
        headers: mergePatch,
        body: { status: { used: { pods: '-1' } } },
      },
    ],
  },
  {
    name: 'quota: a create beyond a full quota is 403 with the exceeded message',
    setup: [
      {
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/resourcequotas',
        body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'count/secrets': '0' } } },
      },
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}/resourcequotas/q/status',
        headers: mergePatch,
        body: { status: { hard: { 'count/secrets': '0' }, used: { 'count/secrets': '0' } } },
      },
      { method: 'GET', path: '/api/v1/namespaces/{ns}/resourcequotas/q', until: { path: 'status.used.count/secrets', equals: '0' } },
      { method: 'GET', path: '/api/v1/namespaces/{ns}/secrets' },
    ],
    steps: [
      {
        title: 'a secret against count/secrets=0',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/secrets',
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { a: 'b' } },
      },
      {
        title: 'dryRun is checked as well',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/secrets?dryRun=All',
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2' } },
      },
    ],
  },
  {
    name: 'limitrange: min, max and ratio violations of containers, pods and claims',
    setup: [{ method: 'POST', path: '/api/v1/namespaces/{ns}/limitranges', body: limitRange }],
    steps: [
      {
        title: 'the LimitRange as stored, defaults filled',
        method: 'GET',
        path: '/api/v1/namespaces/{ns}/limitranges/lr',
      },
      {
        title: 'container and pod violations in one message',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'bad' },
          spec: {
            initContainers: [{ name: 'i1', image: 'busybox', resources: { requests: { cpu: '10m' }, limits: { cpu: '2' } } }],
            containers: [{ name: 'c1', image: 'nginx', resources: { requests: { cpu: '10m', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } } }],
          },
        },
      },
      {
        title: 'a claim below the minimum',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/persistentvolumeclaims',
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'small' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '100Mi' } } } },
      },
      {
        title: 'a claim above the maximum',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/persistentvolumeclaims',
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'bigger' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } },
      },
    ],
  },
];
