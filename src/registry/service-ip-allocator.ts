// Service cluster IPs out of the service CIDR (kube-apiserver's
// --service-cluster-ip-range, default 10.0.0.0/24), as upstream's bitmap
// allocator (pkg/registry/core/service/ipallocator) does it.
//
// Design: one allocation bitmap per range, stored through the Backend under
// `{prefix}/ranges/serviceips` (upstream's key) and changed only by guarded
// read-modify-write (compare the modRevision, retry on conflict): see
// RangeAllocation. We chose the persisted bitmap over deriving the used set
// from the services at each allocation because it makes an allocation one
// small guarded write, whatever the number of services, and two apiary
// servers on one etcd cannot hand out the same IP: the second write of a
// racing pair conflicts and retries on the new bitmap. Allocation happens
// before the service is written and is released if that write fails; the
// small window where a crash leaks an IP is what upstream's repair controller
// closes (not implemented here). When the stored range differs from the
// configured one (the flag changed across restarts), the bitmap is rebuilt
// from the stored services.
//
// The network and broadcast addresses are never handed out. Dynamic picks are
// random and prefer the upper part of the range; the lower band (range size /
// 16, clamped to 16..256; none for ranges of 16 addresses or fewer) is kept
// for requested IPs until the rest is full (upstream's static subrange).
// Only IPv4 ranges are supported.

import type { Backend } from '../storage/interface.js';
import { prefixEnd } from '../storage/interface.js';
import { decodeStoredValue } from '../storage/managed-fields-codec.js';
import { RangeAllocation } from './range-allocation.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

/** Why an allocation failed, with upstream's wording. */
export class IPAllocationError extends Error {
  constructor(
    readonly code: 'NotInRange' | 'Allocated' | 'Full',
    message: string,
  ) {
    super(message);
    this.name = 'IPAllocationError';
  }
}

export interface ParsedCIDR {
  /** The network address as an unsigned 32-bit number. */
  network: number;
  prefixLength: number;
  /** Canonical text, e.g. "10.0.0.0/24". */
  text: string;
}

/** Parses an IPv4 CIDR ("10.0.0.0/24"); host bits are masked off. Throws with a readable message. */
export function parseIPv4CIDR(text: string): ParsedCIDR {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(text.trim());
  const address = m === null ? undefined : parseIPv4(m[1]!);
  const prefixLength = m === null ? NaN : Number(m[2]);
  if (address === undefined || !(prefixLength >= 0 && prefixLength <= 32)) {
    throw new Error(`invalid CIDR address: ${text}${text.includes(':') ? ' (only IPv4 service ranges are supported)' : ''}`);
  }
  const mask = prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
  const network = (address & mask) >>> 0;
  return { network, prefixLength, text: `${formatIPv4(network)}/${prefixLength}` };
}

/** An IPv4 dotted quad as an unsigned 32-bit number, or undefined. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export interface ServiceIPAllocatorOptions {
  backend: Backend;
  /** Storage key prefix (default "/registry"). */
  prefix?: string;
  /** The service CIDR (default 10.0.0.0/24). */
  cidr?: string;
  random?: () => number;
}

export class ServiceIPAllocator {
  readonly cidr: ParsedCIDR;
  /** The first usable address (network + 1). */
  private readonly base: number;
  private readonly bitmap: RangeAllocation;
  private readonly backend: Backend;
  private readonly servicesPrefix: string;

  constructor(options: ServiceIPAllocatorOptions) {
    this.cidr = parseIPv4CIDR(options.cidr ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
    const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
    this.backend = options.backend;
    this.servicesPrefix = `${prefix}/services/`;
    const total = 2 ** (32 - this.cidr.prefixLength);
    // Neither the network nor the broadcast address.
    const size = Math.max(0, total - 2);
    this.base = this.cidr.network + 1;
    this.bitmap = new RangeAllocation({
      backend: options.backend,
      key: `${prefix}/ranges/serviceips`,
      range: this.cidr.text,
      size,
      staticBand: total <= 16 ? 0 : Math.min(Math.max(16, Math.floor(total / 16)), 256),
      ...(options.random !== undefined ? { random: options.random } : {}),
      rebuild: () => this.usedOffsets(),
    });
  }

  /** Whether `ip` is an address this range hands out. */
  contains(ip: string): boolean {
    return this.offsetOf(ip) !== undefined;
  }

  /** Takes the requested `ip`; throws IPAllocationError NotInRange or Allocated. */
  async allocate(ip: string): Promise<void> {
    const offset = this.checkInRange(ip);
    if (!(await this.bitmap.allocate(offset))) throw new IPAllocationError('Allocated', 'provided IP is already allocated');
  }

  /** Takes a free IP; throws IPAllocationError Full. */
  async allocateNext(): Promise<string> {
    const offset = await this.bitmap.allocateNext();
    if (offset === undefined) throw new IPAllocationError('Full', 'range is full');
    return formatIPv4(this.base + offset);
  }

  /** The range's network address: what a dry run answers for a cluster IP it would pick. */
  networkAddress(): string {
    return formatIPv4(this.cidr.network);
  }

  /** Frees IPs; those outside the range or not taken are ignored. */
  async release(...ips: string[]): Promise<void> {
    const offsets = ips.map((ip) => this.offsetOf(ip)).filter((o): o is number => o !== undefined);
    if (offsets.length > 0) await this.bitmap.release(...offsets);
  }

  /** Whether `ip` is taken now. */
  async has(ip: string): Promise<boolean> {
    const offset = this.offsetOf(ip);
    return offset !== undefined && (await this.bitmap.has(offset));
  }

  /** Throws NotInRange unless `ip` belongs to the range; returns its offset. */
  checkInRange(ip: string): number {
    const offset = this.offsetOf(ip);
    if (offset === undefined) {
      throw new IPAllocationError('NotInRange', `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`);
    }
    return offset;
  }

  private offsetOf(ip: string): number | undefined {
    const n = parseIPv4(ip);
    if (n === undefined) return undefined;
    const offset = n - this.base;
    return offset >= 0 && offset < this.bitmap.size ? offset : undefined;
  }

  /** The offsets the stored services hold (rebuilding the bitmap after a range change). */
  private async usedOffsets(): Promise<number[]> {
    const res = await this.backend.range(this.servicesPrefix, prefixEnd(this.servicesPrefix));
    const out: number[] = [];
    for (const kv of res.kvs) {
      const spec = (decodeStoredValue(kv.value) as unknown as { spec?: { type?: string; clusterIPs?: string[]; clusterIP?: string } }).spec ?? {};
      if (spec.type === 'ExternalName') continue;
      for (const ip of spec.clusterIPs ?? (spec.clusterIP !== undefined ? [spec.clusterIP] : [])) {
        const offset = this.offsetOf(ip);
        if (offset !== undefined) out.push(offset);
      }
    }
    return out;
  }
}
