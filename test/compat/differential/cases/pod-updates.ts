// Pod updates beyond images, as kube-apiserver 1.32 answers them:
// tolerations may only be added, activeDeadlineSeconds may only shrink,
// scheduling gates may only be removed; ephemeral containers through their
// subresource, with the fields they may not have.

import type { DiffCase } from '../case.js';

const PODS = '/api/v1/namespaces/{ns}/pods';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSONPATCH = { 'content-type': 'application/json-patch+json' };

export const cases: DiffCase[] = [
  {
    name: 'pod updates: tolerations, deadlines, gates, ephemeral containers',
    setup: [
      {
        method: 'POST',
        path: PODS,
        body: {
          apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
          spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }], activeDeadlineSeconds: 100, tolerations: [{ key: 'a', operator: 'Exists' }], schedulingGates: [{ name: 'example.com/gate' }] },
        },
      },
    ],
    steps: [
      { title: 'a toleration added', method: 'PATCH', path: `${PODS}/p`, headers: JSONPATCH, body: [{ op: 'add', path: '/spec/tolerations/-', value: { key: 'b', operator: 'Exists' } }], select: 'spec.tolerations' },
      { title: 'a toleration removed', method: 'PATCH', path: `${PODS}/p?dryRun=All`, headers: JSONPATCH, body: [{ op: 'remove', path: '/spec/tolerations/0' }] },
      { title: 'the deadline raised', method: 'PATCH', path: `${PODS}/p?dryRun=All`, headers: MERGE, body: { spec: { activeDeadlineSeconds: 200 } } },
      { title: 'the deadline lowered', method: 'PATCH', path: `${PODS}/p`, headers: MERGE, body: { spec: { activeDeadlineSeconds: 50 } }, select: 'spec.activeDeadlineSeconds' },
      { title: 'a scheduling gate added', method: 'PATCH', path: `${PODS}/p?dryRun=All`, headers: JSONPATCH, body: [{ op: 'add', path: '/spec/schedulingGates/-', value: { name: 'example.com/other' } }] },
      { title: 'the scheduling gate removed', method: 'PATCH', path: `${PODS}/p`, headers: MERGE, body: { spec: { schedulingGates: null } }, select: 'spec.schedulingGates' },
      {
        title: 'an ephemeral container with ports, probes and resources',
        method: 'PATCH',
        path: `${PODS}/p/ephemeralcontainers`,
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: { spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox', ports: [{ containerPort: 80 }], readinessProbe: { exec: { command: ['true'] } }, resources: { limits: { cpu: '1' } } }] } },
      },
      {
        title: 'an ephemeral container named as a container',
        method: 'PATCH',
        path: `${PODS}/p/ephemeralcontainers`,
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: { spec: { ephemeralContainers: [{ name: 'main', image: 'busybox' }] } },
      },
      {
        title: 'a valid ephemeral container',
        method: 'PATCH',
        path: `${PODS}/p/ephemeralcontainers`,
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: { spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'main' }] } },
        select: 'spec.ephemeralContainers',
      },
    ],
  },
];
