// A shallow copy of an object without one or two of its keys: what
// `const { a: _a, ...rest } = obj` gives (its own enumerable keys, in their
// order), written as a loop. V8 runs a rest pattern with excluded keys in its
// runtime: copying an ObjectMeta that way takes about 2 µs, the loop about
// 0.3 µs, and every create copies objects so several times (the stored value,
// the object handed back, the one kept for the watch cache).

/** `obj` without `first` (and `second`), as a rest pattern excluding them copies it. */
export function omitKeys(obj: object, first: string, second?: string): Record<string, unknown> {
  const src = obj as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(src)) {
    if (key === first || key === second) continue;
    // An own "__proto__" key (JSON.parse makes one) is a key here too, not the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: src[key], enumerable: true, writable: true, configurable: true });
    else out[key] = src[key];
  }
  return out;
}
