// Service node ports out of kube-apiserver's --service-node-port-range
// (default 30000-32767), as upstream's portallocator does it: the same
// persisted bitmap as cluster IPs (RangeAllocation, see service-ip-allocator.ts
// for why), under `{prefix}/ranges/servicenodeports`. Dynamic picks are random
// and keep the lowest band (range size / 32, clamped to 16..128) for requested
// ports until the rest is full. A changed range is rebuilt from the stored
// services.

import type { Backend } from '../storage/interface.js';
import { prefixEnd } from '../storage/interface.js';
import { decodeStoredValue } from '../storage/managed-fields-codec.js';
import { RangeAllocation } from './range-allocation.js';

export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export class PortAllocationError extends Error {
  constructor(
    readonly code: 'NotInRange' | 'Allocated' | 'Full',
    message: string,
  ) {
    super(message);
    this.name = 'PortAllocationError';
  }
}

/** Parses "30000-32767" (or "30000+2767", or one port); throws with a readable message. */
export function parsePortRange(text: string): { base: number; size: number; text: string } {
  const t = text.trim();
  let m = /^(\d+)-(\d+)$/.exec(t);
  let base: number;
  let last: number;
  if (m !== null) {
    base = Number(m[1]);
    last = Number(m[2]);
  } else if ((m = /^(\d+)\+(\d+)$/.exec(t)) !== null) {
    base = Number(m[1]);
    last = base + Number(m[2]);
  } else if (/^\d+$/.test(t)) {
    base = last = Number(t);
  } else {
    throw new Error(`unable to parse port range: ${text}`);
  }
  if (base < 0 || last > 65535 || last < base) throw new Error(`invalid port range: ${text}`);
  return { base, size: last - base + 1, text: `${base}-${last}` };
}

export interface ServiceNodePortAllocatorOptions {
  backend: Backend;
  prefix?: string;
  range?: string;
  random?: () => number;
}

export class ServiceNodePortAllocator {
  readonly range: { base: number; size: number; text: string };
  private readonly bitmap: RangeAllocation;
  private readonly backend: Backend;
  private readonly servicesPrefix: string;

  constructor(options: ServiceNodePortAllocatorOptions) {
    this.range = parsePortRange(options.range ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
    const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
    this.backend = options.backend;
    this.servicesPrefix = `${prefix}/services/`;
    const size = this.range.size;
    this.bitmap = new RangeAllocation({
      backend: options.backend,
      key: `${prefix}/ranges/servicenodeports`,
      range: this.range.text,
      size,
      staticBand: size <= 16 ? 0 : Math.min(Math.max(16, Math.floor(size / 32)), 128),
      ...(options.random !== undefined ? { random: options.random } : {}),
      rebuild: () => this.usedOffsets(),
    });
  }

  /** Throws NotInRange unless `port` belongs to the range. */
  checkInRange(port: number): number {
    const offset = port - this.range.base;
    if (!Number.isInteger(port) || offset < 0 || offset >= this.range.size) {
      throw new PortAllocationError('NotInRange', `provided port is not in the valid range. The range of valid ports is ${this.range.text}`);
    }
    return offset;
  }

  async allocate(port: number): Promise<void> {
    const offset = this.checkInRange(port);
    if (!(await this.bitmap.allocate(offset))) throw new PortAllocationError('Allocated', 'provided port is already allocated');
  }

  async allocateNext(): Promise<number> {
    const offset = await this.bitmap.allocateNext();
    if (offset === undefined) throw new PortAllocationError('Full', 'range is full');
    return this.range.base + offset;
  }

  /** Frees ports; those outside the range or not taken are ignored. */
  async release(...ports: number[]): Promise<void> {
    const offsets = ports.map((p) => p - this.range.base).filter((o) => o >= 0 && o < this.range.size);
    if (offsets.length > 0) await this.bitmap.release(...offsets);
  }

  private async usedOffsets(): Promise<number[]> {
    const res = await this.backend.range(this.servicesPrefix, prefixEnd(this.servicesPrefix));
    const out: number[] = [];
    for (const kv of res.kvs) {
      const spec = (decodeStoredValue(kv.value) as unknown as { spec?: { ports?: { nodePort?: number }[]; healthCheckNodePort?: number } }).spec ?? {};
      for (const port of [...(spec.ports ?? []).map((p) => p.nodePort ?? 0), spec.healthCheckNodePort ?? 0]) {
        const offset = port - this.range.base;
        if (port !== 0 && offset >= 0 && offset < this.range.size) out.push(offset);
      }
    }
    return out;
  }
}
