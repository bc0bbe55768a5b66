// An ordered set of distinct string keys, for the memory backend's and the
// watch cache's key-ordered scans: insert, remove and finding a range's start
// are O(log n), and a scan costs what the range holds.
//
// Backed by sorted-btree's B+ tree. A sorted array with binary search was here
// before: its insert shifts every later key, which cost 18 µs a create with
// 24,000 configmaps in the cache when new names sorted before the old ones,
// and grows with the store.

import btree from 'sorted-btree';

// sorted-btree is CommonJS with its class on `default`.
const BTree = btree.default;

/** Keys in code-unit order, as `<` compares strings (etcd's byte order for ASCII keys). */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class SortedKeys {
  private readonly tree = new BTree<string, undefined>(undefined, compareKeys);
  /** Reused by firstFrom: the tree writes its answer here instead of allocating a pair. */
  private readonly pair: [string, undefined] = ['', undefined];

  get length(): number {
    return this.tree.size;
  }

  insert(key: string): void {
    this.tree.set(key, undefined, false);
  }

  remove(key: string): void {
    this.tree.delete(key);
  }

  /**
   * Keys in [start, end) in order; an empty end means no upper bound. The set
   * must not change while the generator is being consumed.
   */
  *between(start: string, end: string): Generator<string> {
    for (const key of this.tree.keys(start)) {
      if (end !== '' && key >= end) return;
      yield key;
    }
  }

  /** The first key at or after `start` (undefined: none), without an iterator: for emptiness checks on hot paths. */
  firstFrom(start: string): string | undefined {
    return this.tree.getPairOrNextHigher(start, this.pair)?.[0];
  }

  /** Keeps only the keys the predicate accepts. */
  retain(keep: (key: string) => boolean): void {
    const dropped: string[] = [];
    this.tree.forEach((_value, key) => {
      if (!keep(key)) dropped.push(key);
    });
    for (const key of dropped) this.tree.delete(key);
  }
}
