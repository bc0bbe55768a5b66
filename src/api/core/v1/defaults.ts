// core/v1 defaults, as upstream's pkg/apis/core/v1/defaults.go (plus the
// generated defaulters for nested types). Each function fills unset fields in
// place and is idempotent: running it twice changes nothing more.

import type { KubeObject } from '../../../machinery/meta.js';
import { defaultFieldRef, defaultPodVolumeSources } from './volume-defaults.js';
import type {
  Container,
  Endpoints,
  LimitRange,
  Namespace,
  Node,
  Pod,
  PodSpec,
  ReplicationController,
  Secret,
  Service,
} from './types.js';

/** Secret: type Opaque; stringData folded into data (base64), as v1 → internal conversion does. */
export function defaultSecret(obj: KubeObject): void {
  const s = obj as Secret;
  if (s.type === undefined || s.type === '') s.type = 'Opaque';
  if (s.stringData !== undefined && s.stringData !== null) {
    s.data ??= {};
    for (const [k, v] of Object.entries(s.stringData)) s.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    delete s.stringData;
  }
}

/** The label every namespace carries with its own name (upstream's LabelMetadataName). */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';

/** Sets kubernetes.io/metadata.name to the namespace's name, once it has one. */
export function labelNamespaceName(obj: KubeObject): void {
  const name = obj.metadata.name;
  if (name === undefined || name === '') return;
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [LABEL_METADATA_NAME]: name };
}

export function defaultNamespace(obj: KubeObject): void {
  const ns = obj as Namespace;
  labelNamespaceName(ns);
  ns.spec ??= {};
  ns.status ??= {};
  if (ns.status.phase === undefined || (ns.status.phase as string) === '') ns.status.phase = 'Active';
}

export function defaultService(obj: KubeObject): void {
  const svc = obj as Service;
  svc.spec ??= {};
  const spec = svc.spec;
  if (spec.sessionAffinity === undefined || (spec.sessionAffinity as string) === '') spec.sessionAffinity = 'None';
  if (spec.type === undefined || (spec.type as string) === '') spec.type = 'ClusterIP';
  for (const p of spec.ports ?? []) {
    if (p.protocol === undefined || (p.protocol as string) === '') p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && spec.externalTrafficPolicy === undefined) {
    spec.externalTrafficPolicy = 'Cluster';
  }
  if (spec.type !== 'ExternalName' && spec.internalTrafficPolicy === undefined) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer') {
    const lb = spec as { allocateLoadBalancerNodePorts?: boolean };
    lb.allocateLoadBalancerNodePorts ??= true;
  }
  const affinity = (spec as Record<string, unknown>).sessionAffinityConfig as
    | { clientIP?: { timeoutSeconds?: number } }
    | undefined;
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = affinity ?? {};
    cfg.clientIP ??= {};
    cfg.clientIP.timeoutSeconds ??= 10800;
    (spec as Record<string, unknown>).sessionAffinityConfig = cfg;
  }
  svc.status ??= { loadBalancer: {} };
  // An ingress point with an IP and no mode is a VIP (the LoadBalancerIPMode gate, on by default in 1.32).
  for (const ingress of svc.status.loadBalancer?.ingress ?? []) {
    if ((ingress.ip ?? '') !== '' && ingress.ipMode === undefined) ingress.ipMode = 'VIP';
  }
}

/** imagePullPolicy: Always for ":latest" or no tag, IfNotPresent otherwise (digests included). */
export function defaultPullPolicy(image: string | undefined): 'Always' | 'IfNotPresent' {
  if (image === undefined || image === '') return 'Always';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  if (colon < 0) return 'Always';
  return image.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

interface Probe {
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

/** Upstream's SetDefaults_HTTPGetAction: path "/" and scheme HTTP (probes and lifecycle hooks). */
function defaultHttpGet(handler: unknown): void {
  if (handler === undefined || handler === null || typeof handler !== 'object') return;
  const get = (handler as { httpGet?: { path?: string; scheme?: string } | null }).httpGet;
  if (get === undefined || get === null || typeof get !== 'object') return;
  if (get.path === undefined || get.path === '') get.path = '/';
  if (get.scheme === undefined || get.scheme === '') get.scheme = 'HTTP';
}

function defaultProbe(p: unknown): void {
  if (p === undefined || p === null || typeof p !== 'object') return;
  const probe = p as Probe;
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  defaultHttpGet(probe);
}

export function defaultContainer(c: Container): void {
  if (c.imagePullPolicy === undefined || (c.imagePullPolicy as string) === '') c.imagePullPolicy = defaultPullPolicy(c.image);
  if (c.terminationMessagePath === undefined || c.terminationMessagePath === '') {
    c.terminationMessagePath = '/dev/termination-log';
  }
  if (c.terminationMessagePolicy === undefined || (c.terminationMessagePolicy as string) === '') {
    c.terminationMessagePolicy = 'File';
  }
  c.resources ??= {};
  for (const p of c.ports ?? []) if (p.protocol === undefined || (p.protocol as string) === '') p.protocol = 'TCP';
  for (const e of c.env ?? []) defaultFieldRef(e.valueFrom);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  const lifecycle = (c as { lifecycle?: { postStart?: unknown; preStop?: unknown } | null }).lifecycle;
  if (lifecycle !== undefined && lifecycle !== null) {
    defaultHttpGet(lifecycle.postStart);
    defaultHttpGet(lifecycle.preStop);
  }
}

/** SetDefaults_PodSpec and the generated defaulters beneath it. */
export function defaultPodSpec(spec: PodSpec): void {
  if (spec.dnsPolicy === undefined || (spec.dnsPolicy as string) === '') spec.dnsPolicy = 'ClusterFirst';
  if (spec.restartPolicy === undefined || (spec.restartPolicy as string) === '') spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  if (spec.terminationGracePeriodSeconds === undefined) spec.terminationGracePeriodSeconds = 30;
  if (spec.schedulerName === undefined || spec.schedulerName === '') spec.schedulerName = 'default-scheduler';
  if ((spec.serviceAccountName ?? '') === '' && (spec.serviceAccount ?? '') !== '') spec.serviceAccountName = spec.serviceAccount;
  if ((spec.serviceAccountName ?? '') !== '' && (spec.serviceAccount ?? '') === '') spec.serviceAccount = spec.serviceAccountName;
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  // SetDefaults_EphemeralContainer and the generated walk beneath it, as for containers.
  for (const c of (spec as { ephemeralContainers?: Container[] | null }).ephemeralContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

function defaultVolume(v: Record<string, unknown>): void {
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected'] as const) {
    const s = v[source] as { defaultMode?: number } | undefined;
    if (s !== undefined && s !== null && typeof s === 'object' && s.defaultMode === undefined) s.defaultMode = 420;
  }
  defaultPodVolumeSources(v);
}

/**
 * SetDefaults_Pod: requests default to limits, enableServiceLinks (on pods
 * only, not in pod templates, as upstream), then the spec's defaults.
 */
export function defaultPod(obj: KubeObject): void {
  const pod = obj as Pod;
  pod.spec ??= { containers: [] };
  if (pod.spec.enableServiceLinks === undefined || pod.spec.enableServiceLinks === null) pod.spec.enableServiceLinks = true;
  // A negative grace period is taken as 1 on pods (templates keep it; both are warned about).
  if (typeof pod.spec.terminationGracePeriodSeconds === 'number' && pod.spec.terminationGracePeriodSeconds < 0) pod.spec.terminationGracePeriodSeconds = 1;
  for (const c of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])]) {
    const limits = c.resources?.limits;
    if (limits !== undefined) {
      c.resources!.requests ??= {};
      for (const [k, v] of Object.entries(limits)) if (c.resources!.requests[k] === undefined) c.resources!.requests[k] = v;
    }
  }
  // With host networking, a container port's unset hostPort is the port itself (pods only, as upstream).
  if ((pod.spec as { hostNetwork?: boolean }).hostNetwork === true) {
    for (const c of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])]) {
      for (const p of c.ports ?? []) if ((p.hostPort ?? 0) === 0) p.hostPort = p.containerPort;
    }
  }
  defaultPodSpec(pod.spec);
}

export function defaultReplicationController(obj: KubeObject): void {
  const rc = obj as ReplicationController;
  rc.spec ??= {};
  const templateLabels = rc.spec.template?.metadata?.labels;
  if (templateLabels !== undefined) {
    if (rc.spec.selector === undefined || Object.keys(rc.spec.selector).length === 0) rc.spec.selector = { ...templateLabels };
    if (rc.metadata.labels === undefined || Object.keys(rc.metadata.labels).length === 0) rc.metadata.labels = { ...templateLabels };
  }
  if (rc.spec.replicas === undefined || rc.spec.replicas === null) rc.spec.replicas = 1;
  if (rc.spec.template?.spec !== undefined) defaultPodSpec(rc.spec.template.spec);
}

export function defaultEndpoints(obj: KubeObject): void {
  const ep = obj as Endpoints;
  for (const subset of ep.subsets ?? []) {
    for (const p of subset.ports ?? []) if (p.protocol === undefined || (p.protocol as string) === '') p.protocol = 'TCP';
  }
}

/**
 * Allocatable defaults to capacity; podCIDR and podCIDRs mirror each other as
 * upstream's v1 ⇄ internal conversion makes them (podCIDRs from a lone
 * podCIDR, podCIDR from the first of podCIDRs).
 */
export function defaultNode(obj: KubeObject): void {
  const node = obj as Node;
  node.spec ??= {};
  const spec = node.spec as { podCIDR?: string; podCIDRs?: string[] | null };
  if ((spec.podCIDRs ?? []).length === 0 && (spec.podCIDR ?? '') !== '') spec.podCIDRs = [spec.podCIDR!];
  else if ((spec.podCIDRs ?? []).length > 0) spec.podCIDR = spec.podCIDRs![0]!;
  const status = node.status;
  if (status?.capacity !== undefined && status.allocatable === undefined) status.allocatable = { ...status.capacity };
}

/** Container limits: default ← max, defaultRequest ← default, then ← min (empty maps stay unset). */
export function defaultLimitRange(obj: KubeObject): void {
  const lr = obj as LimitRange;
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    const def = { ...(item.max ?? {}), ...(item.default ?? {}) };
    const defReq = { ...(item.min ?? {}), ...def, ...(item.defaultRequest ?? {}) };
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(defReq).length > 0) item.defaultRequest = defReq;
  }
}
