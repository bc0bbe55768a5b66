// The JSONPath subset printer columns and selectable fields use (upstream
// passes them to k8s.io/client-go/util/jsonpath): `.a.b`, `[0]`, `[*]`,
// `['key']`, and filters `[?(@.type == "Ready")]` / `!=` (quotes either way).
// evaluate() returns every match, in order; a missing key matches nothing.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; op: '==' | '!='; value: string | number | boolean };

const cache = new Map<string, Step[] | null>();

function parse(path: string): Step[] | null {
  const cached = cache.get(path);
  if (cached !== undefined) return cached;
  const steps: Step[] = [];
  let i = 0;
  const s = path.trim().replace(/^\{(.*)\}$/, '$1');
  let ok = true;
  while (i < s.length && ok) {
    if (s[i] === '.') {
      const m = /^\.([A-Za-z0-9_\-$]+)/.exec(s.slice(i));
      if (m === null) ok = false;
      else {
        steps.push({ kind: 'field', name: m[1]! });
        i += m[0].length;
      }
    } else if (s[i] === '[') {
      const end = s.indexOf(']', s.startsWith('[?(', i) ? s.indexOf(')', i) : i);
      if (end < 0) {
        ok = false;
        break;
      }
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else {
        const f = /^\?\(\s*@((?:\.[A-Za-z0-9_\-$]+)+)\s*(==|!=)\s*(.+?)\s*\)$/.exec(inner);
        if (f === null) ok = false;
        else {
          const raw = f[3]!;
          let value: string | number | boolean;
          if (/^'.*'$|^".*"$/.test(raw)) value = raw.slice(1, -1);
          else if (raw === 'true' || raw === 'false') value = raw === 'true';
          else value = Number(raw);
          steps.push({ kind: 'filter', path: f[1]!.slice(1).split('.'), op: f[2] as '==' | '!=', value });
        }
      }
    } else ok = false;
  }
  const out = ok ? steps : null;
  cache.set(path, out);
  return out;
}

function child(v: unknown, name: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[name] : undefined;
}

/** Every value `path` selects in `obj` (none for a path it cannot parse). */
export function evaluate(obj: unknown, path: string): unknown[] {
  const steps = parse(path);
  if (steps === null) return [];
  let current: unknown[] = [obj];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'field': {
          const c = child(v, step.name);
          if (c !== undefined) next.push(c);
          break;
        }
        case 'index':
          if (Array.isArray(v)) {
            const c = v[step.index < 0 ? v.length + step.index : step.index];
            if (c !== undefined) next.push(c);
          }
          break;
        case 'all':
          if (Array.isArray(v)) next.push(...v);
          else if (v !== null && typeof v === 'object') next.push(...Object.values(v));
          break;
        case 'filter':
          if (Array.isArray(v)) {
            for (const item of v) {
              let x: unknown = item;
              for (const p of step.path) x = child(x, p);
              if ((x === step.value) === (step.op === '==')) next.push(item);
            }
          }
          break;
      }
    }
    current = next;
  }
  return current;
}

/** Whether `path` is one evaluate() understands. */
export function isSupportedJsonPath(path: string): boolean {
  return parse(path) !== null;
}
