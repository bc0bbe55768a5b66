// A list's JSON body spliced from its items' kept bytes (json-memo.ts).
//
// The bytes are exactly JSON.stringify(list) + trailer (as listJSONBytes's);
// the splicing is repeated here rather than there because where the bytes go
// is the response's business:
// - splicedListJSON copies head, items and tail into one buffer the caller
//   allocates (the response pool's, response-buffers.ts, for large lists);
// - listJSONParts answers with parts written in one writev. The run of items
//   (`item,item,…,item`) of a sequence of kept objects seen again is kept
//   (ItemRuns), so a list that has not changed since it was last served is
//   written from bytes made once: no per-request copy of its items at all.
//   The head (with the list's resourceVersion) is made per request.

import { isImmutable, jsonBytes } from '../machinery/json-memo.js';

const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Whether the list can be spliced: items last, at least one of them kept. */
function spliceable(list: { items?: unknown }): list is { items: unknown[] } {
  const items = list.items;
  if (!Array.isArray(items) || items.length === 0) return false;
  const keys = Object.keys(list);
  if (keys[keys.length - 1] !== 'items') return false;
  // Splicing pays only where items were encoded before (or will be again).
  return items.some((item) => isImmutable(item));
}

/** The head as JSON.stringify writes it, up to the opening bracket of items. */
function headOf(list: object): Buffer {
  return Buffer.from(JSON.stringify({ ...list, items: [] }).slice(0, -2));
}

/** Each item's bytes, and their length with the commas between them. */
function itemParts(items: readonly unknown[]): { parts: Buffer[]; size: number } {
  const parts = new Array<Buffer>(items.length);
  let size = items.length - 1;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    // JSON.stringify writes null for what has no JSON form inside an array.
    const part = typeof item === 'object' && item !== null ? jsonBytes(item) : Buffer.from(JSON.stringify(item) ?? 'null');
    parts[i] = part;
    size += part.length;
  }
  return { parts, size };
}

/** Copies the items' bytes, comma-separated, into out at `at`; returns the end. */
function copyItems(parts: readonly Buffer[], out: Buffer, at: number): number {
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[at++] = COMMA;
    out.set(parts[i]!, at);
    at += parts[i]!.length;
  }
  return at;
}

function tailOf(trailer: string): Buffer {
  return Buffer.from(`]}${trailer}`);
}

/**
 * JSON.stringify(list) + trailer as bytes in allocate(size), or undefined when
 * `items` is not the list's last key or no item keeps its bytes (the caller
 * then stringifies as usual).
 */
export function splicedListJSON(list: { items?: unknown }, trailer: string, allocate: (size: number) => Buffer): Buffer | undefined {
  if (!spliceable(list)) return undefined;
  const head = headOf(list);
  const tail = tailOf(trailer);
  const { parts, size } = itemParts(list.items);
  const out = allocate(head.length + size + tail.length);
  out.set(head, 0);
  const at = copyItems(parts, out, head.length);
  out.set(tail, at);
  return out;
}

/** A body in parts, written in order; `pooled` (one of them) goes back to the pool once written. */
export interface ListJSONParts {
  parts: Buffer[];
  size: number;
  pooled?: Buffer;
}

/**
 * JSON.stringify(list) + trailer in parts, or undefined as splicedListJSON.
 * The items' run comes from `runs` when this sequence of items was seen
 * before; otherwise the whole body is spliced into allocate(size).
 */
export function listJSONParts(list: { items?: unknown }, trailer: string, runs: ItemRuns, allocate: (size: number) => Buffer): ListJSONParts | undefined {
  if (!spliceable(list)) return undefined;
  const head = headOf(list);
  const tail = tailOf(trailer);
  const run = runs.lookup(list.items);
  if (run !== undefined) return { parts: [head, run, tail], size: head.length + run.length + tail.length };
  const { parts, size } = itemParts(list.items);
  const out = allocate(head.length + size + tail.length);
  out.set(head, 0);
  const at = copyItems(parts, out, head.length);
  out.set(tail, at);
  return { parts: [out], size: out.length, pooled: out };
}

interface RunEntry {
  /** The sequence as last seen (a copy: the caller's array is its own). */
  items: readonly unknown[];
  /** Its bytes, once the same sequence was seen twice. */
  run?: Buffer;
}

/** Upper bounds of what ItemRuns holds. */
export interface ItemRunLimits {
  /** Bytes of kept runs. */
  bytes: number;
  /** Sequences remembered (with or without a run). */
  entries: number;
  /** Items referenced by remembered sequences (they keep replaced objects alive until evicted). */
  items: number;
}

const DEFAULT_LIMITS: ItemRunLimits = { bytes: 16 * 1024 * 1024, entries: 64, items: 50_000 };

/**
 * Runs of items' bytes for sequences of kept (immutable) objects, by their
 * first object. A sequence is remembered the first time and its run made the
 * second time it is served, so a list that changes between every two reads
 * costs no more than before. Identical objects in the same order make
 * identical bytes: kept objects never change (json-memo.ts's contract). The
 * least recently used sequences go first when a limit is passed.
 */
export class ItemRuns {
  private readonly entries = new Map<unknown, RunEntry>();
  private bytes = 0;
  private items = 0;

  constructor(private readonly limits: ItemRunLimits = DEFAULT_LIMITS) {}

  /** The run of `items` when it was seen before, remembering it otherwise. */
  lookup(items: readonly unknown[]): Buffer | undefined {
    if (items.length > this.limits.items) return undefined;
    const key = items[0];
    const entry = this.entries.get(key);
    if (entry !== undefined && sameItems(entry.items, items)) {
      // Most recently used goes last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      if (entry.run !== undefined) return entry.run;
      if (!items.every((item) => isImmutable(item))) return undefined;
      const { parts, size } = itemParts(items);
      if (size > this.limits.bytes) return undefined;
      const run = Buffer.allocUnsafeSlow(size);
      copyItems(parts, run, 0);
      entry.run = run;
      this.bytes += size;
      this.trim();
      return entry.run;
    }
    if (entry !== undefined) this.forget(key, entry);
    this.entries.set(key, { items: items.slice() });
    this.items += items.length;
    this.trim();
    return undefined;
  }

  /** Bytes of runs held (tests). */
  get heldBytes(): number {
    return this.bytes;
  }

  private forget(key: unknown, entry: RunEntry): void {
    this.entries.delete(key);
    this.items -= entry.items.length;
    if (entry.run !== undefined) this.bytes -= entry.run.length;
  }

  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.limits.bytes && this.items <= this.limits.items && this.entries.size <= this.limits.entries) return;
      this.forget(key, entry);
    }
  }
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
