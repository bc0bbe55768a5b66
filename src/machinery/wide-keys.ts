// The key lists of the large maps a large request assembled (json-slices.ts),
// kept so that this thread never lists them again while the request runs.
//
// Why: Object.keys (or for-in, or JSON.stringify) of a dictionary-mode object
// collects and sorts all its keys at once: about 15 ms for 100,000 keys on an
// idle core, one block of the event loop that no slicing can split. A
// 100,000-key create listed its data map five times on the loop (the field
// set's and the stored value's JSON, validation, the answer), each a block
// three times the slice budget (issue 29: the noisy neighbour's p99).
//
// A kept list is only right while no key was added since (a deleted key is
// noticed where it is read: it is no longer an own property). Additions are
// seen, not assumed away: a wide map gets as prototype a Proxy of
// Object.prototype whose only trap is `set`. Assigning a key an object does
// not have ([[Set]]: `m[k] = v`, Object.assign) consults the prototype chain,
// so the trap runs: it drops the list, gives the map back its plain
// prototype, and completes the assignment exactly as it would have run
// (Reflect.set on Object.prototype with the map as receiver). Reads of keys
// the map does not have reach Object.prototype through the Proxy unchanged.
// Only Object.defineProperty adds a key without [[Set]]; nothing here does
// that to a decoded body's maps after assembly.
//
// The prototype is observable (Object.getPrototypeOf, isDeepStrictEqual), so
// it lasts only while the large request runs: the request's turn ends with
// releaseWideKeys (server/large-requests.ts), and deepCopy treats it as
// plain. Maps with an array-index key ("0", "17") are not kept: Object.keys
// lists those first, in numeric order, not in the order they were added.

/** Maps with at least this many keys are kept (json-slices.ts sends larger containers in pieces). */
export const WIDE_KEYS = 1024;

const lists = new WeakMap<object, string[]>();
/** The maps given the prototype below, to be given their own back (a request's turn at a time). */
let barred: object[] = [];

const BARRIER: object = new Proxy(Object.prototype, {
  set(target, key, value, receiver: object) {
    release(receiver);
    return Reflect.set(target, key, value, receiver);
  },
});

function release(map: object): void {
  lists.delete(map);
  // A map frozen since keeps it (setting a prototype would throw); deepCopy still copies it as plain.
  if (Object.getPrototypeOf(map) === BARRIER && Object.isExtensible(map)) Object.setPrototypeOf(map, Object.prototype);
}

/** Whether `proto` is the prototype of a kept map (deepCopy copies such a map as a plain object). */
export function isWideKeysPrototype(proto: unknown): boolean {
  return proto === BARRIER;
}

/**
 * Keeps `keys` as the list of `map`'s own enumerable keys, in Object.keys
 * order; false (nothing kept) when it cannot be (an array-index key, or a
 * map that is not a plain object). `indexFree`: the caller checked already
 * that no key is an array index (isArrayIndex), a run at a time.
 */
export function keepWideKeys(map: object, keys: string[], indexFree = false): boolean {
  if (keys.length < WIDE_KEYS || Object.getPrototypeOf(map) !== Object.prototype) return false;
  if (!indexFree) for (const key of keys) if (isArrayIndex(key)) return false;
  lists.set(map, keys);
  Object.setPrototypeOf(map, BARRIER);
  barred.push(map);
  return true;
}

/**
 * The keys of `obj` as Object.keys gives them, from its kept list when it has
 * one (which may still name keys deleted since: callers skip a key that is no
 * longer an own property, see ownValue).
 */
export function wideKeys(obj: object): string[] {
  return (Object.getPrototypeOf(obj) === BARRIER ? lists.get(obj) : undefined) ?? Object.keys(obj);
}

/** Whether `obj`'s keys come from a kept list (which may name deleted keys). */
export function hasKeptKeys(obj: object): boolean {
  return Object.getPrototypeOf(obj) === BARRIER && lists.has(obj);
}

/**
 * Whether `key`, named by `map`'s kept list, was deleted since: its read
 * `value` then came from Object.prototype (or is undefined), never a string,
 * so a string value answers at once without a property lookup.
 */
export function deletedSince(map: object, key: string, value: unknown): boolean {
  return typeof value !== 'string' && !Object.hasOwn(map, key);
}

/** Gives every kept map its plain prototype back and drops the lists (the end of a large request's turn). */
export function releaseWideKeys(): void {
  const maps = barred;
  barred = [];
  for (const map of maps) release(map);
}

/** A canonical array index: what V8 (and the spec's ordering of own keys) lists first. */
export function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  if (key.length > 10 || (c === 48 && key.length > 1)) return false;
  for (let i = 1; i < key.length; i++) {
    const d = key.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(key) < 4294967295;
}
