// Quota evaluators: what an object of one resource costs, which quota
// resource names and scopes apply to it (upstream pkg/quota/v1/evaluator/core
// and k8s.io/apiserver/pkg/quota/v1/generic). Shared by ResourceQuota
// admission (usage of one object) and the resource quota controller (usage of
// a namespace, from a list of objects).
//
// - Every resource gets an object-count evaluator: `count/<resource>` for the
//   core group, `count/<resource>.<group>` otherwise; configmaps, secrets,
//   resourcequotas and replicationcontrollers also answer to their legacy name.
//   Object counts change on CREATE only.
// - pods: count/pods always; `pods` and compute resources (requests.*,
//   limits.*, bare cpu/memory/ephemeral-storage, hugepages-*, extended
//   `requests.<name>`) while the pod is not terminal; CREATE only. The only
//   evaluator with scopes.
// - services: count, services.nodeports, services.loadbalancers; CREATE and UPDATE.
// - persistentvolumeclaims: count, requests.storage and per-StorageClass
//   `<class>.storageclass.storage.k8s.io/{persistentvolumeclaims,requests.storage}`;
//   CREATE and UPDATE.

import type { KubeObject } from '../../../machinery/meta.js';
import { Quantity } from '../../../machinery/quantity.js';
import { podLimits, podQOSClass, podRequests, containerLimits, containerRequests } from '../../core/v1/resource-helpers.js';
import type { Container, Pod, ResourceQuota, Service } from '../../core/v1/types.js';
import { type Usage, ONE, ZERO, add, fromWire } from './resources.js';

export interface GroupResourceName {
  group: string;
  resource: string;
}

export interface ScopeSelectorRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface Evaluator {
  readonly groupResource: GroupResourceName;
  /** Whether this operation can change usage (subresource writes never do). */
  handles(operation: Operation, subresource: string): boolean;
  /** The names among `names` this evaluator accounts for. */
  matchingResources(names: readonly string[]): string[];
  /** Whether an object falls in a scope (false for every scope but pods'). */
  matchesScope(selector: ScopeSelectorRequirement, obj: KubeObject): boolean;
  /** What the object costs. */
  usage(obj: KubeObject): Usage;
  /** An error message when the object lacks what `required` quota names demand, else undefined. */
  constraints(required: readonly string[], obj: KubeObject): string | undefined;
  /** Usage of a namespace's objects, for the names in `resources`, counting only objects in every scope. */
  usageStats(items: readonly KubeObject[], resources: readonly string[], selectors: readonly ScopeSelectorRequirement[]): Usage;
}

/** The object-count name of a resource (upstream ObjectCountQuotaResourceNameFor). */
export function objectCountName(gr: GroupResourceName): string {
  return gr.group === '' ? `count/${gr.resource}` : `count/${gr.resource}.${gr.group}`;
}

const LEGACY_ALIASES: Record<string, string> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
};

/** Resources quota never counts (upstream's default ignored resources). */
export const IGNORED_RESOURCES: readonly string[] = [
  '/events',
  'events.k8s.io/events',
  '/bindings',
  '/componentstatuses',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
];

export function isIgnoredResource(gr: GroupResourceName): boolean {
  return IGNORED_RESOURCES.includes(`${gr.group}/${gr.resource}`);
}

/** The scope requirements of a quota: spec.scopes as Exists, then spec.scopeSelector's expressions. */
export function scopeSelectorsOf(quota: ResourceQuota): ScopeSelectorRequirement[] {
  const out: ScopeSelectorRequirement[] = (quota.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  const expressions = (quota.spec?.scopeSelector as { matchExpressions?: ScopeSelectorRequirement[] } | undefined)?.matchExpressions ?? [];
  for (const e of expressions) out.push(e);
  return out;
}

/** Upstream generic.Matches: the quota's status.hard names something the evaluator counts, and every scope matches. */
export function quotaMatches(evaluator: Evaluator, quota: ResourceQuota, obj: KubeObject): boolean {
  const hard = Object.keys(quota.status?.hard ?? {});
  if (evaluator.matchingResources(hard).length === 0) return false;
  return scopeSelectorsOf(quota).every((s) => evaluator.matchesScope(s, obj));
}

function sumStats(
  evaluator: Evaluator,
  items: readonly KubeObject[],
  resources: readonly string[],
  selectors: readonly ScopeSelectorRequirement[],
): Usage {
  let used: Usage = new Map(resources.map((r) => [r, ZERO]));
  for (const item of items) {
    if (!selectors.every((s) => evaluator.matchesScope(s, item))) continue;
    used = add(used, evaluator.usage(item));
  }
  return used;
}

// ---- object count -----------------------------------------------------------------------------

export class ObjectCountEvaluator implements Evaluator {
  private readonly names: string[];

  constructor(readonly groupResource: GroupResourceName) {
    this.names = [objectCountName(groupResource)];
    const alias = groupResource.group === '' ? LEGACY_ALIASES[groupResource.resource] : undefined;
    if (alias !== undefined) this.names.push(alias);
  }

  handles(operation: Operation, subresource: string): boolean {
    return operation === 'CREATE' && subresource === '';
  }

  matchingResources(names: readonly string[]): string[] {
    return names.filter((n) => this.names.includes(n));
  }

  matchesScope(): boolean {
    return false;
  }

  usage(): Usage {
    return new Map(this.names.map((n) => [n, ONE]));
  }

  constraints(): string | undefined {
    return undefined;
  }

  usageStats(items: readonly KubeObject[]): Usage {
    const count = new Quantity(BigInt(items.length), 0, 'DecimalSI');
    return new Map(this.names.map((n) => [n, count]));
  }
}

// ---- pods -------------------------------------------------------------------------------------

const POD_RESOURCES = [
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** Quota names that oblige every container to state a value (a historical mistake upstream keeps). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** Upstream helper.IsNativeResource: no domain, or a kubernetes.io domain. */
function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** Upstream helper.IsExtendedResourceName: not native, not requests.-prefixed, a valid qualified name. */
function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(`requests.${name}`);
}

function isExtendedResourceNameForQuota(name: string): boolean {
  return !isNativeResource(name) && name.startsWith('requests.');
}

/** The quota names one container (or one pod's totals) contributes: upstream podComputeUsageHelper. */
function computeUsage(requests: Usage, limits: Usage): Usage {
  const out: Usage = new Map([['pods', ONE]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req !== undefined) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim !== undefined) out.set(`limits.${r}`, lim);
  }
  for (const [name, req] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, req);
      out.set(`requests.${name}`, req);
    }
    if (isExtendedResourceName(name)) out.set(`requests.${name}`, req);
  }
  return out;
}

export interface PodEvaluatorOptions {
  /** Milliseconds since the epoch (tests may pass their own). */
  now?: () => number;
}

export class PodEvaluator implements Evaluator {
  readonly groupResource = { group: '', resource: 'pods' };
  private readonly now: () => number;

  constructor(options: PodEvaluatorOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  handles(operation: Operation, subresource: string): boolean {
    return operation === 'CREATE' && subresource === '';
  }

  matchingResources(names: readonly string[]): string[] {
    const out = names.filter((n) => POD_RESOURCES.includes(n));
    for (const n of names) {
      if (POD_RESOURCE_PREFIXES.some((p) => n.startsWith(p))) out.push(n);
      if (isExtendedResourceNameForQuota(n)) out.push(n);
    }
    return out;
  }

  matchesScope(selector: ScopeSelectorRequirement, obj: KubeObject): boolean {
    const pod = obj as Pod;
    switch (selector.scopeName) {
      case 'Terminating':
        return isTerminating(pod);
      case 'NotTerminating':
        return !isTerminating(pod);
      case 'BestEffort':
        return podQOSClass(pod) === 'BestEffort';
      case 'NotBestEffort':
        return podQOSClass(pod) !== 'BestEffort';
      case 'PriorityClass':
        return priorityClassMatches(pod, selector);
      case 'CrossNamespacePodAffinity':
        return usesCrossNamespacePodAffinity(pod);
      default:
        return false;
    }
  }

  usage(obj: KubeObject): Usage {
    const pod = obj as Pod;
    const out: Usage = new Map([['count/pods', ONE]]);
    if (!this.counted(pod)) return out;
    return add(out, computeUsage(podRequests(pod), podLimits(pod)));
  }

  constraints(required: readonly string[], obj: KubeObject): string | undefined {
    const pod = obj as Pod;
    const requiredSet = required.filter((r) => VALIDATION_SET.has(r));
    if (requiredSet.length === 0) return undefined;
    const missing = new Map<string, Set<string>>();
    const check = (c: Container): void => {
      const have = computeUsage(containerRequests(c), containerLimits(c));
      for (const r of requiredSet) {
        if (have.has(r)) continue;
        let names = missing.get(r);
        if (names === undefined) missing.set(r, (names = new Set()));
        names.add(c.name);
      }
    };
    for (const c of pod.spec?.containers ?? []) check(c);
    for (const c of pod.spec?.initContainers ?? []) check(c);
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  }

  usageStats(items: readonly KubeObject[], resources: readonly string[], selectors: readonly ScopeSelectorRequirement[]): Usage {
    return sumStats(this, items, resources, selectors);
  }

  /** Upstream QuotaV1Pod: terminal pods, and pods past their deletion grace, cost no compute. */
  private counted(pod: Pod): boolean {
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') return false;
    const ts = pod.metadata.deletionTimestamp;
    const grace = pod.metadata.deletionGracePeriodSeconds;
    if (ts !== undefined && ts !== null && grace !== undefined && grace !== null) {
      if (this.now() > Date.parse(ts) + grace * 1000) return false;
    }
    return true;
  }
}

function isTerminating(pod: Pod): boolean {
  const d = pod.spec?.activeDeadlineSeconds;
  return d !== undefined && d !== null && d >= 0;
}

function priorityClassMatches(pod: Pod, selector: ScopeSelectorRequirement): boolean {
  const name = (pod.spec?.priorityClassName as string | undefined) ?? '';
  const has = name !== '';
  switch (selector.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'In':
      return has && (selector.values ?? []).includes(name);
    case 'NotIn':
      return !has || !(selector.values ?? []).includes(name);
    default:
      return false;
  }
}

interface AffinityTerm {
  namespaces?: string[];
  namespaceSelector?: unknown;
}

function crossNamespace(terms: AffinityTerm[] | undefined): boolean {
  return (terms ?? []).some((t) => (t.namespaces?.length ?? 0) > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));
}

function usesCrossNamespacePodAffinity(pod: Pod): boolean {
  const affinity = pod.spec?.affinity as Record<string, Record<string, unknown> | undefined> | undefined;
  if (affinity === undefined || affinity === null) return false;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (a === undefined || a === null) continue;
    if (crossNamespace(a.requiredDuringSchedulingIgnoredDuringExecution as AffinityTerm[] | undefined)) return true;
    const weighted = (a.preferredDuringSchedulingIgnoredDuringExecution as { podAffinityTerm?: AffinityTerm }[] | undefined) ?? [];
    if (crossNamespace(weighted.map((w) => w.podAffinityTerm ?? {}))) return true;
  }
  return false;
}

// ---- services ---------------------------------------------------------------------------------

const SERVICE_RESOURCES = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

export class ServiceEvaluator implements Evaluator {
  readonly groupResource = { group: '', resource: 'services' };

  handles(operation: Operation, subresource: string): boolean {
    return subresource === '' && (operation === 'CREATE' || operation === 'UPDATE');
  }

  matchingResources(names: readonly string[]): string[] {
    return names.filter((n) => SERVICE_RESOURCES.includes(n));
  }

  matchesScope(): boolean {
    return false;
  }

  usage(obj: KubeObject): Usage {
    const svc = obj as Service;
    const ports = svc.spec?.ports ?? [];
    const out: Usage = new Map([
      ['count/services', ONE],
      ['services', ONE],
      ['services.loadbalancers', ZERO],
      ['services.nodeports', ZERO],
    ]);
    const n = (k: number): Quantity => new Quantity(BigInt(k), 0, 'DecimalSI');
    if (svc.spec?.type === 'NodePort') out.set('services.nodeports', n(ports.length));
    else if (svc.spec?.type === 'LoadBalancer') {
      const allocate = (svc.spec as { allocateLoadBalancerNodePorts?: boolean }).allocateLoadBalancerNodePorts;
      out.set('services.nodeports', n(allocate === false ? ports.filter((p) => (p.nodePort ?? 0) !== 0).length : ports.length));
      out.set('services.loadbalancers', ONE);
    }
    return out;
  }

  constraints(): string | undefined {
    return undefined;
  }

  usageStats(items: readonly KubeObject[], resources: readonly string[], selectors: readonly ScopeSelectorRequirement[]): Usage {
    return sumStats(this, items, resources, selectors);
  }
}

// ---- persistent volume claims -------------------------------------------------------------------

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];

/** The claim's class: the beta annotation first, then spec.storageClassName. */
export function persistentVolumeClaimClass(pvc: KubeObject): string {
  const annotation = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (annotation !== undefined) return annotation;
  return ((pvc.spec as { storageClassName?: string } | undefined)?.storageClassName ?? '') as string;
}

function roundUpToWhole(q: Quantity): Quantity {
  if (q.scale >= 0) return q;
  return new Quantity(q.scaledValue(0), 0, q.format);
}

export class PersistentVolumeClaimEvaluator implements Evaluator {
  readonly groupResource = { group: '', resource: 'persistentvolumeclaims' };

  handles(operation: Operation, subresource: string): boolean {
    return subresource === '' && (operation === 'CREATE' || operation === 'UPDATE');
  }

  matchingResources(names: readonly string[]): string[] {
    return names.filter(
      (n) => n === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(n) || PVC_RESOURCES.some((r) => n.endsWith(STORAGE_CLASS_SUFFIX + r)),
    );
  }

  matchesScope(): boolean {
    return false;
  }

  usage(obj: KubeObject): Usage {
    const out: Usage = new Map([
      ['persistentvolumeclaims', ONE],
      ['count/persistentvolumeclaims', ONE],
    ]);
    const cls = persistentVolumeClaimClass(obj);
    if (cls !== '') out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, ONE);
    const storage = this.storage(obj);
    if (storage !== undefined) {
      out.set('requests.storage', storage);
      if (cls !== '') out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
    }
    return out;
  }

  /** spec.resources.requests.storage, or status.allocatedResources.storage when larger; whole bytes. */
  private storage(obj: KubeObject): Quantity | undefined {
    const spec = obj.spec as { resources?: { requests?: Record<string, string> } } | undefined;
    const requested = fromWire(spec?.resources?.requests).get('storage');
    if (requested === undefined) return undefined;
    let result = roundUpToWhole(requested);
    const status = obj.status as { allocatedResources?: Record<string, string> } | undefined;
    const allocated = fromWire(status?.allocatedResources).get('storage');
    if (allocated !== undefined && allocated.cmp(result) > 0) result = roundUpToWhole(allocated);
    return result;
  }

  constraints(): string | undefined {
    return undefined;
  }

  usageStats(items: readonly KubeObject[], resources: readonly string[], selectors: readonly ScopeSelectorRequirement[]): Usage {
    return sumStats(this, items, resources, selectors);
  }
}

// ---- the registry -------------------------------------------------------------------------------

/**
 * Evaluators by group/resource: the special ones, and an object-count
 * evaluator made on first use for any other resource (ignored ones excepted).
 */
export class EvaluatorRegistry {
  private readonly byResource = new Map<string, Evaluator>();

  constructor(options: PodEvaluatorOptions = {}) {
    for (const e of [new PodEvaluator(options), new ServiceEvaluator(), new PersistentVolumeClaimEvaluator()]) this.put(e);
    for (const r of Object.keys(LEGACY_ALIASES)) this.put(new ObjectCountEvaluator({ group: '', resource: r }));
  }

  private put(e: Evaluator): void {
    this.byResource.set(`${e.groupResource.group}/${e.groupResource.resource}`, e);
  }

  /** The evaluator for a resource (made on first use), or undefined for ignored resources. */
  get(gr: GroupResourceName): Evaluator | undefined {
    if (isIgnoredResource(gr)) return undefined;
    const key = `${gr.group}/${gr.resource}`;
    let e = this.byResource.get(key);
    if (e === undefined) {
      e = new ObjectCountEvaluator({ group: gr.group, resource: gr.resource });
      this.byResource.set(key, e);
    }
    return e;
  }

  /** The evaluators made so far. */
  list(): Evaluator[] {
    return [...this.byResource.values()];
  }
}

/**
 * The group/resource an object-count name refers to (`count/deployments.apps`
 * → apps/deployments), or undefined for other names. Used by the controller
 * to know which resources a quota needs watched.
 */
export function resourceOfCountName(name: string): GroupResourceName | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  if (dot < 0) return { group: '', resource: rest };
  return { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The resources whose objects a quota name is measured on (besides count/ names). */
export function resourcesForName(name: string): GroupResourceName[] {
  const counted = resourceOfCountName(name);
  if (counted !== undefined) return [counted];
  const out: GroupResourceName[] = [];
  const registry = SPECIAL;
  for (const e of registry) if (e.matchingResources([name]).length > 0) out.push(e.groupResource);
  if (Object.keys(LEGACY_ALIASES).includes(name)) out.push({ group: '', resource: name });
  return out;
}

const SPECIAL: Evaluator[] = [new PodEvaluator(), new ServiceEvaluator(), new PersistentVolumeClaimEvaluator()];
