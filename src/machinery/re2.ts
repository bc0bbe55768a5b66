// Regular expressions with Go's regexp (RE2) syntax and semantics, for everything in the API that
// upstream evaluates with Go's regexp package: CEL's matches() and the Kubernetes regex library
// (find, findAll), and the `pattern` keyword of CRD schemas. JavaScript's RegExp is a different
// language: it accepts lookaround and backreferences that Go refuses, lacks `\z`, and differs in
// `.`, `\s` and case folding; a pattern upstream rejects must be rejected here with Go's message.
// re2js is a pure-JavaScript port of RE2/J (Go's parser and its error texts), so no native addon
// or WASM build is needed.

import { RE2JS, RE2JSException } from 're2js';

/** A compiled Go regexp. */
export interface GoRegexp {
  /** Go's MatchString: the pattern matches somewhere in s (unanchored). */
  test(s: string): boolean;
  /** Go's FindString: the leftmost match, '' when none. */
  find(s: string): string;
  /** Go's FindAllString(s, n): successive non-overlapping matches; n < 0 for all. */
  findAll(s: string, n: number): string[];
}

/** A pattern Go's regexp.Compile refuses; the message is Go's ("error parsing regexp: …"). */
export class RegexpSyntaxError extends Error {}

const cache = new Map<string, GoRegexp>();
const CACHE_SIZE = 1000;

/** Go's regexp.Compile: the compiled pattern (cached), or a RegexpSyntaxError with Go's message. */
export function compileGoRegexp(pattern: string): GoRegexp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof RE2JSException) throw new RegexpSyntaxError(e.message);
    throw e;
  }
  const re2 = compiled.re2();
  const re: GoRegexp = {
    test: (s) => compiled.test(s),
    find: (s) => (re2.find(s) as string | null) ?? '',
    findAll: (s, n) => (n === 0 ? [] : ((re2.findAll(s, n) as string[] | null) ?? [])),
  };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(pattern, re);
  return re;
}

/** Go's regexp.Compile error text for pattern, or undefined when it compiles. */
export function goRegexpError(pattern: string): string | undefined {
  try {
    compileGoRegexp(pattern);
    return undefined;
  } catch (e) {
    if (e instanceof RegexpSyntaxError) return e.message;
    throw e;
  }
}
