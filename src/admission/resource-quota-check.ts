// One request against a namespace's quotas (upstream CheckRequest in
// k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go), pure:
// given the quotas as last seen and the request, either refuse it with
// upstream's message or return the quotas with the request's usage added to
// status.used. The caller writes the changed quotas back with a
// compare-and-swap (resource-quota.ts).
//
// Only status.hard restricts: a quota the controller has not filled yet
// restricts nothing. A quota matching the object but lacking status.used for
// one of its names refuses ("status unknown"). Usage is the object's (minus
// the old object's on UPDATE, never below zero per name); zero deltas admit.

import { StatusError, forbidden } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import type { ResourceList, ResourceQuota } from '../api/core/v1/types.js';
import {
  type Evaluator,
  type ScopeSelectorRequirement,
  quotaMatches,
  scopeSelectorsOf,
} from '../api/quota/v1/evaluators.js';
import {
  type Usage,
  add,
  fromWire,
  lessThanOrEqual,
  mask,
  negativeNames,
  prettyPrint,
  prettyPrintNames,
  removeZeros,
  subtractNonNegative,
  toWire,
} from '../api/quota/v1/resources.js';
import type { LimitedResource } from './resource-quota-config.js';
import type { AdmissionAttributes } from './interface.js';

/**
 * Parsed status lists, by list object. A batch checks request after request
 * against the same quota versions, and each charged version's `used` is made
 * here from a Usage already in hand: parsing every quantity for every request
 * was a fifth of what a quota'd create cost. Quota objects are copied, never
 * edited in place, and Usages are never changed, so an entry cannot go stale.
 */
const PARSED = new WeakMap<ResourceList, Usage>();

function parsed(list: ResourceList | undefined): Usage {
  if (list === undefined) return fromWire(undefined);
  let usage = PARSED.get(list);
  if (usage === undefined) {
    usage = fromWire(list);
    PARSED.set(list, usage);
  }
  return usage;
}

/** The name admission errors carry: the request's name, else the object's generateName, else "Unknown". */
export function nameForErrors(a: AdmissionAttributes): string {
  if (a.name !== '') return a.name;
  return a.object?.metadata.name || a.object?.metadata.generateName || 'Unknown';
}

export function quotaForbidden(a: AdmissionAttributes, reason: string): StatusError {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForErrors(a), reason);
}

function limitedFor(limited: readonly LimitedResource[], a: AdmissionAttributes): LimitedResource[] {
  return limited.filter((l) => (l.apiGroup ?? '') === a.resource.group && l.resource === a.resource.resource);
}

/** Names with positive usage that contain one of a limited resource's matchContains strings. */
function limitedByDefault(usage: Usage, limited: readonly LimitedResource[]): string[] {
  const out: string[] = [];
  for (const l of limited) {
    for (const [name, q] of usage) {
      if (q.sign() === 1 && (l.matchContains ?? []).some((m) => name.includes(m))) out.push(name);
    }
  }
  return out;
}

function matchedLimitedScopes(evaluator: Evaluator, obj: KubeObject, limited: readonly LimitedResource[]): ScopeSelectorRequirement[] {
  const out: ScopeSelectorRequirement[] = [];
  for (const l of limited) {
    for (const s of l.matchScopes ?? []) if (evaluator.matchesScope(s, obj)) out.push(s);
  }
  return out;
}

/** Go's %v of a []ScopedResourceSelectorRequirement: [{PriorityClass In [high]}]. */
function formatScopes(scopes: readonly ScopeSelectorRequirement[]): string {
  return `[${scopes.map((s) => `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/** How a refusal names a ResourceQuota: `quota: <name>` ("exceeded quota: <name>, requested: …"). */
export function referToQuota(quota: ResourceQuota): string {
  return `quota: ${quota.metadata.name ?? ''}`;
}

/**
 * The quotas after charging this request, or a StatusError refusing it.
 * `quotas` is not changed; unchanged quotas come back as the same objects.
 * `refer` names a quota in the messages (after "exceeded ", "failed ",
 * "status unknown for "): hierarchical quotas are named with their namespace.
 */
export function checkRequest(
  quotas: readonly ResourceQuota[],
  a: AdmissionAttributes,
  evaluator: Evaluator,
  limited: readonly LimitedResource[],
  refer: (quota: ResourceQuota) => string = referToQuota,
): ResourceQuota[] {
  const input = quotas.slice();
  if (!evaluator.handles(a.operation, a.subresource) || a.object === undefined) return input;
  const obj = a.object;
  const objLimited = limitedFor(limited, a);
  const limitedScopes = matchedLimitedScopes(evaluator, obj, limited.filter((l) => (l.apiGroup ?? '') === a.resource.group && l.resource === a.resource.resource));
  const limitedNames = objLimited.length > 0 ? new Set(limitedByDefault(evaluator.usage(obj), objLimited)) : new Set<string>();

  const interesting: number[] = [];
  const restrictedResources = new Set<string>();
  const restrictedScopes: ScopeSelectorRequirement[] = [];
  quotas.forEach((quota, i) => {
    for (const s of scopeSelectorsOf(quota)) if (evaluator.matchesScope(s, obj)) restrictedScopes.push(s);
    if (!quotaMatches(evaluator, quota, obj)) return;
    const hard = Object.keys(quota.status?.hard ?? {});
    const restricted = evaluator.matchingResources(hard);
    const failed = evaluator.constraints(restricted, obj);
    if (failed !== undefined) throw quotaForbidden(a, `failed ${refer(quota)}: ${failed}`);
    const used = quota.status?.used ?? {};
    if (restricted.some((r) => used[r] === undefined)) {
      throw quotaForbidden(a, `status unknown for ${refer(quota)}, resources: ${prettyPrintNames(restricted)}`);
    }
    interesting.push(i);
    for (const r of restricted) restrictedResources.add(r);
  });

  let delta = evaluator.usage(obj);
  const negative = negativeNames(delta);
  if (negative.length > 0) throw quotaForbidden(a, `quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);
  if (a.operation === 'UPDATE') {
    const old = a.oldObject;
    if (old === undefined) throw quotaForbidden(a, 'unable to get previous usage since prior version of object was not found');
    if ((old.metadata.resourceVersion ?? '') !== '') delta = subtractNonNegative(delta, evaluator.usage(old));
  }
  delta = removeZeros(delta);
  if (delta.size === 0) return input;

  const uncovered = [...limitedNames].filter((n) => !restrictedResources.has(n));
  if (uncovered.length > 0) throw quotaForbidden(a, `insufficient quota to consume: ${[...new Set(uncovered)].sort().join(',')}`);
  const uncoveredScopes = limitedScopes.filter((s) => !restrictedScopes.some((m) => m.scopeName === s.scopeName));
  if (uncoveredScopes.length > 0) // A plain error upstream: the handler answers 500 with no reason and the bare message.
    throw new StatusError(500, '', `insufficient quota to match these scopes: ${formatScopes(uncoveredScopes)}`);

  const out = input;
  for (const i of interesting) {
    const quota = quotas[i]!;
    const hard = parsed(quota.status?.hard);
    const used = parsed(quota.status?.used);
    const requested = mask(delta, hard.keys());
    if (requested.size === 0) continue;
    const newUsage = add(used, requested);
    const exceeded = lessThanOrEqual(mask(newUsage, requested.keys()), hard);
    if (exceeded.length > 0) {
      throw quotaForbidden(
        a,
        `exceeded ${refer(quota)}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`,
      );
    }
    const wire = toWire(newUsage);
    PARSED.set(wire, newUsage);
    out[i] = { ...quota, status: { ...quota.status, used: wire } };
  }
  return out;
}
