// Validation of a metav1.LabelSelector (upstream's
// apis/meta/v1/validation.ValidateLabelSelector) and of IPs and CIDRs
// (util/validation.IsValidIP / IsValidCIDR), shared by the groups that embed them.

import { isIP } from 'node:net';
import { type FieldError, fieldErrors } from './field-errors.js';
import { isQualifiedName, validateLabels } from './validation.js';

interface SelectorShape {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key?: string; operator?: string; values?: string[] | null }[] | null;
}

export function validateLabelSelector(selector: SelectorShape | undefined | null, path: string): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const errs: FieldError[] = [];
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(`${p}.operator`, req.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(req.key ?? '')) errs.push(fieldErrors.invalid(`${p}.key`, req.key ?? '', msg));
  });
  errs.push(...validateLabels(selector.matchLabels ?? undefined, `${path}.matchLabels`));
  return errs;
}

/** Go's netip-free sloppy parse: an IPv4 or IPv6 address (leading zeros allowed in IPv4 parts). */
export function parseIPSloppy(value: string): 4 | 6 | 0 {
  if (isIP(value) === 6) return 6;
  const parts = value.split('.');
  if (parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return 4;
  return 0;
}

export function validateIP(value: string, path: string): FieldError[] {
  return parseIPSloppy(value) === 0 ? [fieldErrors.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')] : [];
}

export interface ParsedCIDR {
  family: 4 | 6;
  /** The network address as a bigint and the prefix length. */
  network: bigint;
  bits: number;
}

function ipToBigInt(ip: string, family: 4 | 6): bigint {
  if (family === 4) return ip.split('.').reduce((acc, p) => (acc << 8n) + BigInt(Number(p)), 0n);
  // Expand "::" and any embedded IPv4 tail.
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4 !== null) {
    const n = ipToBigInt(v4[1]!, 4);
    text = `${text.slice(0, -v4[1]!.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head === '' ? [] : head!.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g, 16)), 0n);
}

/** Parses "addr/bits"; the network is the address masked to its prefix (Go's ParseCIDR). */
export function parseCIDR(value: string): ParsedCIDR | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const ip = value.slice(0, slash);
  const bitsText = value.slice(slash + 1);
  const family = parseIPSloppy(ip);
  if (family === 0 || !/^\d+$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  const width = family === 4 ? 32 : 128;
  if (bits > width) return undefined;
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(width - bits);
  return { family, network: ipToBigInt(ip, family) & mask, bits };
}

export function validateCIDR(value: string, path: string): FieldError[] {
  return parseCIDR(value) === undefined ? [fieldErrors.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')] : [];
}

/** Whether `inner`'s network address lies in `outer` (net.IPNet.Contains of the network IP). */
export function cidrContains(outer: ParsedCIDR, inner: ParsedCIDR): boolean {
  if (outer.family !== inner.family) return false;
  const width = outer.family === 4 ? 32 : 128;
  const shift = BigInt(width - outer.bits);
  return inner.network >> shift === outer.network >> shift;
}
