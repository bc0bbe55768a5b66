// Go's fmt rendering of decoded JSON values (%v, %s, reflect type names), so
// that strategic merge patch errors read exactly as kube-apiserver words them
// ("map: map[image:nginx] does not contain declared merge key: name").

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's %v of a value decoded from JSON: maps sorted by key, slices space-separated. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** reflect.TypeOf(v).String() for a value decoded from JSON (integers decode as int64). */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isPlainObject(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

/** Go's %s: strings as they are, anything else as fmt's "%!s(type=value)". */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goValue(v)})`;
}
