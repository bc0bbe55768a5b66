// Services: DNS-1035 names, status reset on create and kept on spec writes,
// PUT may create, DELETE answers with the service.
//
// The cluster IP fields are prepared here, synchronously, as upstream's
// service REST does before allocating (pkg/registry/core/service/storage):
// clusterIP and clusterIPs are kept in step, an update that leaves them out
// keeps the allocated ones, a switch to ExternalName drops the ones the
// client did not change, and ipFamilyPolicy/ipFamilies get their defaults for
// this single-stack IPv4 cluster. Taking the IPs themselves happens at the
// write (AllocatingServiceStore, ./service-storage.ts).
import { nameIsDNS1035Label } from '../../machinery/validation.js';
import { invalid } from '../../machinery/errors.js';
import { type FieldError, fieldErrors } from '../../machinery/field-errors.js';
import { goStringSlice } from '../../machinery/go-syntax.js';
import { defaultService } from '../../api/core/v1/defaults.js';
import { validateService, validateServiceStatus, validateServiceUpdate } from '../../api/core/v1/service-validation.js';
import type { Service, ServiceSpec } from '../../api/core/v1/types.js';
import type { Strategy } from '../strategy.js';
import { fieldAt, keepStatus, statusSubresource } from '../strategy-helpers.js';

/** The one IP family this cluster serves (the service CIDR is IPv4). */
const CLUSTER_FAMILY = 'IPv4';

export const serviceStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNS1035Label,
  defaults: defaultService,
  prepareForCreate(obj) {
    const svc = obj as Service;
    svc.status = { loadBalancer: {} };
    normalizeClusterIPs(svc, undefined);
    initIPFamilyFields(svc, undefined);
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    const svc = obj as Service;
    const before = old as Service;
    patchAllocatedValues(svc, before);
    normalizeClusterIPs(svc, before);
    initIPFamilyFields(svc, before);
    dropTypeDependentFields(svc, before);
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  fields: { 'spec.clusterIP': fieldAt('spec.clusterIP'), 'spec.type': fieldAt('spec.type') },
  fieldLabels: ['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'],
  subresources: { status: statusSubresource(validateServiceStatus) },
};

function specOf(svc: Service): ServiceSpec {
  return (svc.spec ??= {});
}

function needsClusterIP(svc: Service): boolean {
  return svc.spec?.type !== 'ExternalName';
}

function needsNodePort(svc: Service): boolean {
  return svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';
}

function sameList(a: unknown[] | undefined, b: unknown[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

/**
 * An update that leaves out what was allocated (clients that send back an old
 * copy, or build the object anew) keeps the allocated values.
 */
function patchAllocatedValues(svc: Service, old: Service): void {
  const spec = specOf(svc);
  const oldSpec = old.spec ?? {};
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if ((spec.clusterIP ?? '') === '' && oldSpec.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP;
    if ((spec.clusterIPs ?? []).length === 0 && (oldSpec.clusterIPs ?? []).length > 0) spec.clusterIPs = [...oldSpec.clusterIPs!];
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const used = new Set((spec.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n !== 0));
    const byName = new Map((oldSpec.ports ?? []).map((p) => [p.name ?? '', p.nodePort ?? 0]));
    for (const p of spec.ports ?? []) {
      if ((p.nodePort ?? 0) !== 0) continue;
      const before = byName.get(p.name ?? '') ?? 0;
      if (before !== 0 && !used.has(before)) p.nodePort = before;
    }
  }
}

/** clusterIP and clusterIPs[0] in step: old clients set only the singular field. */
function normalizeClusterIPs(svc: Service, old: Service | undefined): void {
  const spec = specOf(svc);
  const ip = spec.clusterIP ?? '';
  const ips = spec.clusterIPs ?? [];
  if (old === undefined) {
    if (ip !== '' && ips.length === 0) spec.clusterIPs = [ip];
    return;
  }
  const oldSpec = old.spec ?? {};
  const oldIP = oldSpec.clusterIP ?? '';
  if ((oldSpec.clusterIPs ?? []).length > 0 && ips.length === 0 && oldIP === ip) spec.clusterIPs = [...oldSpec.clusterIPs!];
  if (oldIP !== ip && sameList(oldSpec.clusterIPs, spec.clusterIPs)) {
    // Cleared: clear the plural too. Changed: the plural follows (validation then refuses the change).
    if (ip === '') delete spec.clusterIPs;
    else spec.clusterIPs = [ip];
  }
}

/**
 * ipFamilyPolicy and ipFamilies as upstream's allocator initialises them on a
 * single-stack cluster; requests this cluster cannot serve are a 422.
 */
function initIPFamilyFields(svc: Service, old: Service | undefined): void {
  const spec = specOf(svc);
  if (spec.type === 'ExternalName') return;
  const headlessSelectorless = spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0;
  if (spec.ipFamilyPolicy === undefined) {
    if (old?.spec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headlessSelectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const errs: FieldError[] = [];
  const families = [...(spec.ipFamilies ?? [])];
  const ips = spec.clusterIPs ?? [];
  for (let i = 0; i < ips.length; i++) {
    const ip = ips[i]!;
    if (ip === 'None') break;
    if (i < families.length) continue;
    const family = ip.includes(':') ? 'IPv6' : 'IPv4';
    if (family !== CLUSTER_FAMILY) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, goStringSlice(ips), `${family} is not configured on this cluster`));
    else families.push(family);
  }
  if (errs.length === 0) {
    if (headlessSelectorless) {
      // Headless without a selector may name both families even here.
      if (families.length === 0) families.push(CLUSTER_FAMILY);
      if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
      spec.ipFamilies = families;
      return;
    }
    if (spec.ipFamilyPolicy === 'RequireDualStack') {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((family, i) => {
      if (family !== CLUSTER_FAMILY && (family === 'IPv4' || family === 'IPv6')) {
        errs.push(fieldErrors.invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
      }
    });
  }
  if (errs.length > 0) throw invalid('', 'Service', svc.metadata.name ?? '', errs);
  if (families.length === 0) families.push(CLUSTER_FAMILY);
  spec.ipFamilies = families;
}

/**
 * A type change drops what no longer applies, where the client left it as it
 * was (it was most likely allocated or defaulted, not asked for).
 */
function dropTypeDependentFields(svc: Service, old: Service): void {
  const spec = specOf(svc);
  const oldSpec = old.spec ?? {};
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if ((spec.clusterIP ?? '') === (oldSpec.clusterIP ?? '') && sameList(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameList(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === oldSpec.ipFamilyPolicy) delete spec.ipFamilyPolicy;
  }
  const sameNodePorts = sameList(
    (spec.ports ?? []).map((p) => p.nodePort ?? 0),
    (oldSpec.ports ?? []).map((p) => p.nodePort ?? 0),
  );
  if (needsNodePort(old) && !needsNodePort(svc) && sameNodePorts) {
    for (const p of spec.ports ?? []) delete p.nodePort;
  }
  const externalPolicy = (s: Service): boolean => needsNodePort(s) || (s.spec?.externalIPs ?? []).length > 0;
  if (externalPolicy(old) && !externalPolicy(svc) && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy) {
    delete spec.externalTrafficPolicy;
  }
  // Leaving LoadBalancer drops allocateLoadBalancerNodePorts and loadBalancerClass; turning
  // ExternalName drops internalTrafficPolicy (each when the client left it as it was).
  const lbFields = spec as { allocateLoadBalancerNodePorts?: boolean; loadBalancerClass?: string };
  const oldLbFields = oldSpec as { allocateLoadBalancerNodePorts?: boolean; loadBalancerClass?: string };
  if (oldSpec.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (lbFields.allocateLoadBalancerNodePorts === oldLbFields.allocateLoadBalancerNodePorts) delete lbFields.allocateLoadBalancerNodePorts;
    if (lbFields.loadBalancerClass === oldLbFields.loadBalancerClass) delete lbFields.loadBalancerClass;
  }
  if (oldSpec.type !== 'ExternalName' && spec.type === 'ExternalName' && spec.internalTrafficPolicy === oldSpec.internalTrafficPolicy) {
    delete spec.internalTrafficPolicy;
  }
  // The load balancer's status no longer applies.
  if (spec.type !== 'LoadBalancer') svc.status = { ...(svc.status ?? {}), loadBalancer: {} };
}
