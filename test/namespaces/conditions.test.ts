// The deletion conditions as upstream's namespace controller writes them:
// all five types present after a pass, True with failure reasons while they
// apply, False with success reasons after, lastTransitionTime moving only
// when the status flips. (Discovery and group-version failures cannot be
// caused on a healthy apiary, so their wording is checked here.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NamespaceCondition } from '../../src/api/core/v1/types.js';
import { CONDITION_TYPES, applyDeletionConditions, emptyReport } from '../../src/controllers/namespace/conditions.js';
import { parseGroupVersion } from '../../src/controllers/namespace/deleter.js';

const T1 = '2025-01-01T00:00:00Z';
const T2 = '2025-01-01T00:00:10Z';
const T3 = '2025-01-01T00:00:20Z';

test('a failing pass, then a clean pass: True with failure reasons, then False with success reasons', () => {
  const conditions: NamespaceCondition[] = [];
  const report = emptyReport();
  report.discoveryFailure = 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: boom';
  report.groupVersionFailure = 'unexpected GroupVersion string: a/b/c';
  report.contentFailures.push('z error', 'a error');
  report.remainingByResource.set('configmaps.', 3);
  report.remainingByResource.set('deployments.apps', 1);
  report.remainingByFinalizer.set('example.com/x', 1);
  report.remainingByFinalizer.set('a.io/y', 2);
  assert.equal(applyDeletionConditions(conditions, report, T1), true);
  assert.deepEqual(conditions.map((c) => c.type), [...CONDITION_TYPES]);
  const by = (type: string) => conditions.find((c) => c.type === type)!;
  assert.deepEqual(by('NamespaceDeletionDiscoveryFailure'), { type: 'NamespaceDeletionDiscoveryFailure', status: 'True', lastTransitionTime: T1, reason: 'DiscoveryFailed', message: report.discoveryFailure });
  assert.equal(by('NamespaceDeletionGroupVersionParsingFailure').reason, 'GroupVersionParsingFailed');
  assert.equal(by('NamespaceDeletionContentFailure').message, 'Failed to delete all resource types, 2 remaining: a error, z error');
  assert.equal(by('NamespaceContentRemaining').message, 'Some resources are remaining: configmaps. has 3 resource instances, deployments.apps has 1 resource instances');
  assert.equal(by('NamespaceFinalizersRemaining').message, 'Some content in the namespace has finalizers remaining: a.io/y in 2 resource instances, example.com/x in 1 resource instances');

  // The same report again: nothing changes.
  assert.equal(applyDeletionConditions(conditions, report, T2), false);

  // Counts change: message follows, lastTransitionTime stays.
  report.remainingByResource.set('configmaps.', 2);
  assert.equal(applyDeletionConditions(conditions, report, T2), true);
  assert.equal(by('NamespaceContentRemaining').lastTransitionTime, T1);

  assert.equal(applyDeletionConditions(conditions, emptyReport(), T3), true);
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime]),
    [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered', T3],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed', T3],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization', T3],
      ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed', T3],
      ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished', T3],
    ],
  );
});

test('group versions parse as upstream: "v1", "apps/v1"; anything else fails with its message', () => {
  assert.deepEqual(parseGroupVersion('v1'), { group: '', version: 'v1' });
  assert.deepEqual(parseGroupVersion('apps/v1'), { group: 'apps', version: 'v1' });
  assert.throws(() => parseGroupVersion('a/b/c'), { message: 'unexpected GroupVersion string: a/b/c' });
});
