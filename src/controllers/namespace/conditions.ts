// Namespace deletion conditions, as upstream's namespace controller writes
// them (pkg/controller/namespace/deletion/status_condition_utils.go).
//
// One deletion pass collects what went wrong (discovery, group-version
// parsing, per-resource delete errors) and what remains (instances per
// resource, instances per finalizer); apply() folds that into the namespace's
// status.conditions. Every one of the five condition types is always present
// after a pass: True with a failure reason while it applies, False with its
// success reason and message otherwise. lastTransitionTime changes only when
// the status flips; reason and message follow the latest pass.

import type { NamespaceCondition } from '../../api/core/v1/types.js';

export const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

export type DeletionConditionType = (typeof CONDITION_TYPES)[number];

const OK_REASONS: Record<DeletionConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};

const OK_MESSAGES: Record<DeletionConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure: 'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};

/** What one deletion pass found. */
export interface DeletionReport {
  /** The discovery failure message, if discovery failed for some groups. */
  discoveryFailure?: string;
  /** The group-version parsing failure message, if any. */
  groupVersionFailure?: string;
  /** One message per resource type whose content could not be deleted. */
  contentFailures: string[];
  /** "configmaps." style resource id → instances remaining. */
  remainingByResource: Map<string, number>;
  /** finalizer → instances still carrying it. */
  remainingByFinalizer: Map<string, number>;
}

export function emptyReport(): DeletionReport {
  return { contentFailures: [], remainingByResource: new Map(), remainingByFinalizer: new Map() };
}

/** The failing conditions of a report (True), by type. */
function failing(report: DeletionReport, now: string): Map<DeletionConditionType, NamespaceCondition> {
  const out = new Map<DeletionConditionType, NamespaceCondition>();
  const put = (type: DeletionConditionType, reason: string, message: string): void => {
    out.set(type, { type, status: 'True', lastTransitionTime: now, reason, message: bounded(message) });
  };
  if (report.discoveryFailure !== undefined) put('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', report.discoveryFailure);
  if (report.groupVersionFailure !== undefined) {
    put('NamespaceDeletionGroupVersionParsingFailure', 'GroupVersionParsingFailed', report.groupVersionFailure);
  }
  if (report.contentFailures.length > 0) {
    const messages = [...report.contentFailures].sort();
    put(
      'NamespaceDeletionContentFailure',
      'ContentDeletionFailed',
      `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`,
    );
  }
  const resources = [...report.remainingByResource].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`);
  if (report.remainingByResource.size > 0) {
    put('NamespaceContentRemaining', 'SomeResourcesRemain', `Some resources are remaining: ${resources.sort().join(', ')}`);
  }
  const finalizers = [...report.remainingByFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
  if (report.remainingByFinalizer.size > 0) {
    put(
      'NamespaceFinalizersRemaining',
      'SomeFinalizersRemain',
      `Some content in the namespace has finalizers remaining: ${finalizers.sort().join(', ')}`,
    );
  }
  return out;
}

/**
 * The longest condition message written. Upstream's messages list every
 * failure and finalizer; a namespace holding thousands of finalizers (or an
 * error quoting a large object) would make its own status too large to store,
 * and the controller could never record why it waits. Past this length the
 * message is cut, saying how much was left out; shorter ones are upstream's.
 */
export const MAX_CONDITION_MESSAGE = 4096;

function bounded(message: string): string {
  if (message.length <= MAX_CONDITION_MESSAGE) return message;
  const omitted = message.length - MAX_CONDITION_MESSAGE;
  return `${message.slice(0, MAX_CONDITION_MESSAGE)}… (${omitted} more characters)`;
}

/**
 * Folds a pass's report into `conditions` (changed in place, appended to as
 * needed); returns whether anything changed. `now` is an RFC 3339 time.
 */
export function applyDeletionConditions(conditions: NamespaceCondition[], report: DeletionReport, now: string): boolean {
  const bad = failing(report, now);
  let changed = false;
  for (const type of CONDITION_TYPES) {
    const next: NamespaceCondition = bad.get(type) ?? {
      type,
      status: 'False',
      lastTransitionTime: now,
      reason: OK_REASONS[type],
      message: OK_MESSAGES[type],
    };
    const old = conditions.find((c) => c.type === type);
    if (old === undefined) {
      conditions.push(next);
      changed = true;
      continue;
    }
    if (old.status === next.status && old.reason === next.reason && old.message === next.message) continue;
    if (old.status !== next.status) old.lastTransitionTime = now;
    old.status = next.status;
    old.reason = next.reason;
    old.message = next.message;
    changed = true;
  }
  return changed;
}
