// Label and selector formatting as upstream prints them in table cells:
// labels.FormatLabels ("a=b,c=d", "<none>" when empty) and the string form of
// a metav1.LabelSelector ("app=web,tier in (a,b),!legacy").

/** Sorted "k=v" pairs joined by commas; "<none>" for an empty or missing map. */
export function formatLabels(labels: unknown): string {
  const map = asStringMap(labels);
  const keys = Object.keys(map).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${map[k]}`).join(',');
}

interface Requirement {
  key: string;
  text: string;
}

/**
 * The selector string of a metav1.LabelSelector as labels.Selector.String()
 * renders it: requirements sorted by key, set values sorted. An absent or
 * empty selector renders as "" (upstream's Nothing/Everything); a selector
 * with an unknown operator renders as "<invalid>".
 */
export function formatLabelSelector(selector: unknown): string {
  if (selector === null || typeof selector !== 'object') return '';
  const sel = selector as { matchLabels?: unknown; matchExpressions?: unknown };
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(asStringMap(sel.matchLabels))) {
    requirements.push({ key, text: `${key}=${value}` });
  }
  const expressions = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  for (const raw of expressions) {
    const expr = (raw ?? {}) as { key?: unknown; operator?: unknown; values?: unknown };
    const key = typeof expr.key === 'string' ? expr.key : '';
    const values = Array.isArray(expr.values) ? expr.values.map(String) : [];
    const set = [...new Set(values)].sort().join(',');
    switch (expr.operator) {
      case 'In':
        requirements.push({ key, text: `${key} in (${set})` });
        break;
      case 'NotIn':
        requirements.push({ key, text: `${key} notin (${set})` });
        break;
      case 'Exists':
        requirements.push({ key, text: key });
        break;
      case 'DoesNotExist':
        requirements.push({ key, text: `!${key}` });
        break;
      default:
        return '<invalid>';
    }
  }
  // Stable sort by key, as upstream's selector keeps requirements ordered by key.
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements.map((r) => r.text).join(',');
}

function asStringMap(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) out[k] = String(v);
  return out;
}
