// A JSON value carried in slices, so that a large one is rebuilt (or written)
// a bounded piece at a time with the event loop free in between.
//
// Why: JSON.parse of a 100,000-key object holds a thread for 100–200 ms
// (every key is an insert into a dictionary-mode object) and a structured
// clone (postMessage) costs more than that. A value decoded on a worker
// thread crosses back as slices instead: each slice is a small JSON text,
// parsed and attached in its own turn of the loop (assembleSlices), so the
// main thread never parses more than SLICE_NODES values at once. The total
// cost is a little above one JSON.parse; no single step is long.
//
// A slice is [op, path, json]:
//   'set'    the value at `path` is JSON.parse(json) (the root when path is []);
//   'merge'  the object at `path` gets the keys of JSON.parse(json), in order;
//   'append' the array at `path` gets the elements of JSON.parse(json).
// A container larger than SLICE_NODES is sent empty ('set' '{}'/'[]'), then
// filled by 'merge'/'append' slices of consecutive members; a member itself
// too large is sent the same way under its own path.
//
// The value must be JSON data (what JSON.parse gives, after typed decode):
// undefined members are dropped as JSON.stringify drops them.

import { rememberKey } from './known-keys.js';
import { isArrayIndex, keepWideKeys, wideKeys } from './wide-keys.js';

export type SlicePath = Array<string | number>;
export type Slice = ['set' | 'merge' | 'append', SlicePath, string];

/** Values per slice: one slice parses in well under a millisecond. */
export const SLICE_NODES = 1024;

/**
 * The work between two pauses of assembleSlices and stringifySliced, in
 * milliseconds: what a small request waits for at most when it arrives during
 * a slice (plus the step that crosses it). 2 ms rather than 4: with the long
 * blocks gone (wide-keys.ts), the slices set a small GET's p99 beside a
 * large request; bench/noisy-neighbour.ts's maximal phase measured p99
 * 7.8 ms against 10.5 (medians of 4 alternating runs, 4 of 4 in its favour,
 * load 4-5 on 2 cores); a large request takes longer.
 */
export const SLICE_BUDGET_MS = 2;

/** The slices that rebuild `value` (assembleSlices); on a worker thread. */
export function jsonSlices(value: unknown, sliceNodes = SLICE_NODES): Slice[] {
  const slices: Slice[] = [];
  const sizes = new Map<object, number>();
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1;
    let n = 1;
    if (Array.isArray(v)) for (const e of v) n += size(e);
    else for (const k of Object.keys(v)) n += size((v as Record<string, unknown>)[k]);
    sizes.set(v, n);
    return n;
  };
  size(value);
  const emit = (v: unknown, path: SlicePath): void => {
    if (v === null || typeof v !== 'object' || (sizes.get(v) ?? 1) <= sliceNodes) {
      slices.push(['set', path, JSON.stringify(v) ?? 'null']);
      return;
    }
    if (Array.isArray(v)) {
      slices.push(['set', path, '[]']);
      let batch: string[] = [];
      let nodes = 0;
      const flush = (): void => {
        if (batch.length > 0) slices.push(['append', path, `[${batch.join(',')}]`]);
        batch = [];
        nodes = 0;
      };
      v.forEach((e, i) => {
        const n = e !== null && typeof e === 'object' ? (sizes.get(e) ?? 1) : 1;
        if (n > sliceNodes) {
          flush();
          slices.push(['append', path, '[null]']);
          emit(e, [...path, i]);
          return;
        }
        if (nodes + n > sliceNodes) flush();
        batch.push(JSON.stringify(e) ?? 'null');
        nodes += n;
      });
      flush();
      return;
    }
    slices.push(['set', path, '{}']);
    const record = v as Record<string, unknown>;
    let batch: string[] = [];
    let nodes = 0;
    const flush = (): void => {
      if (batch.length > 0) slices.push(['merge', path, `{${batch.join(',')}}`]);
      batch = [];
      nodes = 0;
    };
    for (const key of Object.keys(record)) {
      const member = record[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      const n = member !== null && typeof member === 'object' ? (sizes.get(member) ?? 1) : 1;
      if (n > sliceNodes) {
        flush();
        emit(member, [...path, key]);
        continue;
      }
      if (nodes + n > sliceNodes) flush();
      batch.push(`${JSON.stringify(key)}:${JSON.stringify(member)}`);
      nodes += n;
    }
    flush();
  };
  emit(value, []);
  return slices;
}

/**
 * Rebuilds the value of `slices`, calling `pause` (which lets the loop turn)
 * whenever `budgetMs` of work has passed since the last one. The key list of
 * every map sent in 'merge' slices is kept (wide-keys.ts: this thread then
 * never lists it again while the request runs).
 */
export async function assembleSlices(slices: readonly Slice[], pause: () => Promise<void>, budgetMs = SLICE_BUDGET_MS): Promise<unknown> {
  let root: unknown;
  let resumed = performance.now();
  // The keys of each map filled by 'merge' slices, in the order they were added (null: one is an array index).
  const merged = new Map<object, string[] | null>();
  for (const [op, path, json] of slices) {
    const parsed: unknown = JSON.parse(json);
    if (op === 'set') {
      // A large map is sent empty first, then filled: its keys are listed from here on.
      if (json === '{}') merged.set(parsed as object, []);
      if (path.length === 0) root = parsed;
      else {
        const parent = at(root, path.slice(0, -1));
        const key = path[path.length - 1]!;
        setMember(parent, key, parsed);
        // A member too large for its map's slices is sent under its own path, in its place among the keys.
        if (typeof key === 'string') addKeys(merged, parent as object, [key]);
      }
    } else if (op === 'merge') {
      const target = at(root, path) as Record<string, unknown>;
      const source = parsed as Record<string, unknown>;
      const keys = Object.keys(source);
      for (const key of keys) setMember(target, key, source[key]);
      // A container sent in 'merge' slices is large: known-keys.ts says why one of its keys is recorded.
      if (keys.length > 0) rememberKey(target, keys[0]!);
      addKeys(merged, target, keys);
    } else {
      const target = at(root, path) as unknown[];
      for (const e of parsed as unknown[]) target.push(e);
    }
    if (performance.now() - resumed >= budgetMs) {
      await pause();
      resumed = performance.now();
    }
  }
  for (const [map, keys] of merged) if (keys !== null) keepWideKeys(map, keys, true);
  return root;
}

/** Appends `keys` to `map`'s list in `merged`, if it has one; an array index ends it (wide-keys.ts). */
function addKeys(merged: Map<object, string[] | null>, map: object, keys: string[]): void {
  const list = merged.get(map);
  if (list === undefined || list === null) return;
  for (const key of keys) {
    if (isArrayIndex(key)) {
      merged.set(map, null);
      return;
    }
    list.push(key);
  }
}

function at(root: unknown, path: SlicePath): unknown {
  let node = root;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node;
}

/** Sets a member as JSON.parse would: `__proto__` is an own key, never the prototype. */
function setMember(target: unknown, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string | number, unknown>)[key] = value;
}

/**
 * JSON.stringify(value) written a slice at a time: a container of more than
 * `sliceNodes` values is walked member by member, anything smaller is one
 * native JSON.stringify; `pause` is called whenever `budgetMs` of work has
 * passed. The text is JSON.stringify's, byte for byte (members undefined,
 * functions and symbols dropped, or null in arrays; toJSON honoured).
 *
 * Every container is enumerated about once: the keys of one with more than
 * `sliceNodes` members are kept for the walk (a 100,000-key map's keys cost
 * tens of milliseconds each time they are listed, and the size check of each
 * of its ancestors reaches it); a map assembled here is not listed at all
 * (its kept keys, wide-keys.ts).
 */
export async function stringifySliced(value: unknown, pause: () => Promise<void>, budgetMs = SLICE_BUDGET_MS, sliceNodes = SLICE_NODES): Promise<string> {
  return (await stringifySlicedPieces(value, pause, budgetMs, sliceNodes)).join('');
}

/** A JSON text, whole or in pieces to be joined (stringifySlicedPieces). */
export type JsonText = string | string[];

/** The text of a JsonText. */
export function jsonText(json: JsonText): string {
  return typeof json === 'string' ? json : json.join('');
}

/**
 * stringifySliced's text in pieces, one per pause (their concatenation is the
 * text): a worker thread takes them as they are (body-worker.ts) and joins
 * them there. Why: one string built of many pieces is a tree of them, which
 * postMessage flattens, a copy of the whole text in one block (~5 ms for a
 * maximal object); pieces that are each flat copy in a fraction of that.
 */
export async function stringifySlicedPieces(value: unknown, pause: () => Promise<void>, budgetMs = SLICE_BUDGET_MS, sliceNodes = SLICE_NODES): Promise<string[]> {
  // The text so far: `done` (joined at each pause, so that no single join is long) and `parts` since.
  const done: string[] = [];
  let parts: string[] = [];
  let resumed = performance.now();
  const wide = new Map<object, string[]>();
  const keysOf = (o: object): string[] => wide.get(o) ?? wideKeys(o);
  const turn = async (): Promise<void> => {
    if (performance.now() - resumed < budgetMs) return;
    done.push(parts.join(''));
    parts = [];
    await pause();
    resumed = performance.now();
  };
  // Scalars (and what JSON.stringify writes as null or drops) are written
  // where they are met, a run of an array's at once: a call per member would
  // cost more than its text (a million list elements, 100,000 data values).
  const walk = async (v: unknown): Promise<void> => {
    if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function' || !moreNodesThan(v, sliceNodes, wide)) {
      parts.push(JSON.stringify(v) ?? 'null');
      await turn();
      return;
    }
    if (Array.isArray(v)) {
      parts.push('[');
      for (let i = 0; i < v.length; ) {
        if (i > 0) parts.push(',');
        const e: unknown = v[i];
        if (e !== null && typeof e === 'object') {
          await walk(e);
          i++;
          continue;
        }
        let end = i + 1;
        while (end < v.length && end - i < sliceNodes) {
          const next: unknown = v[end];
          if (next !== null && typeof next === 'object') break;
          end++;
        }
        parts.push(JSON.stringify(v.slice(i, end)).slice(1, -1));
        i = end;
        await turn();
      }
      parts.push(']');
      return;
    }
    parts.push('{');
    let first = true;
    let written = 0;
    const record = v as Record<string, unknown>;
    const keys = keysOf(record);
    wide.delete(record);
    for (const key of keys) {
      const member = record[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      // A kept key list (wide-keys.ts) may name a key deleted since: only __proto__ then reads as an object.
      if (key === '__proto__' && !Object.hasOwn(record, key)) continue;
      if (member !== null && typeof member === 'object') {
        parts.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        await walk(member);
        continue;
      }
      parts.push(`${first ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(member)}`);
      first = false;
      if (++written % 256 === 0) await turn();
    }
    parts.push('}');
  };
  await walk(value);
  done.push(parts.join(''));
  return done;
}

/**
 * Whether `value` holds more than `limit` values (a walk that stops at
 * limit). The keys of an object found with more than `limit` members are
 * kept in `wide` (its walk lists them once).
 */
function moreNodesThan(value: object, limit: number, wide: Map<object, string[]>): boolean {
  let seen = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++seen > limit) return true;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      if (seen + stack.length + v.length > limit) return true;
      for (const m of v) stack.push(m);
      continue;
    }
    const record = v as Record<string, unknown>;
    let keys = wide.get(record);
    if (keys === undefined) {
      keys = wideKeys(record);
      if (keys.length > limit) wide.set(record, keys);
    }
    if (seen + stack.length + keys.length > limit) return true;
    for (const k of keys) stack.push(record[k]);
  }
  return false;
}
