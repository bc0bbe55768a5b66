// Lone UTF-16 surrogates in a JSON body, read as Go reads them.
//
// JSON.parse keeps an escaped lone surrogate (`"\ud800"`) in the string, and
// JSON.stringify writes it back escaped: stored and served as sent. Go's
// encoding/json decodes it as U+FFFD (a string in Go is UTF-8, which cannot
// hold a surrogate), so kube-apiserver stores "\ufffd". Only an escape can
// carry one (raw bytes that are not UTF-8 already became U+FFFD when the body
// was read as UTF-8), so bodies without a surrogate escape are not walked.

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `value` (JSON.parse of `text`) with every lone surrogate in its strings and keys replaced by U+FFFD, in place. */
export function replaceLoneSurrogates<T>(value: T, text: string): T {
  if (!SURROGATE_ESCAPE.test(text)) return value;
  const fix = (s: string): string => s.replace(LONE_SURROGATE, '\ufffd');
  if (typeof value === 'string') return fix(value) as T;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') node[i] = fix(v);
        else if (v !== null && typeof v === 'object') stack.push(v);
      }
    } else if (node !== null && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        const v = o[key];
        const fixedKey = fix(key);
        if (fixedKey !== key) delete o[key];
        if (typeof v === 'string') o[fixedKey] = fix(v);
        else {
          o[fixedKey] = v;
          if (v !== null && typeof v === 'object') stack.push(v);
        }
      }
    }
  }
  return value;
}
