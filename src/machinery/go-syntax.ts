// Go's %#v rendering of the values field errors quote: kube-apiserver's
// field.Error prints a bad value that is not a plain scalar with %#v, so a
// client reads `[]string{"Maybe"}`, `map[string]string{"a":"c"}` or
// `v1.LabelSelector{MatchLabels:map[string]string(nil), …}` where a JSON
// rendering would differ.
//
// Contract: each helper returns a GoValue (field-errors.ts), which FieldError prints as it is.
// A nil Go value (absent here: undefined or null) prints as `T(nil)`; an empty
// one as `T{}`. Map keys are sorted, as fmt sorts them.

import { GoValue } from './field-errors.js';

const GO_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** strconv.Quote for the strings API objects carry: printable text as is, control characters escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const escaped = GO_ESCAPES[c];
    if (escaped !== undefined) out += escaped;
    else {
      const code = c.codePointAt(0)!;
      if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else out += c;
    }
  }
  return `${out}"`;
}

function stringSliceText(values: readonly string[] | undefined | null): string {
  if (values === undefined || values === null) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

function stringMapText(map: Readonly<Record<string, string>> | undefined | null): string {
  if (map === undefined || map === null) return 'map[string]string(nil)';
  const keys = Object.keys(map).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(map[k]!)}`).join(', ')}}`;
}

/** A []string. */
export function goStringSlice(values: readonly string[] | undefined | null): GoValue {
  return new GoValue(stringSliceText(values));
}

/** A map[string]string (labels, selectors). */
export function goStringMap(map: Readonly<Record<string, string>> | undefined | null): GoValue {
  return new GoValue(stringMapText(map));
}

export interface LabelSelectorValue {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] | null }> | null;
}

/** A metav1.LabelSelector (the struct; field errors print a pointer's target). */
export function goLabelSelector(selector: LabelSelectorValue | undefined | null): GoValue {
  if (selector === undefined || selector === null) return new GoValue('(*v1.LabelSelector)(nil)');
  const expressions = selector.matchExpressions;
  const requirement = (r: { key?: string; operator?: string; values?: string[] | null }): string =>
    `v1.LabelSelectorRequirement{Key:${goQuote(r.key ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${stringSliceText(r.values)}}`;
  const expressionsText =
    expressions === undefined || expressions === null
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${expressions.map(requirement).join(', ')}}`;
  return new GoValue(`v1.LabelSelector{MatchLabels:${stringMapText(selector.matchLabels)}, MatchExpressions:${expressionsText}}`);
}
