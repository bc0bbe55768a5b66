// Validation of Services as kube-apiserver 1.32's (pkg/apis/core/validation):
// the spec on create and update (types, ports, the cluster IP fields and IP
// families, which may not change), and a status write's load balancer.
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { goStringSlice } from '../../../machinery/go-syntax.js';
import { isDNS1123Subdomain, validateLabels } from '../../../machinery/validation.js';
import { parseIPSloppy, validateIP } from '../../../machinery/selector-validation.js';
import type { Service, ServiceSpec } from './types.js';
import { dns1123Label, isIP, isValidPortName, isValidPortNum, PROTOCOLS } from './validation.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

export function validateService(obj: KubeObject): FieldError[] {
  const svc = obj as Service;
  const spec = svc.spec ?? {};
  const errs: FieldError[] = [];
  const type = spec.type ?? '';
  const headless = isHeadlessService(spec);
  const ports = spec.ports ?? [];
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(fieldErrors.required('spec.ports'));
  if ((type === 'LoadBalancer' || type === 'NodePort') && headless) {
    errs.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${type} services`));
  }
  if (type === 'ExternalName') {
    // The registry clears these when a service turns into ExternalName; a client that sets them is refused.
    if ((spec.clusterIPs ?? []).length > 0) errs.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if ((spec.ipFamilies ?? []).length > 0) errs.push(fieldErrors.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined) errs.push(fieldErrors.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const name = (spec.externalName ?? '').replace(/\.$/, '');
    if (name === '') errs.push(fieldErrors.required('spec.externalName'));
    else for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid('spec.externalName', name, m));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = p.name ?? '';
    if (ports.length > 1 && name === '') errs.push(fieldErrors.required(`${path}.name`));
    else if (name !== '') {
      errs.push(...dns1123Label(name, `${path}.name`));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
      names.add(name);
    }
    for (const m of isValidPortNum(p.port)) errs.push(fieldErrors.invalid(`${path}.port`, p.port, m));
    const protocol = p.protocol ?? '';
    if (protocol === '') errs.push(fieldErrors.required(`${path}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(`${path}.protocol`, protocol, PROTOCOLS));
    errs.push(...validateTargetPort(p.targetPort, `${path}.targetPort`));
    const key = `${p.port}/${protocol}`;
    if (keys.has(key)) errs.push(fieldErrors.duplicate(path, { port: p.port, protocol }));
    keys.add(key);
  });
  if (type === '') errs.push(fieldErrors.required('spec.type'));
  else if (!SERVICE_TYPES.includes(type)) errs.push(fieldErrors.notSupported('spec.type', type, SERVICE_TYPES));
  const affinity = spec.sessionAffinity ?? '';
  if (affinity === '') errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (!['ClientIP', 'None'].includes(affinity)) {
    errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  }
  errs.push(...validateLabels(spec.selector, 'spec.selector'));
  errs.push(...validateServiceClusterIPs(spec));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if ((p.nodePort ?? 0) !== 0) errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if ((p.nodePort ?? 0) === 0) return;
    const key = `${p.protocol ?? ''}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  return errs;
}

function isHeadlessService(spec: ServiceSpec): boolean {
  return spec.clusterIPs?.length === 1 && spec.clusterIPs[0] === 'None';
}

const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const INVALID_IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy together (upstream's ValidateServiceClusterIPsRelatedFields). */
function validateServiceClusterIPs(spec: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ip = spec.clusterIP ?? '';
  const ips = spec.clusterIPs ?? [];
  if (ip !== '') {
    if (ips.length === 0) errs.push(fieldErrors.required('spec.clusterIPs'));
    else if (ips[0] !== ip) errs.push(fieldErrors.invalid('spec.clusterIPs', goStringSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errs.push(fieldErrors.invalid('spec.clusterIPs', goStringSlice(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  (spec.ipFamilies ?? []).forEach((family, i) => {
    if (!IP_FAMILIES.includes(family)) errs.push(fieldErrors.notSupported(`spec.ipFamilies[${i}]`, family, IP_FAMILIES));
    if (seen.has(family)) errs.push(fieldErrors.duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });
  if (spec.ipFamilyPolicy !== undefined && !IP_FAMILY_POLICIES.includes(spec.ipFamilyPolicy)) {
    errs.push(fieldErrors.notSupported('spec.ipFamilyPolicy', spec.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let badIPs = false;
  ips.forEach((value, i) => {
    if (i === 0 && value === 'None') {
      if (ips.length > 1) {
        badIPs = true;
        errs.push(fieldErrors.invalid('spec.clusterIPs', goStringSlice(ips), "'None' must be the first and only value"));
      }
      return;
    }
    if (!isIP(value)) {
      badIPs = true;
      errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, value, INVALID_IP_MSG));
    }
  });
  if (ips.length > 2) errs.push(fieldErrors.invalid('spec.clusterIPs', goStringSlice(ips), 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (ips.length > 1 && ips[0]!.includes(':') === ips[1]!.includes(':')) {
    errs.push(fieldErrors.invalid('spec.clusterIPs', goStringSlice(ips), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadlessService(spec)) {
    const families = spec.ipFamilies ?? [];
    ips.forEach((value, i) => {
      if (i >= families.length) return;
      const v6 = value.includes(':');
      if (families[i] === 'IPv4' && v6) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, value, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !v6) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, value, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

function validateTargetPort(target: unknown, path: string): FieldError[] {
  if (typeof target === 'number') return isValidPortNum(target).map((m) => fieldErrors.invalid(path, target, m));
  if (typeof target === 'string') return isValidPortName(target).map((m) => fieldErrors.invalid(path, target, m));
  return [];
}

const LOAD_BALANCER_IP_MODES = ['Proxy', 'VIP'];

/** A service's status write: its load balancer's ingress points (upstream's ValidateLoadBalancerStatus). */
export function validateServiceStatus(obj: KubeObject): FieldError[] {
  const svc = obj as Service;
  const ingress = svc.status?.loadBalancer?.ingress ?? [];
  const path = 'status.loadBalancer.ingress';
  if (svc.spec?.type !== 'LoadBalancer' && ingress.length > 0) return [fieldErrors.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  const errs: FieldError[] = [];
  ingress.forEach((point, i) => {
    const p = `${path}[${i}]`;
    const ip = point.ip ?? '';
    if (ip !== '') errs.push(...validateIP(ip, `${p}.ip`));
    if (point.ipMode === undefined || point.ipMode === null) {
      if (ip !== '') errs.push(fieldErrors.required(`${p}.ipMode`, 'must be specified when `ip` is set'));
    } else if (ip === '') errs.push(fieldErrors.forbidden(`${p}.ipMode`, 'may not be specified when `ip` is not set'));
    else if (!LOAD_BALANCER_IP_MODES.includes(point.ipMode)) errs.push(fieldErrors.notSupported(`${p}.ipMode`, point.ipMode, LOAD_BALANCER_IP_MODES));
    const hostname = point.hostname ?? '';
    if (hostname !== '') {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, m));
      if (parseIPSloppy(hostname) !== 0) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

export function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a = (obj as Service).spec ?? {};
  const b = (old as Service).spec ?? {};
  const errs: FieldError[] = [...validateClusterIPsUpdate(a, b), ...validateIPFamiliesUpdate(a, b)];
  errs.push(...validateService(obj));
  return errs;
}

/** Cluster IPs may be added or released (dual-stack) but never changed, except to or from ExternalName. */
function validateClusterIPsUpdate(a: ServiceSpec, b: ServiceSpec): FieldError[] {
  if (a.type === 'ExternalName' || b.type === 'ExternalName') return [];
  if (isHeadlessService(a) && isHeadlessService(b)) return [];
  const now = a.clusterIPs ?? [];
  const before = b.clusterIPs ?? [];
  const errs: FieldError[] = [];
  if (now.length === before.length) {
    before.forEach((ip, i) => {
      if (ip !== now[i]) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, goStringSlice(now), 'may not change once set'));
    });
  } else if (before.length > now.length) {
    if (now.length === 0) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', now, 'primary clusterIP can not be unset'));
    if (before.length > 0 && now.length > 0 && now[0] !== before[0]) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', goStringSlice(now), 'may not change once set'));
    if (now.length === 1 && a.ipFamilyPolicy !== 'SingleStack') {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', a.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (before.length > 0 && now[0] !== before[0]) {
    errs.push(fieldErrors.invalid('spec.clusterIPs[0]', goStringSlice(now), 'may not change once set'));
  }
  return errs;
}

function validateIPFamiliesUpdate(a: ServiceSpec, b: ServiceSpec): FieldError[] {
  if (a.type === 'ExternalName' || b.type === 'ExternalName') return [];
  if (isHeadlessService(a) || isHeadlessService(b)) return [];
  const now = a.ipFamilies ?? [];
  const before = b.ipFamilies ?? [];
  const errs: FieldError[] = [];
  if (now.length === before.length) {
    before.forEach((family, i) => {
      if (family !== now[i]) errs.push(fieldErrors.invalid('spec.ipFamilies[0]', now, 'may not change once set'));
    });
  } else if (before.length > now.length) {
    if ((a.clusterIPs ?? []).length === 0) errs.push(fieldErrors.invalid('spec.ipFamilies[0]', now, 'primary ipFamily can not be unset'));
    if (now.length > 0 && now[0] !== before[0]) errs.push(fieldErrors.invalid('spec.ipFamilies[0]', goStringSlice(a.clusterIPs), 'may not change once set'));
    if (now.length === 1 && a.ipFamilyPolicy !== 'SingleStack') {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', a.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (before.length > 0 && now.length > 0 && now[0] !== before[0]) {
    errs.push(fieldErrors.invalid('spec.ipFamilies[0]', goStringSlice(a.clusterIPs), 'may not change once set'));
  }
  return errs;
}

