// Defensive readers for untyped object fields: printers read stored JSON that
// may lack any field, and a missing field prints as upstream prints the zero
// value of the internal type (0, "", empty list).

export type Obj = Record<string, unknown>;

export function rec(value: unknown): Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** Walks nested objects: at(pod, 'spec', 'nodeName'). */
export function at(value: unknown, ...path: string[]): unknown {
  let cur: unknown = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[key];
  }
  return cur;
}

export function countKeys(value: unknown): number {
  return Object.keys(rec(value)).length;
}
