// A persisted allocation bitmap over a range of offsets [0, size), stored as
// one key through the Backend (upstream's RangeAllocation object and its
// etcd-backed allocator, pkg/registry/core/service/allocator/storage).
//
// Contract:
// - The key holds JSON `{kind: "RangeAllocation", apiVersion: "v1", metadata,
//   range, data}`: `range` names what the offsets mean ("10.0.0.0/24",
//   "30000-32767"), `data` is the bitmap as base64 of a big-endian integer
//   whose bit k is set when offset k is taken (upstream's encoding).
// - Every change reads the key, changes the bitmap and writes it back guarded
//   by the modRevision it read; a conflicting write (another apiary server on
//   the same etcd) reads again and retries. Within one process changes are
//   serialised, so only servers race each other. A missing key is created.
// - When the stored `range` differs from ours (the flag changed across a
//   restart), the bitmap is rebuilt from `rebuild()` (the objects that hold
//   offsets) before the change is applied.
// - Dynamic allocation (allocateNext) picks a random free offset, preferring
//   offsets at or above `staticBand` and using the band below it only when the
//   rest is full (upstream's static subrange: requested values tend to be
//   low, random ones high).

import type { Backend, KeyValue } from '../storage/interface.js';
import { StorageError } from '../storage/interface.js';

export interface RangeAllocationOptions {
  backend: Backend;
  /** The storage key, e.g. "/registry/ranges/serviceips". */
  key: string;
  /** What the offsets mean, stored beside the bitmap ("10.0.0.0/24"). */
  range: string;
  /** How many offsets the range holds. */
  size: number;
  /** Offsets below this are handed out dynamically only when the rest is full (default 0). */
  staticBand?: number;
  /** Uniform in [0, 1); default Math.random. */
  random?: () => number;
  /** The offsets in use, from the objects that hold them (used when the stored range differs). */
  rebuild?: () => Promise<number[]>;
}

const MAX_ATTEMPTS = 64;

interface StoredRange {
  kind: 'RangeAllocation';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  range: string;
  data: string;
}

export class RangeAllocation {
  readonly range: string;
  readonly size: number;
  private readonly backend: Backend;
  private readonly key: string;
  private readonly staticBand: number;
  private readonly random: () => number;
  private readonly rebuild: (() => Promise<number[]>) | undefined;
  /** The tail of the in-process queue of changes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: RangeAllocationOptions) {
    this.backend = options.backend;
    this.key = options.key;
    this.range = options.range;
    this.size = options.size;
    this.staticBand = Math.min(options.staticBand ?? 0, options.size);
    this.random = options.random ?? Math.random;
    this.rebuild = options.rebuild;
  }

  /** Takes `offset`; false when it was already taken. */
  allocate(offset: number): Promise<boolean> {
    return this.change((bits) => {
      if (bits.has(offset)) return { write: false, result: false };
      bits.set(offset);
      return { write: true, result: true };
    });
  }

  /** Takes a free offset and returns it; undefined when the range is full. */
  allocateNext(): Promise<number | undefined> {
    return this.change((bits) => {
      const offset = this.pickFree(bits);
      if (offset === undefined) return { write: false, result: undefined };
      bits.set(offset);
      return { write: true, result: offset };
    });
  }

  /** Frees `offsets` (those not taken are ignored). */
  release(...offsets: number[]): Promise<void> {
    return this.change((bits) => {
      let write = false;
      for (const offset of offsets) {
        if (bits.has(offset)) {
          bits.clear(offset);
          write = true;
        }
      }
      return { write, result: undefined };
    });
  }

  /** Whether `offset` is taken, as stored now. */
  async has(offset: number): Promise<boolean> {
    return (await this.read()).bits.has(offset);
  }

  /** Runs one read-change-write, queued behind this process's other changes, retried on conflict. */
  private change<T>(fn: (bits: Bitmap) => { write: boolean; result: T }): Promise<T> {
    const run = async (): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        const { kv, bits, rebuilt } = await this.read();
        const { write, result } = fn(bits);
        if (!write && !rebuilt) return result;
        const value = JSON.stringify(this.encode(bits));
        try {
          if (kv === null) await this.backend.create(this.key, value);
          else await this.backend.update(this.key, value, kv.modRevision);
          return result;
        } catch (err) {
          const raced = err instanceof StorageError && (err.code === 'Conflict' || err.code === 'KeyExists' || err.code === 'KeyNotFound');
          if (!raced || attempt >= MAX_ATTEMPTS) throw err;
        }
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<{ kv: KeyValue | null; bits: Bitmap; rebuilt: boolean }> {
    const { kv } = await this.backend.get(this.key);
    if (kv === null) return { kv, bits: await this.initial(), rebuilt: false };
    const stored = JSON.parse(kv.value) as StoredRange;
    if (stored.range !== this.range) return { kv, bits: await this.initial(), rebuilt: true };
    return { kv, bits: Bitmap.decode(this.size, stored.data), rebuilt: false };
  }

  /** A fresh bitmap holding what the objects hold (empty without a rebuild source). */
  private async initial(): Promise<Bitmap> {
    const bits = new Bitmap(this.size);
    for (const offset of (await this.rebuild?.()) ?? []) if (offset >= 0 && offset < this.size) bits.set(offset);
    return bits;
  }

  private encode(bits: Bitmap): StoredRange {
    return { kind: 'RangeAllocation', apiVersion: 'v1', metadata: {}, range: this.range, data: bits.encode() };
  }

  /** A random free offset, from the dynamic band first. */
  private pickFree(bits: Bitmap): number | undefined {
    const band = this.staticBand;
    return scan(bits, band, this.size - band, this.random) ?? scan(bits, 0, band, this.random);
  }
}

/** The first free offset in [from, from+count) starting at a random point and wrapping around. */
function scan(bits: Bitmap, from: number, count: number, random: () => number): number | undefined {
  if (count <= 0) return undefined;
  const start = Math.floor(random() * count) % count;
  for (let i = 0; i < count; i++) {
    const at = from + ((start + i) % count);
    if (!bits.has(at)) return at;
  }
  return undefined;
}

/** A fixed-size bit set; bit k lives in byte k>>3 (little-endian internally). */
class Bitmap {
  private readonly bytes: Uint8Array;

  constructor(readonly size: number) {
    this.bytes = new Uint8Array(Math.ceil(size / 8));
  }

  has(k: number): boolean {
    return k >= 0 && k < this.size && (this.bytes[k >> 3]! & (1 << (k & 7))) !== 0;
  }

  set(k: number): void {
    this.bytes[k >> 3]! |= 1 << (k & 7);
  }

  clear(k: number): void {
    this.bytes[k >> 3]! &= ~(1 << (k & 7));
  }

  /** base64 of the big-endian integer, without leading zero bytes (Go's big.Int.Bytes()). */
  encode(): string {
    const be = Uint8Array.from(this.bytes).reverse();
    let first = 0;
    while (first < be.length && be[first] === 0) first++;
    return Buffer.from(be.subarray(first)).toString('base64');
  }

  static decode(size: number, data: string): Bitmap {
    const bits = new Bitmap(size);
    const be = Buffer.from(data, 'base64');
    // Right-aligned: the last byte holds bits 0-7.
    for (let i = 0; i < be.length && i < bits.bytes.length; i++) bits.bytes[i] = be[be.length - 1 - i]!;
    return bits;
  }
}
