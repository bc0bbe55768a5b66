// LimitRanger admission (upstream plugin/pkg/admission/limitranger), over the
// namespace's LimitRanges:
// - admit (mutating), pods on CREATE: every container and init container that
//   omits a limit or request named in a Container item's `default` /
//   `defaultRequest` gets it, and the pod is annotated
//   `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request
//   for container c; cpu limit for init container i`.
// - validate, pods on CREATE and PersistentVolumeClaims on CREATE and UPDATE:
//   Container items' min / max / maxLimitRequestRatio against each container;
//   Pod items' against the pod's totals (init containers and sidecars as
//   upstream, no overhead); PersistentVolumeClaim items' min / max against
//   spec.resources.requests. Violations are one 403 whose message lists them
//   all (`[a, b]` when several, as an aggregate error prints).
// Pod updates are not checked (upstream: only the resize subresource, which
// apiary does not serve). An object being deleted is never checked.
//
// LimitRanges come from this server's watch cache; a namespace whose cache
// holds none is read live at most once per LIVE_LOOKUP_TTL_MS (upstream's
// liveLookupCache), so a LimitRange created a moment ago applies at once.

import { forbidden } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import { type Quantity, parseQuantity } from '../machinery/quantity.js';
import type { Container, LimitRange, Pod, ResourceList } from '../api/core/v1/types.js';
import { computePodQOS, podLimits, podRequests } from '../api/core/v1/resource-helpers.js';
import type { Usage } from '../api/quota/v1/resources.js';
import { fromWire } from '../api/quota/v1/resources.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { nameForErrors } from './resource-quota-check.js';

export const LIMIT_RANGER_PLUGIN = 'LimitRanger';
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
export const LIVE_LOOKUP_TTL_MS = 30_000;

export interface LimitRangerOptions {
  /** The namespace's LimitRanges as a cache holds them. */
  listCached(namespace: string): Promise<LimitRange[]>;
  /** The namespace's LimitRanges at the latest revision. */
  listLive(namespace: string): Promise<LimitRange[]>;
  now?: () => number;
}

function supports(a: AdmissionAttributes): 'pod' | 'pvc' | undefined {
  if (a.subresource !== '' || a.kind.group !== '') return undefined;
  if (a.kind.kind === 'Pod') return a.operation === 'CREATE' ? 'pod' : undefined;
  if (a.kind.kind === 'PersistentVolumeClaim') return a.operation === 'CREATE' || a.operation === 'UPDATE' ? 'pvc' : undefined;
  return undefined;
}

export class LimitRanger implements AdmissionPlugin {
  readonly name = LIMIT_RANGER_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/pods', '/persistentvolumeclaims']);
  private readonly options: LimitRangerOptions;
  private readonly now: () => number;
  private readonly liveLookups = new Map<string, { expires: number; items: Promise<LimitRange[]> }>();

  constructor(options: LimitRangerOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (supports(a) !== 'pod' || a.object === undefined || this.beingDeleted(a)) return;
    const ranges = await this.limitRanges(a.namespace);
    if (ranges.length === 0) return;
    const pod = a.object as Pod;
    for (const lr of ranges) applyDefaults(pod, lr);
    // The pod strategy recorded status.qosClass before admission ran (upstream
    // computes it after): keep it true to the defaults just applied.
    if (pod.status?.qosClass !== undefined) pod.status.qosClass = computePodQOS({ ...pod, status: {} });
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    const kind = supports(a);
    if (kind === undefined || a.object === undefined || this.beingDeleted(a)) return;
    const ranges = await this.limitRanges(a.namespace);
    for (const lr of ranges) {
      const errors = kind === 'pod' ? validatePod(lr, a.object as Pod) : validateClaim(lr, a.object);
      if (errors.length > 0) {
        const unique = [...new Set(errors)];
        const message = unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
        throw forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForErrors(a), message);
      }
    }
  }

  private beingDeleted(a: AdmissionAttributes): boolean {
    const ts = a.oldObject?.metadata.deletionTimestamp;
    return ts !== undefined && ts !== null;
  }

  private async limitRanges(namespace: string): Promise<LimitRange[]> {
    const cached = await this.options.listCached(namespace);
    if (cached.length > 0) return cached;
    const now = this.now();
    let entry = this.liveLookups.get(namespace);
    if (entry === undefined || entry.expires < now) {
      entry = { expires: now + LIVE_LOOKUP_TTL_MS, items: this.options.listLive(namespace) };
      this.liveLookups.set(namespace, entry);
      if (this.liveLookups.size > 10_000) this.liveLookups.delete(this.liveLookups.keys().next().value as string);
      entry.items.catch(() => this.liveLookups.delete(namespace));
    }
    return entry.items;
  }
}

// ---- defaults -------------------------------------------------------------------------------------

function defaultsOf(lr: LimitRange): { requests: ResourceList; limits: ResourceList } {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  return { requests, limits };
}

function mergeContainer(c: Container, defaults: { requests: ResourceList; limits: ResourceList }, label: string, notes: string[]): void {
  c.resources ??= {};
  const res = c.resources;
  res.limits ??= {};
  res.requests ??= {};
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(defaults.limits)) {
    if (res.limits[k] === undefined) {
      res.limits[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(defaults.requests)) {
    if (res.requests[k] === undefined) {
      res.requests[k] = v;
      setRequests.push(k);
    }
  }
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${label} ${c.name}`);
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${label} ${c.name}`);
  // Empty maps are omitted on the wire, as Go's omitempty does.
  if (Object.keys(res.limits).length === 0) delete res.limits;
  if (Object.keys(res.requests).length === 0) delete res.requests;
}

function applyDefaults(pod: Pod, lr: LimitRange): void {
  const defaults = defaultsOf(lr);
  const notes: string[] = [];
  for (const c of pod.spec?.containers ?? []) mergeContainer(c, defaults, 'container', notes);
  for (const c of pod.spec?.initContainers ?? []) mergeContainer(c, defaults, 'init container', notes);
  if (notes.length === 0) return;
  pod.metadata.annotations ??= {};
  pod.metadata.annotations[LIMIT_RANGER_ANNOTATION] = `LimitRanger plugin set: ${notes.join('; ')}`;
}

// ---- constraints ----------------------------------------------------------------------------------

const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

/** Upstream requestLimitEnforcedValues: milli precision unless a value would overflow it. */
function comparable(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const r = req?.value() ?? 0n;
  const l = lim?.value() ?? 0n;
  const e = enforced.value();
  if (r <= MAX_MILLI_VALUE && l <= MAX_MILLI_VALUE && e <= MAX_MILLI_VALUE) {
    return [req?.milliValue() ?? 0n, lim?.milliValue() ?? 0n, enforced.milliValue()];
  }
  return [r, l, e];
}

function sortedEntries(list: ResourceList | undefined): [string, Quantity][] {
  const out: [string, Quantity][] = [];
  for (const k of Object.keys(list ?? {}).sort()) {
    try {
      out.push([k, parseQuantity(String(list![k]))]);
    } catch {
      // Validation keeps unparsable quantities out of stored LimitRanges.
    }
  }
  return out;
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: Usage, limits: Usage): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (req === undefined) return `minimum ${name} usage per ${type} is ${enforced.toString()}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${enforced.toString()}, but request is ${req.toString()}`;
  if (lim !== undefined && l < e) return `minimum ${name} usage per ${type} is ${enforced.toString()}, but limit is ${lim.toString()}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: Usage, limits: Usage): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${enforced.toString()}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${enforced.toString()}, but limit is ${lim.toString()}`;
  if (req !== undefined && r > e) return `maximum ${name} usage per ${type} is ${enforced.toString()}, but request is ${req.toString()}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: Usage): string | undefined {
  const req = requests.get(name);
  const [r, , e] = comparable(req, undefined, enforced);
  if (req === undefined) return `maximum ${name} usage per ${type} is ${enforced.toString()}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${enforced.toString()}, but request is ${req.toString()}`;
  return undefined;
}

/** Go's %f: six decimals. */
function goFloat(x: number): string {
  return x.toFixed(6);
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: Usage, limits: Usage): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced);
  if (req === undefined || r === 0n) {
    return `${name} max limit to request ratio per ${type} is ${enforced.toString()}, but no request is specified or request is 0`;
  }
  if (lim === undefined || l === 0n) {
    return `${name} max limit to request ratio per ${type} is ${enforced.toString()}, but no limit is specified or limit is 0`;
  }
  let observed = Number(l) / Number(r);
  const display = observed;
  let maxRatio = Number(enforced.value());
  if (enforced.value() <= MAX_MILLI_VALUE) {
    observed *= 1000;
    maxRatio = Number(enforced.milliValue());
  }
  if (observed > maxRatio) {
    return `${name} max limit to request ratio per ${type} is ${enforced.toString()}, but provided ratio is ${goFloat(display)}`;
  }
  return undefined;
}

function checkItem(
  item: { type: string; min?: ResourceList; max?: ResourceList; maxLimitRequestRatio?: ResourceList },
  requests: Usage,
  limits: Usage,
  out: string[],
): void {
  const push = (m: string | undefined): void => {
    if (m !== undefined) out.push(m);
  };
  for (const [k, v] of sortedEntries(item.min)) push(minConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max)) push(maxConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) push(ratioConstraint(item.type, k, v, requests, limits));
}

function validatePod(lr: LimitRange, pod: Pod): string[] {
  const errors: string[] = [];
  for (const item of lr.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
        checkItem(item, fromWire(c.resources?.requests), fromWire(c.resources?.limits), errors);
      }
    } else if (item.type === 'Pod') {
      checkItem(item, podRequests(pod, { excludeOverhead: true }), podLimits(pod, { excludeOverhead: true }), errors);
    }
  }
  return errors;
}

function validateClaim(lr: LimitRange, pvc: KubeObject): string[] {
  const errors: string[] = [];
  const requests = fromWire((pvc.spec as { resources?: { requests?: ResourceList } } | undefined)?.resources?.requests);
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) {
      const m = minConstraint(item.type, k, v, requests, new Map());
      if (m !== undefined) errors.push(m);
    }
    for (const [k, v] of sortedEntries(item.max)) {
      const m = maxRequestConstraint(item.type, k, v, requests);
      if (m !== undefined) errors.push(m);
    }
  }
  return errors;
}
