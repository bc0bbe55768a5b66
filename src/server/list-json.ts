// A list's JSON body spliced from its items' kept bytes (json-memo.ts) into
// one buffer the caller allocates: the response pool's (response-buffers.ts)
// for large lists. The bytes are exactly those of listJSONBytes (and so of
// JSON.stringify(list) + trailer); the splicing is repeated here rather than
// there so that the allocation stays the caller's.

import { isImmutable, jsonBytes } from '../machinery/json-memo.js';

const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * JSON.stringify(list) + trailer as bytes in allocate(size), or undefined when
 * `items` is not the list's last key or no item keeps its bytes (the caller
 * then stringifies as usual).
 */
export function splicedListJSON(list: { items?: unknown }, trailer: string, allocate: (size: number) => Buffer): Buffer | undefined {
  const items = list.items;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const keys = Object.keys(list);
  if (keys[keys.length - 1] !== 'items') return undefined;
  // Splicing pays only where items were encoded before (or will be again).
  if (!items.some((item) => isImmutable(item))) return undefined;
  // The head as JSON.stringify writes it, up to the opening bracket of items.
  const head = Buffer.from(JSON.stringify({ ...list, items: [] }).slice(0, -2));
  const tail = Buffer.from(trailer);
  const parts = new Array<Buffer>(items.length);
  let size = head.length + (items.length - 1) + 2 + tail.length;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    // JSON.stringify writes null for what has no JSON form inside an array.
    const part = typeof item === 'object' && item !== null ? jsonBytes(item) : Buffer.from(JSON.stringify(item) ?? 'null');
    parts[i] = part;
    size += part.length;
  }
  const out = allocate(size);
  out.set(head, 0);
  let at = head.length;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[at++] = COMMA;
    out.set(parts[i]!, at);
    at += parts[i]!.length;
  }
  out[at++] = CLOSE_BRACKET;
  out[at++] = CLOSE_BRACE;
  out.set(tail, at);
  return out;
}
