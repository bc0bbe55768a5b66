// Passes over a checked AST that bring the library's behaviour to cel-go's: checks cel-go makes
// at compile time and the library does not (has() on an undefined field, homogeneous literals
// with format's exemption, format() and matches() on literals), the has() rewrite, cel-go's
// implementations of matches/substring/string(double), and the variables an expression reads.

import { EvaluationError, type ASTNode } from '@marcbachmann/cel-js';
import { compileRegex, FormatError, formatString } from './library.js';
import { goRegexpError } from '../re2.js';
import { celGoOffset, celGoTypeName, type Issue } from './messages.js';

/** has(x.f) where x is an object type without field f: cel-go's checker refuses it, the library does not. */
export function findUndefinedHasField(source: string, node: unknown, objectFields: ReadonlyMap<string, ReadonlySet<string>>): Issue | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = findUndefinedHasField(source, n, objectFields);
      if (f) return f;
    }
    return undefined;
  }
  const n = node as ASTNode;
  if (!('op' in n)) return undefined;
  if (n.op === 'call' && n.args[0] === 'has' && n.args[1].length === 1) {
    const sel = n.args[1][0]!;
    if (sel.op === '.') {
      const [operand, field] = sel.args;
      const typeName = (operand as { checkedType?: { name?: string } }).checkedType?.name;
      const fields = typeName !== undefined ? objectFields.get(typeName) : undefined;
      if (fields && !fields.has(field)) return { offset: celGoOffset(source, n), message: `undefined field '${field}'` };
    }
  }
  return findUndefinedHasField(source, n.args, objectFields);
}

const typeOf = (n: ASTNode): string => celGoTypeName((n as { checkedType?: { name?: string } }).checkedType?.name ?? 'dyn');

/**
 * cel-go's HomogeneousAggregateLiterals: the elements of a list literal (the keys, and the values,
 * of a map literal) share one type — except in the argument list of the strings extension's
 * format(), which cel-go exempts.
 */
export function findHeterogeneousLiteral(node: unknown, exempt: boolean): { node: ASTNode; expected: string; found: string } | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = findHeterogeneousLiteral(n, false);
      if (f) return f;
    }
    return undefined;
  }
  const n = node as ASTNode;
  if (!('op' in n)) return undefined;
  const firstMismatch = (nodes: ASTNode[]): { node: ASTNode; expected: string; found: string } | undefined => {
    if (nodes.length < 2) return undefined;
    const expected = typeOf(nodes[0]!);
    for (const x of nodes.slice(1)) {
      const found = typeOf(x);
      if (found !== expected && found !== 'dyn' && expected !== 'dyn') return { node: x, expected, found };
    }
    return undefined;
  };
  if (n.op === 'list' && !exempt) {
    const f = firstMismatch(n.args);
    if (f) return f;
  }
  if (n.op === 'map') {
    const f = firstMismatch(n.args.map((e) => e[0])) ?? firstMismatch(n.args.map((e) => e[1]));
    if (f) return f;
  }
  if (n.op === 'rcall' && n.args[0] === 'format' && n.args[2].length === 1) {
    return findHeterogeneousLiteral(n.args[1], false) ?? findHeterogeneousLiteral(n.args[2][0], true);
  }
  if (n.op === 'list' && exempt) return findHeterogeneousLiteral(n.args, false);
  return findHeterogeneousLiteral(n.args, false);
}

/**
 * Replaces the library's implementation of three standard functions whose behaviour differs
 * from cel-go's, on the checked AST (the library resolves a call to a `handle` at check time and
 * allows no second overload of a standard function): `matches` (RE2 flags like `(?i)`, patterns
 * compiled once), `substring` (cel-go's error texts) and `string(double)` (Go's %g formatting).
 * Relies on cel-js 8.0.0's node shape (`handle` on call nodes); package.json pins that version.
 */
export function patchHandles(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) patchHandles(n);
    return;
  }
  if (!('op' in node)) return;
  const n = node as ASTNode & { handle?: unknown; checkedType?: { name?: string } };
  if (n.op === 'rcall' && typeof n.handle === 'function') {
    const [name, receiver, args] = n.args;
    const onString = (receiver as { checkedType?: { name?: string } }).checkedType?.name === 'string';
    if (name === 'matches' && onString && args.length === 1) {
      n.handle = (a: unknown[]) => compileRegex(a[1] as string).test(a[0] as string);
    } else if (name === 'substring' && onString) {
      n.handle = (a: unknown[]) => substring(a[0] as string, a[1] as bigint, a[2] as bigint | undefined);
    }
  } else if (n.op === 'call' && typeof n.handle === 'function' && n.args[0] === 'string' && n.args[1].length === 1) {
    const argType = (n.args[1][0] as { checkedType?: { name?: string } }).checkedType?.name;
    if (argType === 'double') n.handle = (a: unknown[]) => formatGoFloat(a[0] as number);
  }
  patchHandles(n.args);
}

/** cel-go's substring: code points, and its error texts. */
function substring(s: string, start: bigint, end?: bigint): string {
  const runes = [...s];
  const l = BigInt(runes.length);
  if (end !== undefined && start > end) throw new EvaluationError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > l) throw new EvaluationError(`index out of range: ${start}`);
  if (end !== undefined && (end < 0n || end > l)) throw new EvaluationError(`index out of range: ${end}`);
  return runes.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which cel-go's string(double) uses. */
export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp >= 6 || exp < -4) {
    const e = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return String(f);
}

/** A format() call on literals that cannot succeed: cel-go checks those at compile time. */
export function findInvalidFormatCall(source: string, node: unknown): Issue | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = findInvalidFormatCall(source, n);
      if (f) return f;
    }
    return undefined;
  }
  const n = node as ASTNode;
  if (!('op' in n)) return undefined;
  if (n.op === 'rcall' && n.args[0] === 'format' && n.args[1].op === 'value' && typeof n.args[1].args === 'string' && n.args[2].length === 1) {
    const list = n.args[2][0]!;
    if (list.op === 'list' && list.args.every((e) => e.op === 'value')) {
      try {
        formatString(n.args[1].args, list.args.map((e) => e.args));
      } catch (e) {
        if (e instanceof FormatError) {
          const at = e.argIndex === undefined ? celGoOffset(source, n) : celGoOffset(source, list.args[e.argIndex]!);
          return { offset: at, message: e.message };
        }
      }
    }
  }
  return findInvalidFormatCall(source, n.args);
}

/**
 * A string literal given as a pattern that Go's regexp refuses, as upstream finds it before
 * evaluation: for matches() the checker's "invalid matches argument"; for the Kubernetes regex
 * library's find()/findAll(), whose constant patterns cel-go compiles when the program is
 * planned, the regexp error (upstream: "program instantiation failed: <error>").
 */
export function findInvalidRegexLiteral(node: unknown): { node: ASTNode; function: string; error: string } | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = findInvalidRegexLiteral(n);
      if (f) return f;
    }
    return undefined;
  }
  const n = node as ASTNode;
  if (!('op' in n)) return undefined;
  if (n.op === 'rcall' && (n.args[0] === 'matches' || n.args[0] === 'find' || n.args[0] === 'findAll') && n.args[2].length >= 1) {
    const arg = n.args[2][0]!;
    if (arg.op === 'value' && typeof arg.args === 'string') {
      const error = goRegexpError(arg.args);
      if (error !== undefined) return { node: arg, function: n.args[0], error };
    }
  }
  return findInvalidRegexLiteral(n.args);
}

/**
 * Rewrites has(<expr>.<field>), where <expr> is not a plain identifier chain, as
 * (<expr>).?<field>.hasValue() — the same presence test, in a form the library accepts.
 */
export function rewriteHasMacros(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"' || c === "'") {
      const end = skipString(src, i);
      out += src.slice(i, end);
      i = end;
      continue;
    }
    const before = i === 0 ? '' : src[i - 1]!;
    if (src.startsWith('has', i) && !/[\w.]/.test(before)) {
      let j = i + 3;
      while (j < src.length && /\s/.test(src[j]!)) j++;
      if (src[j] === '(') {
        const close = matchParen(src, j);
        if (close > 0) {
          const inner = rewriteHasMacros(src.slice(j + 1, close));
          const dot = lastTopLevelDot(inner);
          const field = dot >= 0 ? inner.slice(dot + 1).trim() : '';
          const operand = dot >= 0 ? inner.slice(0, dot) : '';
          if (dot >= 0 && /^[A-Za-z_]\w*$/.test(field) && !/^\s*[A-Za-z_]\w*(\s*\.\s*[A-Za-z_]\w*)*\s*$/.test(operand)) {
            out += `(${operand}).?${field}.hasValue()`;
          } else {
            out += `${src.slice(i, j + 1)}${inner})`;
          }
          i = close + 1;
          continue;
        }
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The index just past the string literal starting at i (quotes, triple quotes, escapes). */
function skipString(src: string, i: number): number {
  const q = src[i]!;
  const raw = i > 0 && /[rR]/.test(src[i - 1]!) && (i < 2 || !/[\w]/.test(src[i - 2]!) || /[bB]/.test(src[i - 2]!));
  const triple = src.startsWith(q.repeat(3), i);
  const term = triple ? q.repeat(3) : q;
  let j = i + term.length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') {
      j += 2;
      continue;
    }
    if (src.startsWith(term, j)) return j + term.length;
    j++;
  }
  return src.length;
}

function matchParen(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    const c = src[j]!;
    if (c === '"' || c === "'") {
      j = skipString(src, j) - 1;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return c === ')' ? j : -1;
    }
  }
  return -1;
}

function lastTopLevelDot(src: string): number {
  let depth = 0;
  let last = -1;
  for (let j = 0; j < src.length; j++) {
    const c = src[j]!;
    if (c === '"' || c === "'") {
      j = skipString(src, j) - 1;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === '.' && depth === 0 && !/[0-9]/.test(src[j + 1] ?? '')) last = j;
  }
  return last;
}

/** Walks the AST for identifiers that name declared variables, minus comprehension variables. */
export function collectReferences(node: ASTNode, declared: ReadonlySet<string>, shadowed: Set<string>, out: Set<string>): void {
  if (node.op === 'id') {
    if (declared.has(node.args) && !shadowed.has(node.args)) out.add(node.args);
    return;
  }
  const visit = (v: unknown, inner: Set<string>): void => {
    if (Array.isArray(v)) for (const x of v) visit(x, inner);
    else if (v && typeof v === 'object' && 'op' in v && 'args' in v) collectReferences(v as ASTNode, declared, inner, out);
  };
  if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args)) {
    // Macros bind their first argument as an iteration variable: all(x, …), map(k, v, …).
    const [name, , args] = node.op === 'rcall' ? node.args : [node.args[0], undefined, node.args[1]];
    if (node.op === 'rcall' && ['all', 'exists', 'exists_one', 'map', 'filter'].includes(name) && Array.isArray(args)) {
      visit(node.args[1], shadowed);
      const inner = new Set(shadowed);
      for (const a of args.slice(0, -1)) if (a.op === 'id') inner.add(a.args);
      visit(args, inner);
      return;
    }
  }
  visit(node.args, shadowed);
}
