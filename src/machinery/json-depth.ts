// Nesting depth of a JSON text, checked before anything recursive reads it.
//
// Go's encoding/json (and sigs.k8s.io/json, which kube-apiserver decodes
// with) refuses a document nested more than 10,000 levels deep with
// `invalid character '{' exceeded max depth` (the character that opens the
// level too many). apiary's own walkers (typed decode, patch, field sets,
// deep copy) recurse once per level on a stack of about 10,000 frames, and
// the deepest of them (strategic merge patch) overflows near 2,400 levels: a
// request that reached them would end in a 500 "Maximum call stack size
// exceeded". So apiary refuses past MAX_JSON_DEPTH levels, with upstream's
// message: deliberately stricter than upstream between 1,001 and 10,000
// levels (no Kubernetes object is nested that deep), the same beyond.
//
// One pass over the text's characters, no allocation: linear in the body (and
// skipped when the text is too short, or holds too few opening characters, to be that deep).

/** The deepest nesting a request body may have (see above). */
export const MAX_JSON_DEPTH = 1000;

/**
 * Go's message when `text` opens more than `max` nested arrays or objects,
 * else undefined. `text` is one JSON.parse accepted (every caller parses first).
 */
export function jsonDepthError(text: string, max = MAX_JSON_DEPTH): string | undefined {
  // Valid JSON closes each level it opens, two characters a level: a text of
  // at most 2 × max characters cannot be too deep (most bodies end here, unscanned).
  if (text.length <= 2 * max) return undefined;
  // Nor can a text with at most `max` opening characters (counted by indexOf, which is fast; strings included).
  if (openersAtMost(text, max)) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return `invalid character '${String.fromCharCode(c)}' exceeded max depth`;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return undefined;
}

function openersAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const opener of ['{', '[']) {
    for (let i = text.indexOf(opener); i >= 0; i = text.indexOf(opener, i + 1)) if (++count > max) return false;
  }
  return true;
}

/** Whether a decoded value (a YAML body's) nests more than `max` arrays or objects; iterative, so any depth is safe to ask about. */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
