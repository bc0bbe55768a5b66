// JSON bytes remembered for objects that never change, so a list of cached
// objects is written by splicing each item's bytes instead of stringifying
// (and UTF-8 encoding) it again for every request.
//
// Contract:
// - markImmutable(obj) is the caller's promise that obj and everything it
//   holds are deep-frozen and never change (the watch cache's parsed objects,
//   copies made of them by freezing a new top level over frozen children).
// - jsonBytes(obj) is exactly Buffer.from(JSON.stringify(obj)); for a marked
//   object it is computed once and kept as long as the object lives.
// - listJSONBytes(list, trailer) is exactly Buffer.from(JSON.stringify(list) + trailer) for a list
//   whose `items` is its last key, or undefined when that shape does not hold
//   or no item is marked (the caller then stringifies as usual).

const immutable = new WeakSet<object>();
const memo = new WeakMap<object, Buffer>();

export function markImmutable<T extends object>(obj: T): T {
  immutable.add(obj);
  return obj;
}

export function isImmutable(obj: unknown): boolean {
  return typeof obj === 'object' && obj !== null && immutable.has(obj);
}

export function jsonBytes(obj: object): Buffer {
  let bytes = memo.get(obj);
  if (bytes !== undefined) return bytes;
  bytes = Buffer.from(JSON.stringify(obj));
  if (immutable.has(obj)) memo.set(obj, bytes);
  return bytes;
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

export function listJSONBytes(list: { items?: unknown }, trailer = ''): Buffer | undefined {
  const items = list.items;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const keys = Object.keys(list);
  if (keys[keys.length - 1] !== 'items') return undefined;
  // Splicing pays only where items were encoded before (or will be again).
  if (!items.some((item) => isImmutable(item))) return undefined;
  // The head as JSON.stringify writes it, up to the opening bracket of items.
  const empty = JSON.stringify({ ...list, items: [] });
  const chunks: Buffer[] = [Buffer.from(empty.slice(0, -2))];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) chunks.push(COMMA);
    const item: unknown = items[i];
    // JSON.stringify writes null for what has no JSON form inside an array.
    const text = typeof item === 'object' && item !== null ? undefined : JSON.stringify(item) ?? 'null';
    chunks.push(text === undefined ? jsonBytes(item as object) : Buffer.from(text));
  }
  chunks.push(CLOSE);
  if (trailer !== '') chunks.push(Buffer.from(trailer));
  return Buffer.concat(chunks);
}
