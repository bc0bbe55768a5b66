// The watch caches' kept objects for lists and GETs (see CachedObjectStore's
// sharedItems), bounded by ONE budget of stored bytes for every resource of a
// server rather than one per resource: what a kept object costs (its parsed,
// frozen form and the JSON bytes json-memo.ts keeps beside it, a few times its
// stored size) then stays within one figure however many resources are large.
//
// Contract:
// - A ListMemo holds, per key, the cache entry an object was parsed from and
//   the object; get(key, entry) answers only for that very entry (a newer
//   revision is a new entry, so an old state is never served).
// - The bytes counted are the entries' stored value lengths. When keeping one
//   more would pass the budget, every memo of the budget is emptied (the kept
//   objects are made again as reads ask for them); a single entry larger than
//   the budget is not kept.
// - A memo is registered with its budget while it holds anything; close()
//   empties it and lets it go.

import type { KubeObject } from '../../machinery/meta.js';
import type { CachedObject } from './watch-cache.js';

/** The default budget of stored bytes whose kept objects a server's watch caches share. */
export const DEFAULT_LIST_MEMO_BYTES = 16 * 1024 * 1024;

export class ListMemoBudget {
  private used = 0;
  private readonly memos = new Set<ListMemo>();

  constructor(readonly limitBytes: number = DEFAULT_LIST_MEMO_BYTES) {}

  get usedBytes(): number {
    return this.used;
  }

  /** Takes `bytes` for `memo`; false (having emptied every memo) when they would pass the limit. */
  take(memo: ListMemo, bytes: number): boolean {
    if (this.used + bytes > this.limitBytes) {
      for (const m of [...this.memos]) m.clear();
      if (bytes > this.limitBytes) return false;
    }
    this.used += bytes;
    this.memos.add(memo);
    return true;
  }

  give(memo: ListMemo, bytes: number, empty: boolean): void {
    this.used -= bytes;
    if (empty) this.memos.delete(memo);
  }
}

export class ListMemo {
  private readonly held = new Map<string, { entry: CachedObject; object: KubeObject }>();
  private bytes = 0;

  constructor(readonly budget: ListMemoBudget) {}

  get enabled(): boolean {
    return this.budget.limitBytes > 0;
  }

  get size(): number {
    return this.held.size;
  }

  /** The object kept for exactly this entry. */
  get(entry: CachedObject): KubeObject | undefined {
    const held = this.held.get(entry.key);
    return held !== undefined && held.entry === entry ? held.object : undefined;
  }

  set(entry: CachedObject, object: KubeObject): void {
    this.delete(entry.key);
    if (!this.budget.take(this, entry.value.length)) return;
    this.held.set(entry.key, { entry, object });
    this.bytes += entry.value.length;
  }

  /** Lets a key's kept object go (its object changed or went). */
  delete(key: string): void {
    const held = this.held.get(key);
    if (held === undefined) return;
    this.held.delete(key);
    this.bytes -= held.entry.value.length;
    this.budget.give(this, held.entry.value.length, this.held.size === 0);
  }

  clear(): void {
    if (this.held.size === 0) return;
    this.held.clear();
    const bytes = this.bytes;
    this.bytes = 0;
    this.budget.give(this, bytes, true);
  }
}
