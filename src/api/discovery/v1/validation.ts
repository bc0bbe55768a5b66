// discovery.k8s.io/v1 EndpointSlice defaults and validation (upstream
// pkg/apis/discovery/v1/defaults.go and pkg/apis/discovery/validation).

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateLabels } from '../../../machinery/validation.js';
import { parseIPSloppy } from '../../../machinery/selector-validation.js';
import type { Loose } from '../../loose.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;

export function defaultEndpointSlice(obj: KubeObject): void {
  for (const port of ((obj as Loose).ports ?? []) as Loose[]) {
    port.name ??= '';
    port.protocol ??= 'TCP';
  }
}

/** net.IP's special ranges, as ValidateNonSpecialIP words them. */
function nonSpecialIP(address: string, path: string): FieldError[] {
  const family = parseIPSloppy(address);
  if (family === 0) return [fieldErrors.invalid(path, address, 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const lower = address.toLowerCase();
  if (family === 4) {
    const octets = address.split('.').map(Number);
    if (octets.every((o) => o === 0)) errs.push(fieldErrors.invalid(path, address, `may not be unspecified (${address})`));
    if (octets[0] === 127) errs.push(fieldErrors.invalid(path, address, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
    if (octets[0] === 169 && octets[1] === 254) errs.push(fieldErrors.invalid(path, address, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
    if (octets[0] === 224 && octets[1] === 0 && octets[2] === 0) {
      errs.push(fieldErrors.invalid(path, address, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
    }
  } else {
    if (/^[0:]+$/.test(lower)) errs.push(fieldErrors.invalid(path, address, `may not be unspecified (${address})`));
    if (/^(0*:)*:?0*1$/.test(lower) && lower.replace(/[0:]/g, '') === '1') errs.push(fieldErrors.invalid(path, address, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
    if (/^fe[89ab]/.test(lower)) errs.push(fieldErrors.invalid(path, address, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
    if (/^ff[0-9a-f]2:/.test(lower)) errs.push(fieldErrors.invalid(path, address, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

function fqdn(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path)];
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  const sub = isDNS1123Subdomain(trimmed);
  if (sub.length > 0) return [fieldErrors.invalid(path, trimmed, sub.join(','))];
  const labels = trimmed.split('.');
  if (labels.length < 2) return [fieldErrors.invalid(path, trimmed, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length > 0) return [fieldErrors.invalid(path, label, errs.join(','))];
  }
  return [];
}

function validateAddress(address: string, type: string, path: string): FieldError[] {
  if (type === 'FQDN') return fqdn(address, path);
  if (type !== 'IPv4' && type !== 'IPv6') return [];
  const family = parseIPSloppy(address);
  const errs: FieldError[] = [];
  if (type === 'IPv4' && family !== 4) errs.push(fieldErrors.invalid(path, address, 'must be a valid IPv4 address'));
  if (type === 'IPv6' && family !== 6) errs.push(fieldErrors.invalid(path, address, 'must be a valid IPv6 address'));
  return [...errs, ...nonSpecialIP(address, path)];
}

export function validateEndpointSlice(obj: KubeObject): FieldError[] {
  const slice = obj as Loose;
  const errs: FieldError[] = [];
  const type: string = slice.addressType ?? '';
  if (type === '') errs.push(fieldErrors.required('addressType'));
  else if (!ADDRESS_TYPES.includes(type)) errs.push(fieldErrors.notSupported('addressType', type, ADDRESS_TYPES));

  const endpoints: Loose[] = slice.endpoints ?? [];
  if (endpoints.length > MAX_ENDPOINTS) errs.push(fieldErrors.tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else {
    endpoints.forEach((ep, i) => {
      const p = `endpoints[${i}]`;
      const addresses: string[] = ep.addresses ?? [];
      if (addresses.length === 0) errs.push(fieldErrors.required(`${p}.addresses`, 'must contain at least 1 address'));
      else if (addresses.length > MAX_ADDRESSES) errs.push(fieldErrors.tooMany(`${p}.addresses`, addresses.length, MAX_ADDRESSES));
      addresses.forEach((a, j) => errs.push(...validateAddress(a, type, `${p}.addresses[${j}]`)));
      if (ep.nodeName != null) for (const m of isDNS1123Subdomain(ep.nodeName)) errs.push(fieldErrors.invalid(`${p}.nodeName`, ep.nodeName, m));
      const topology: Record<string, string> = ep.deprecatedTopology ?? {};
      if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
        errs.push(fieldErrors.tooMany(`${p}.deprecatedTopology`, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
      }
      errs.push(...validateLabels(topology, `${p}.deprecatedTopology`));
      if (ep.hostname != null) for (const m of isDNS1123Label(ep.hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, ep.hostname, m));
      const zones: Loose[] = ep.hints?.forZones ?? [];
      if (zones.length > MAX_ZONE_HINTS) errs.push(fieldErrors.tooMany(`${p}.hints.forZones`, zones.length, MAX_ZONE_HINTS));
      else {
        const seen = new Set<string>();
        zones.forEach((z, k) => {
          const zp = `${p}.hints.forZones[${k}].name`;
          const name: string = z.name ?? '';
          if (seen.has(name)) errs.push(fieldErrors.duplicate(zp, name));
          seen.add(name);
          for (const m of isValidLabelValue(name)) errs.push(fieldErrors.invalid(zp, name, m));
        });
      }
    });
  }

  const ports: Loose[] = slice.ports ?? [];
  if (ports.length > MAX_PORTS) errs.push(fieldErrors.tooMany('ports', ports.length, MAX_PORTS));
  else {
    const names = new Set<string>();
    ports.forEach((port, i) => {
      const p = `ports[${i}]`;
      const name: string = port.name ?? '';
      if (name !== '') for (const m of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      names.add(name);
      if (port.protocol == null) errs.push(fieldErrors.required(`${p}.protocol`));
      else if (!PROTOCOLS.includes(port.protocol)) errs.push(fieldErrors.notSupported(`${p}.protocol`, port.protocol, PROTOCOLS));
      if (port.appProtocol != null) for (const m of isQualifiedName(port.appProtocol)) errs.push(fieldErrors.invalid(`${p}.appProtocol`, port.appProtocol, m));
    });
  }
  return errs;
}

export function validateEndpointSliceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateEndpointSlice(obj);
  const a = (obj as Loose).addressType;
  if (a !== (old as Loose).addressType) errs.push(fieldErrors.invalid('addressType', a ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}
