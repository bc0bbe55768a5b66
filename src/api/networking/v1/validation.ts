// networking.k8s.io/v1 validation (upstream pkg/apis/networking/validation):
// network policies (ports, peers, ipBlocks, policy types), ingresses (rules,
// paths, backends, TLS, class name, load balancer status) and ingress classes.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors, GoValue } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Label, isDNS1123Subdomain, regexError } from '../../../machinery/validation.js';
import { cidrContains, parseCIDR, parseIPSloppy, validateCIDR, validateIP, validateLabelSelector } from '../../../machinery/selector-validation.js';
import { isValidPortName, isValidPortNum } from '../../core/v1/validation.js';
import type { Loose } from '../../loose.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const SCOPES = ['Cluster', 'Namespace'];

function validatePolicyPort(port: Loose, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && port.protocol !== null && !PROTOCOLS.includes(port.protocol)) {
    errs.push(fieldErrors.notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  }
  const p = port.port;
  const end = port.endPort;
  const hasEnd = end !== undefined && end !== null;
  if (p === undefined || p === null) {
    if (hasEnd) errs.push(fieldErrors.invalid(`${path}.endPort`, end, 'may not be specified when `port` is not specified'));
  } else if (typeof p === 'number') {
    for (const m of isValidPortNum(p)) errs.push(fieldErrors.invalid(`${path}.port`, p, m));
    if (hasEnd) {
      if (end < p) errs.push(fieldErrors.invalid(`${path}.endPort`, p, 'must be greater than or equal to `port`'));
      for (const m of isValidPortNum(end)) errs.push(fieldErrors.invalid(`${path}.endPort`, end, m));
    }
  } else {
    if (hasEnd) errs.push(fieldErrors.invalid(`${path}.endPort`, end, 'may not be specified when `port` is non-numeric'));
    for (const m of isValidPortName(String(p))) errs.push(fieldErrors.invalid(`${path}.port`, p, m));
  }
  return errs;
}

function validateIPBlock(block: Loose, path: string): FieldError[] {
  const cidr = block.cidr ?? '';
  if (cidr === '') return [fieldErrors.required(`${path}.cidr`)];
  const errs = validateCIDR(cidr, `${path}.cidr`);
  const outer = parseCIDR(cidr);
  if (outer === undefined) return errs;
  (block.except ?? []).forEach((except: string, i: number) => {
    const p = `${path}.except[${i}]`;
    errs.push(...validateCIDR(except, p));
    const inner = parseCIDR(except);
    if (inner === undefined) return;
    if (!cidrContains(outer, inner) || outer.bits >= inner.bits) errs.push(fieldErrors.invalid(p, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: Loose, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  if (peer.podSelector != null) {
    count++;
    errs.push(...validateLabelSelector(peer.podSelector, `${path}.podSelector`));
  }
  if (peer.namespaceSelector != null) {
    count++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, `${path}.namespaceSelector`));
  }
  if (peer.ipBlock != null) {
    count++;
    errs.push(...validateIPBlock(peer.ipBlock, `${path}.ipBlock`));
  }
  if (count === 0) errs.push(fieldErrors.required(path, 'must specify a peer'));
  else if (count > 1 && peer.ipBlock != null) errs.push(fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

export function validateNetworkPolicy(obj: KubeObject): FieldError[] {
  const spec: Loose = (obj as Loose).spec ?? {};
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  (spec.ingress ?? []).forEach((rule: Loose, i: number) => {
    (rule.ports ?? []).forEach((port: Loose, j: number) => errs.push(...validatePolicyPort(port, `spec.ingress[${i}].ports[${j}]`)));
    (rule.from ?? []).forEach((peer: Loose, j: number) => errs.push(...validatePeer(peer, `spec.ingress[${i}].from[${j}]`)));
  });
  (spec.egress ?? []).forEach((rule: Loose, i: number) => {
    (rule.ports ?? []).forEach((port: Loose, j: number) => errs.push(...validatePolicyPort(port, `spec.egress[${i}].ports[${j}]`)));
    (rule.to ?? []).forEach((peer: Loose, j: number) => errs.push(...validatePeer(peer, `spec.egress[${i}].to[${j}]`)));
  });
  const types: string[] = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    errs.push(fieldErrors.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(fieldErrors.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return errs;
}

// ---- ingresses ------------------------------------------------------------

const WILDCARD_FMT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!new RegExp(`^${WILDCARD_FMT}$`).test(value)) errs.push(regexError(WILDCARD_MSG, WILDCARD_FMT, '*.example.com'));
  return errs;
}

function validateHost(host: string, path: string): FieldError[] {
  const check = host.includes('*') ? isWildcardDNS1123Subdomain : isDNS1123Subdomain;
  return check(host).map((m) => fieldErrors.invalid(path, host, m));
}

function validateTypedRef(ref: Loose, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup != null) for (const m of isDNS1123Subdomain(ref.apiGroup)) errs.push(fieldErrors.invalid(`${path}.apiGroup`, ref.apiGroup, m));
  for (const f of ['kind', 'name'] as const) {
    const v: string = ref[f] ?? '';
    if (v === '') errs.push(fieldErrors.required(`${path}.${f}`, `${f} is required`));
    else for (const m of pathSegmentErrors(v)) errs.push(fieldErrors.invalid(`${path}.${f}`, v, m));
  }
  return errs;
}

function pathSegmentErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

function validateBackend(backend: Loose, path: string): FieldError[] {
  const hasResource = backend.resource != null;
  const hasService = backend.service != null;
  if (hasResource && hasService) return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedRef(backend.resource, `${path}.resource`);
  if (!hasService) return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const svc: Loose = backend.service;
  const name: string = svc.name ?? '';
  if (name === '') errs.push(fieldErrors.required(`${path}.service.name`));
  else {
    const msgs = /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name) && name.length <= 63 ? [] : isDNS1035LabelMessages(name);
    for (const m of msgs) errs.push(fieldErrors.invalid(`${path}.service.name`, name, m));
  }
  const portName: string = svc.port?.name ?? '';
  const portNumber: number = svc.port?.number ?? 0;
  if (portName !== '' && portNumber !== 0) errs.push(fieldErrors.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const m of isValidPortName(portName)) errs.push(fieldErrors.invalid(`${path}.service.port.name`, portName, m));
  else if (portNumber !== 0) for (const m of isValidPortNum(portNumber)) errs.push(fieldErrors.invalid(`${path}.service.port.number`, portNumber, m));
  else errs.push(fieldErrors.required(path, 'port name or number is required'));
  return errs;
}

/** Service names are DNS-1035 labels. */
function isDNS1035LabelMessages(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 63) errs.push('must be no more than 63 characters');
  const fmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
  if (!new RegExp(`^${fmt}$`).test(name)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        fmt,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

function validateHTTPPath(p: Loose, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = p.pathType;
  if (type === undefined || type === null) return [fieldErrors.required(`${path}.pathType`, 'pathType must be specified')];
  const value: string = p.path ?? '';
  if (type === 'Exact' || type === 'Prefix') {
    if (!value.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, value, 'must be an absolute path'));
    if (value.length > 0) {
      for (const seq of ['//', '/./', '/../', '%2f', '%2F']) if (value.includes(seq)) errs.push(fieldErrors.invalid(`${path}.path`, value, `must not contain '${seq}'`));
      for (const suffix of ['/..', '/.']) if (value.endsWith(suffix)) errs.push(fieldErrors.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
    }
  } else if (type === 'ImplementationSpecific') {
    if (value.length > 0 && !value.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, value, 'must be an absolute path'));
  } else {
    errs.push(fieldErrors.notSupported(`${path}.pathType`, type, PATH_TYPES));
  }
  errs.push(...validateBackend(p.backend ?? {}, `${path}.backend`));
  return errs;
}

export function validateIngress(obj: KubeObject): FieldError[] {
  const ing = obj as Loose;
  const spec: Loose = ing.spec ?? {};
  const errs: FieldError[] = [];
  const rules: Loose[] = spec.rules ?? [];
  if (rules.length === 0 && spec.defaultBackend == null) {
    errs.push(fieldErrors.invalid('spec', new GoValue(spec.rules == null ? '[]networking.IngressRule(nil)' : '[]networking.IngressRule{}'), 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend != null) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const p = `spec.rules[${i}]`;
    const host: string = rule.host ?? '';
    if (host !== '') {
      if (parseIPSloppy(host) !== 0) errs.push(fieldErrors.invalid(`${p}.host`, host, 'must be a DNS name, not an IP address'));
      errs.push(...validateHost(host, `${p}.host`));
    }
    if (rule.http != null) {
      const paths: Loose[] = rule.http.paths ?? [];
      if (paths.length === 0) errs.push(fieldErrors.required(`${p}.http.paths`));
      paths.forEach((hp, j) => errs.push(...validateHTTPPath(hp, `${p}.http.paths[${j}]`)));
    }
  });
  (spec.tls ?? []).forEach((tls: Loose, i: number) => {
    (tls.hosts ?? []).forEach((host: string, j: number) => errs.push(...validateHost(host, `spec.tls[${i}].hosts[${j}]`)));
    const secret: string = tls.secretName ?? '';
    if (secret !== '') for (const m of isDNS1123Subdomain(secret)) errs.push(fieldErrors.invalid(`spec.tls[${i}].secretName`, secret, m));
  });
  if (spec.ingressClassName != null) {
    for (const m of isDNS1123Subdomain(spec.ingressClassName)) errs.push(fieldErrors.invalid('spec.ingressClassName', spec.ingressClassName, m));
  }
  return errs;
}

export function validateIngressCreate(obj: KubeObject): FieldError[] {
  const errs = validateIngress(obj);
  const annotation = obj.metadata.annotations?.['kubernetes.io/ingress.class'];
  const className = (obj as Loose).spec?.ingressClassName;
  if (annotation !== undefined && className != null && annotation !== className) {
    errs.push(fieldErrors.invalid('annotations.kubernetes.io/ingress.class', annotation, 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

export function validateIngressStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  ((obj as Loose).status?.loadBalancer?.ingress ?? []).forEach((lb: Loose, i: number) => {
    const p = `status.loadBalancer.ingress[${i}]`;
    if ((lb.ip ?? '') !== '') errs.push(...validateIP(lb.ip, `${p}.ip`));
    const hostname: string = lb.hostname ?? '';
    if (hostname !== '') {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, m));
      if (parseIPSloppy(hostname) !== 0) errs.push(fieldErrors.invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

// ---- ingress classes ------------------------------------------------------

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

function validateDomainPrefixedPath(value: string, path: string): FieldError[] {
  if (value === '') return [fieldErrors.required(path)];
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = value.slice(0, slash);
  const rest = value.slice(slash + 1);
  const errs = isDNS1123Subdomain(host).map((m) => fieldErrors.invalid(path, host, m));
  if (!new RegExp(`^${HTTP_PATH_FMT}$`).test(rest)) errs.push(fieldErrors.invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

export function validateIngressClass(obj: KubeObject): FieldError[] {
  const spec: Loose = (obj as Loose).spec ?? {};
  const errs: FieldError[] = [];
  const controller: string = spec.controller ?? '';
  if (controller.length > 250) errs.push(fieldErrors.tooLong('spec.controller', 250));
  errs.push(...validateDomainPrefixedPath(controller, 'spec.controller'));
  const params = spec.parameters;
  if (params != null) {
    errs.push(...validateTypedRef(params, 'spec.parameters'));
    if (params.scope == null) errs.push(fieldErrors.required('spec.parameters.scope'));
    else if (!SCOPES.includes(params.scope)) errs.push(fieldErrors.notSupported('spec.parameters.scope', params.scope, SCOPES));
    else if (params.scope === 'Namespace') {
      if (params.namespace == null) errs.push(fieldErrors.required('spec.parameters.namespace', "`parameters.scope` is set to 'Namespace'"));
      else for (const m of isDNS1123Label(params.namespace)) errs.push(fieldErrors.invalid('spec.parameters.namespace', params.namespace, m));
    } else if (params.namespace != null) {
      errs.push(fieldErrors.forbidden('spec.parameters.namespace', "`parameters.scope` is set to 'Cluster'"));
    }
  }
  return errs;
}

export function validateIngressClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a: string = (obj as Loose).spec?.controller ?? '';
  const b: string = (old as Loose).spec?.controller ?? '';
  const errs = a !== b ? [fieldErrors.invalid('spec.controller', a, FIELD_IMMUTABLE_ERROR_MSG)] : [];
  return [...errs, ...validateIngressClass(obj)];
}
