// The structural difference of two masked answers: every leaf where they
// differ, with its path (`body.details.causes[0].message`), apiary's value and
// the reference's. A key one side lacks is `undefined` there (printed as
// <absent>). Arrays are compared index by index; when their lengths differ
// the extra elements are differences of their own. Key order is not compared
// (no client depends on it).

export interface Difference {
  path: string;
  apiary: unknown;
  reference: unknown;
}

export function diff(apiary: unknown, reference: unknown, path = ''): Difference[] {
  if (Object.is(apiary, reference)) return [];
  const bothArrays = Array.isArray(apiary) && Array.isArray(reference);
  const bothObjects = isObject(apiary) && isObject(reference);
  if (bothArrays) {
    const a = apiary as unknown[];
    const r = reference as unknown[];
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(a.length, r.length); i++) out.push(...diff(a[i], r[i], `${path}[${i}]`));
    return out;
  }
  if (bothObjects) {
    const a = apiary as Record<string, unknown>;
    const r = reference as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(a), ...Object.keys(r)])].sort();
    const out: Difference[] = [];
    for (const key of keys) out.push(...diff(a[key], r[key], path === '' ? key : `${path}.${key}`));
    return out;
  }
  return [{ path, apiary, reference }];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A value for a report line: JSON, cut short. */
export function show(value: unknown, max = 300): string {
  if (value === undefined) return '<absent>';
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
