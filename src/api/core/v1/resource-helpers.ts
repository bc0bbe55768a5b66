// A pod's effective requests and limits, and its QoS class, as upstream
// computes them (k8s.io/component-helpers/resource PodRequests/PodLimits,
// pkg/apis/core/v1/helper/qos). Quantities stay exact (machinery/quantity).
//
// - Regular containers add up.
// - Init containers run one at a time before them, so each contributes its
//   own need plus the sidecars (restartPolicy: Always) started before it; the
//   pod needs the larger of that peak and the regular sum.
// - Sidecars also run beside the regular containers: they add to the sum.
// - spec.overhead adds to every request, and to limits that are set and non-zero.
// Pod-level resources (alpha in 1.32, off by default) are not applied.

import { type Usage, add, fromWire, max } from '../../quota/v1/resources.js';
import type { Container, Pod } from './types.js';

export interface PodResourceOptions {
  /** Leave spec.overhead out (LimitRanger's Pod limits do). */
  excludeOverhead?: boolean;
}

function isSidecar(c: Container): boolean {
  return c.restartPolicy === 'Always';
}

function aggregate(pod: Pod, pick: (c: Container) => Usage): Usage {
  let total: Usage = new Map();
  for (const c of pod.spec?.containers ?? []) total = add(total, pick(c));
  let sidecars: Usage = new Map();
  let initPeak: Usage = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = pick(c);
    let need: Usage;
    if (isSidecar(c)) {
      total = add(total, own);
      sidecars = add(sidecars, own);
      need = sidecars;
    } else {
      need = add(own, sidecars);
    }
    initPeak = max(initPeak, need);
  }
  return max(total, initPeak);
}

export function containerRequests(c: Container): Usage {
  return fromWire(c.resources?.requests);
}

export function containerLimits(c: Container): Usage {
  return fromWire(c.resources?.limits);
}

export function podRequests(pod: Pod, options: PodResourceOptions = {}): Usage {
  const reqs = aggregate(pod, containerRequests);
  const overhead = pod.spec?.overhead as Record<string, string> | undefined;
  if (options.excludeOverhead === true || overhead === undefined) return reqs;
  return add(reqs, fromWire(overhead));
}

export function podLimits(pod: Pod, options: PodResourceOptions = {}): Usage {
  const limits = aggregate(pod, containerLimits);
  const overhead = pod.spec?.overhead as Record<string, string> | undefined;
  if (options.excludeOverhead === true || overhead === undefined) return limits;
  for (const [name, q] of fromWire(overhead)) {
    const have = limits.get(name);
    if (have !== undefined && !have.isZero()) limits.set(name, have.add(q));
  }
  return limits;
}

const QOS_RESOURCES = new Set(['cpu', 'memory']);

/** BestEffort, Burstable or Guaranteed: status.qosClass when set, else computed (qos.GetPodQOS). */
export function podQOSClass(pod: Pod): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const recorded = pod.status?.qosClass;
  if (recorded !== undefined && recorded !== ('' as string)) return recorded;
  return computePodQOS(pod);
}

export function computePodQOS(pod: Pod): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  let requests: Usage = new Map();
  let limits: Usage = new Map();
  let guaranteed = true;
  const positive = (u: Usage): Usage => new Map([...u].filter(([k, v]) => QOS_RESOURCES.has(k) && v.sign() > 0));
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const req = positive(containerRequests(c));
    const lim = positive(containerLimits(c));
    requests = add(requests, req);
    limits = add(limits, lim);
    if (!lim.has('cpu') || !lim.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [k, v] of requests) {
      const l = limits.get(k);
      if (l === undefined || l.cmp(v) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && limits.size === requests.size ? 'Guaranteed' : 'Burstable';
}
