// What the watch cache hands out: the events each watcher sees (shared by every
// unfiltered watcher, or as a watcher's predicate turns them into ADDED or
// DELETED), and the frozen objects getCached shares between callers.

import type { Predicate, StoreWatchEvent } from '../object-store.js';
import type { CacheEvent } from './watch-cache.js';
import { isCorruptObjectError } from '../corrupt-values.js';

/** The events as every unfiltered watcher sees them, without those whose value cannot be decoded. */
export function sharedEvents(events: readonly CacheEvent[]): StoreWatchEvent[] {
  const out: StoreWatchEvent[] = [];
  for (const e of events) {
    try {
      out.push(e.shared());
    } catch (err) {
      if (!isCorruptObjectError(err)) throw err;
    }
  }
  return out;
}

/** A cache event as a watcher with this predicate sees it (null: not at all). */
export function watcherEvent(e: CacheEvent, predicate: Predicate | undefined): StoreWatchEvent | null {
  if (predicate === undefined) return e.shared();
  const shared = e.shared();
  if (e.type === 'ADDED') return predicate(shared.object) ? shared : null;
  if (e.type === 'DELETED') return predicate(shared.object) ? shared : null;
  const now = predicate(shared.object);
  const previous = e.previous();
  const before = previous === undefined ? now : predicate(previous);
  if (now && before) return shared;
  if (now) return { type: 'ADDED', object: shared.object };
  if (before) return { type: 'DELETED', object: previous! };
  return null;
}

/** Freezes a parsed JSON value all the way down (getCached's objects are shared between callers). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
