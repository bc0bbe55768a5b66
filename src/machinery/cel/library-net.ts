// The Kubernetes IP and CIDR CEL libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go):
// Go's netip parsing rules (no zones, no IPv4-mapped IPv6, no leading zeros), canonical forms.

import { isIPv4, isIPv6 } from 'node:net';

/** A parsed address: 4 or 16 bytes. */
export class CelIP {
  constructor(readonly bytes: Uint8Array) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    return formatIP(this.bytes);
  }
}

export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly prefixLength: number,
  ) {}
  toString(): string {
    return `${this.ip.toString()}/${this.prefixLength}`;
  }
}

function parseIPv4(s: string): Uint8Array | undefined {
  if (!isIPv4(s)) return undefined;
  const parts = s.split('.');
  if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  return new Uint8Array(parts.map(Number));
}

function parseIPv6(s: string): Uint8Array | undefined {
  if (s.includes('%') || !isIPv6(s)) return undefined;
  let head = s;
  let v4: Uint8Array | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return undefined;
    head = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = head.split('::') as [string, string | undefined];
  const groups = (x: string): number[] => (x === '' ? [] : x.split(':').map((g) => parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const all = right === undefined ? l : [...l, ...new Array(8 - l.length - r.length).fill(0), ...r];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (v4) out.set(v4, 12);
  return out;
}

const isV4Mapped = (b: Uint8Array): boolean => b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

export function parseIP(s: string): CelIP | undefined {
  const v4 = parseIPv4(s);
  if (v4) return new CelIP(v4);
  const v6 = parseIPv6(s);
  if (!v6 || isV4Mapped(v6)) return undefined;
  return new CelIP(v6);
}

export function parseCIDR(s: string): CelCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!ip || !/^(0|[1-9][0-9]*)$/.test(bits)) return undefined;
  const n = Number(bits);
  if (n > ip.bytes.length * 8) return undefined;
  return new CelCIDR(ip, n);
}

/** Canonical text: dotted quad, or RFC 5952 (lower case, the longest run of zero groups as ::). */
function formatIP(b: Uint8Array): string {
  if (b.length === 4) return [...b].join('.');
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((b[i]! << 8) | b[i + 1]!);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

export function masked(c: CelCIDR): CelCIDR {
  const b = new Uint8Array(c.ip.bytes);
  for (let i = 0; i < b.length; i++) {
    const keep = Math.max(0, Math.min(8, c.prefixLength - i * 8));
    b[i] = b[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return new CelCIDR(new CelIP(b), c.prefixLength);
}

export function containsIP(c: CelCIDR, ip: CelIP): boolean {
  if (ip.bytes.length !== c.ip.bytes.length) return false;
  const m = masked(c).ip.bytes;
  const x = masked(new CelCIDR(ip, c.prefixLength)).ip.bytes;
  return m.every((v, i) => v === x[i]);
}

export function containsCIDR(c: CelCIDR, other: CelCIDR): boolean {
  return other.prefixLength >= c.prefixLength && containsIP(c, other.ip);
}

export function isLoopback(ip: CelIP): boolean {
  const b = ip.bytes;
  return b.length === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
}

export function isUnspecified(ip: CelIP): boolean {
  return ip.bytes.every((x) => x === 0);
}

export function isLinkLocalUnicast(ip: CelIP): boolean {
  const b = ip.bytes;
  return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
}

export function isLinkLocalMulticast(ip: CelIP): boolean {
  const b = ip.bytes;
  return b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
}

export function isGlobalUnicast(ip: CelIP): boolean {
  const b = ip.bytes;
  if (b.length === 4 && b.every((x) => x === 255)) return false;
  const multicast = b.length === 4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff;
  return !isUnspecified(ip) && !isLoopback(ip) && !multicast && !isLinkLocalUnicast(ip);
}
