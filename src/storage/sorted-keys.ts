// A sorted array of distinct string keys with binary search, for the memory
// backend's key-ordered scans: finding a range's start is O(log n) and a scan
// costs what the range holds. Insert/remove shift the array (a memmove), which
// stays cheap at the sizes a test or small cluster stores.

/** Index of the first element >= key (array.length when none). */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SortedKeys {
  private keys: string[] = [];

  get length(): number {
    return this.keys.length;
  }

  insert(key: string): void {
    const at = lowerBound(this.keys, key);
    if (this.keys[at] !== key) this.keys.splice(at, 0, key);
  }

  remove(key: string): void {
    const at = lowerBound(this.keys, key);
    if (this.keys[at] === key) this.keys.splice(at, 1);
  }

  /** Keys in [start, end) in order; an empty end means no upper bound. */
  *between(start: string, end: string): Generator<string> {
    for (let i = lowerBound(this.keys, start); i < this.keys.length; i++) {
      const key = this.keys[i];
      if (end !== '' && key >= end) return;
      yield key;
    }
  }

  /** Keeps only the keys the predicate accepts. */
  retain(keep: (key: string) => boolean): void {
    this.keys = this.keys.filter(keep);
  }
}
