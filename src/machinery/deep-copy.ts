// deepCopy: a copy of a JSON value (what objects are here: decoded bodies,
// stored objects, their parts), as Go's generated DeepCopy gives upstream.
// Written out because structuredClone, the platform's general copy, goes
// through V8's serializer: 5 to 12 times slower on a Kubernetes object (about
// 14 µs against 1.2 µs for a ResourceQuota on Node 20), and the registry
// copies objects on every write. Anything that is not a plain array or object
// (a Date, a typed array) falls back to structuredClone.

import { LARGE_OBJECT_KEYS, rememberKey } from './known-keys.js';
import { deletedSince, hasKeptKeys, isWideKeysPrototype, keepWideKeys, wideKeys } from './wide-keys.js';

export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const n = value.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = copyValue(value[i]);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // A large request's map whose keys are kept (wide-keys.ts) is a plain object: copied from its kept list, never listed again.
  const kept = isWideKeysPrototype(proto);
  if (proto !== Object.prototype && proto !== null && !kept) return structuredClone(value);
  const out: Record<string, unknown> = {};
  const keys = kept ? wideKeys(value) : Object.keys(value);
  // The copy of a map whose keys are kept keeps its own list (a large update works on a copy of its body).
  const copied: string[] | undefined = kept && hasKeptKeys(value) ? [] : undefined;
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    // A kept list may name a key deleted since (its read then reaches Object.prototype).
    if (kept && deletedSince(value, key, member)) continue;
    copied?.push(key);
    // `__proto__` as an own key (a ConfigMap may hold one) stays one: an assignment would set the copy's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copyValue(member), enumerable: true, writable: true, configurable: true });
    else out[key] = copyValue(member);
  }
  // A large map's copy is asked later whether it is empty (zero-values.ts): known-keys.ts says why.
  if (keys.length > LARGE_OBJECT_KEYS) rememberKey(out, keys[0]!);
  if (copied !== undefined) keepWideKeys(out, copied, true);
  return out;
}
