// One key each of some large objects is known to hold, so that asking whether
// a map of 100,000 keys is empty need not list its keys (Object.keys of a
// dictionary-mode object collects and sorts them all: tens of milliseconds on
// an idle core, one block of the event loop). Whoever builds or lists a large
// object's keys anyway records one (deepCopy, the assembly of a value sent in
// slices); the record is checked before it is trusted (the key may have been
// deleted since), so a stale one costs only the listing it would have saved.

const known = new WeakMap<object, string>();

/** Objects with more keys than this get their first key recorded when listed here. */
const LARGE = 1000;

/** Records that `obj` holds `key` (an own enumerable key). */
export function rememberKey(obj: object, key: string): void {
  known.set(obj, key);
}

/** Whether `obj` has no own enumerable keys, as Object.keys(obj).length === 0. */
export function isEmptyRecord(obj: object): boolean {
  const key = known.get(obj);
  if (key !== undefined && Object.prototype.propertyIsEnumerable.call(obj, key)) return false;
  const keys = Object.keys(obj);
  if (keys.length > LARGE) known.set(obj, keys[0]!);
  return keys.length === 0;
}

export const LARGE_OBJECT_KEYS = LARGE;
