// The aggregator's discovery merging, as pure functions: Kubernetes version
// order, groups by priority, versions by priority then version order, and
// an extension's APIResourceList as one aggregated discovery version.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregatedVersion, compareKubeVersions, groupsOf } from '../../src/server/aggregator/discovery.js';
import type { KubeObject } from '../../src/machinery/meta.js';

test('Kubernetes version order: GA, then beta, then alpha, higher numbers first, other names last', () => {
  const versions = ['v1alpha1', 'foo', 'v2beta1', 'v1', 'v1beta2', 'v2', 'v1beta1', 'bar', 'v11alpha2'];
  assert.deepEqual([...versions].sort(compareKubeVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
});

test('groups by their highest groupPriorityMinimum, versions by versionPriority then version order', () => {
  const svc = (name: string, group: string, version: string, gp: number, vp: number): KubeObject =>
    ({ metadata: { name }, spec: { group, version, groupPriorityMinimum: gp, versionPriority: vp } }) as unknown as KubeObject;
  const groups = groupsOf([
    svc('v1alpha1.b.example.com', 'b.example.com', 'v1alpha1', 100, 10),
    svc('v1.b.example.com', 'b.example.com', 'v1', 100, 10),
    svc('v1beta1.b.example.com', 'b.example.com', 'v1beta1', 200, 20),
    svc('v1.a.example.com', 'a.example.com', 'v1', 150, 15),
    svc('v1.c.example.com', 'c.example.com', 'v1', 150, 15),
  ]);
  assert.deepEqual(groups.map((g) => [g.group, g.versions.map((v) => v.version)]), [
    ['b.example.com', ['v1beta1', 'v1', 'v1alpha1']],
    ['a.example.com', ['v1']],
    ['c.example.com', ['v1']],
  ]);
});

test('an APIResourceList becomes an aggregated version: subresources under their resource, sorted', () => {
  const version = aggregatedVersion('v1', {
    resources: [
      { name: 'widgets/status', namespaced: true, kind: 'Widget', verbs: ['get', 'patch'] },
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list'], shortNames: ['wd'], categories: ['all'] },
      { name: 'gadgets', singularName: 'gadget', namespaced: false, group: 'g.example.com', version: 'v1', kind: 'Gadget', verbs: ['get'] },
    ],
  }, 'Stale');
  assert.deepEqual(version, {
    version: 'v1',
    freshness: 'Stale',
    resources: [
      { resource: 'gadgets', responseKind: { group: 'g.example.com', version: 'v1', kind: 'Gadget' }, scope: 'Cluster', singularResource: 'gadget', verbs: ['get'] },
      {
        resource: 'widgets', responseKind: { group: '', version: '', kind: 'Widget' }, scope: 'Namespaced', singularResource: 'widget', verbs: ['get', 'list'], shortNames: ['wd'], categories: ['all'],
        subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Widget' }, verbs: ['get', 'patch'] }],
      },
    ],
  });
});
