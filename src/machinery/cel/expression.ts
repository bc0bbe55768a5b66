// The general CEL layer every user in apiary builds on: an ExpressionEnvironment declares
// variables (and object types), compileExpression type-checks one expression against it, and
// the result evaluates against an activation (variable name → CEL value).
//
// CRD validation rules (validation-rules.ts) declare `self`/`oldSelf`; ValidatingAdmissionPolicy
// will declare `object`, `oldObject`, `request`, `params`, `namespaceObject`, `variables`
// (declare them as 'dyn' or as object types from schema-types.ts).
//
// Library choice: @marcbachmann/cel-js. @bufbuild/cel is conformance-tested too, but its type
// checker only knows object types as protobuf message descriptors, so each structural schema
// would have to become a generated protobuf descriptor and every custom resource a protobuf
// message before evaluation. cel-js declares object types by field list, takes plain JS values,
// has a type checker with source ranges, the standard macros (has, all, exists, exists_one, map,
// filter), optional types, custom functions with receiver overloads and custom types
// (Quantity, URL), and is fast. Neither library has a cost model: cost.ts is our own estimate.
//
// Errors are reported in cel-go's words and layout, which upstream shows to users verbatim:
//   ERROR: <input>:1:5: undefined field 'foo'
//    | self.foo == 1
//    | ....^
// The translation covers the checker's common errors; syntax errors keep cel-go's prefix and
// shape, not ANTLR's exact "expecting {…}" sets.

import { Environment, EvaluationError, ParseError, TypeError as CelTypeError, type ASTNode } from '@marcbachmann/cel-js';
import { compileRegex, FormatError, formatString, kubernetesBaseEnvironment } from './library.js';
import { PER_CALL_LIMIT } from './cost.js';

/** A CEL type as the library writes it: 'int', 'string', 'list<int>', 'map<string, dyn>', or a declared object type's name. */
export type CelTypeName = string;

/** An object type: named, with typed fields (values are instances of ctor with own properties). */
export interface ObjectTypeDecl {
  name: string;
  fields: Record<string, CelTypeName>;
  ctor: new () => object;
}

export interface EnvironmentDecls {
  variables: Record<string, CelTypeName>;
  types?: ObjectTypeDecl[];
  /** Equality between two values of an object type (cel-go compares objects field by field). */
  objectEquals?: (a: unknown, b: unknown) => boolean;
}

/** The variables and types an expression may use; build once, compile many expressions. */
export class ExpressionEnvironment {
  readonly env: Environment;
  readonly variables: ReadonlySet<string>;
  /** The declared object types' fields, by type name. */
  readonly objectFields: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(decls: EnvironmentDecls) {
    const env = kubernetesBaseEnvironment().clone();
    for (const t of decls.types ?? []) {
      env.registerType(t.name, { ctor: t.ctor, fields: t.fields });
      if (decls.objectEquals) {
        const eq = decls.objectEquals;
        env.registerOperator(`${t.name} == ${t.name}`, (a: unknown, b: unknown) => eq(a, b));
      }
    }
    for (const [name, type] of Object.entries(decls.variables)) env.registerVariable(name, type);
    this.env = env;
    this.variables = new Set(Object.keys(decls.variables));
    this.objectFields = new Map((decls.types ?? []).map((t) => [t.name, new Set(Object.keys(t.fields))]));
  }
}

/** Thrown when an evaluation passes its cost limit; the text is cel-go's. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/**
 * The runtime cost counter. Evaluation is synchronous, so one counter serves every expression.
 * Each evaluated node costs 1 (literals 0), comprehension bodies once per element: the same order
 * of magnitude as cel-go's actual cost, not its exact units (cel-go also charges string functions
 * by length).
 */
const tracker = { cost: 0, limit: Number.POSITIVE_INFINITY };

interface NodeInternals {
  op: string;
  args: unknown;
  meta: { alternate?: NodeInternals; macro?: { evaluate: (ev: unknown, m: unknown, ctx: unknown) => unknown }; evaluate: (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown };
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
}

/** Counts every evaluation of every node of a checked AST, macro expansions included. */
function instrument(root: ASTNode): void {
  const seen = new Set<unknown>();
  const visit = (x: unknown): void => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    if (Array.isArray(x)) {
      for (const v of x) visit(v);
      return;
    }
    if (!('op' in x) || !('meta' in x)) {
      // a comprehension's arguments
      const c = x as Record<string, unknown>;
      for (const k of ['iterable', 'init', 'step']) visit(c[k]);
      return;
    }
    const node = x as NodeInternals;
    // what the node would run (the library resolves this on first evaluation, as here)
    let target: ((ev: unknown, ast: unknown, ctx: unknown) => unknown) | undefined;
    const resolve = (): ((ev: unknown, ast: unknown, ctx: unknown) => unknown) => {
      const m = node.meta;
      const alternate = m.alternate;
      const macro = m.macro;
      if (alternate) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
      if (macro) return (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
      return m.evaluate; // the operators' evaluate functions use their arguments, not `this`
    };
    node.evaluate =
      node.op === 'value'
        ? (ev, ast, ctx) => (target ??= resolve())(ev, ast, ctx)
        : (ev, ast, ctx) => {
            if (++tracker.cost > tracker.limit) throw new CostLimitExceeded();
            return (target ??= resolve())(ev, ast, ctx);
          };
    visit(node.args);
    visit(node.meta.alternate);
  };
  visit(root);
}

/** A compile error: cel-go's issues text ("ERROR: <input>:L:C: msg\n | src\n | ...^"). */
export class CelCompileError extends Error {}

/** A runtime error, with cel-go's text ("no such key: foo", "division by zero"). */
export class CelEvaluationError extends Error {}

export interface CompiledExpression {
  readonly source: string;
  /** The type-checked syntax tree (for cost estimation). */
  readonly ast: ASTNode;
  /** The checked result type ('bool', 'string', …). */
  readonly outputType: CelTypeName;
  /** The declared variables the expression reads (e.g. whether a rule uses oldSelf). */
  readonly references: ReadonlySet<string>;
  /**
   * Evaluates; throws CelEvaluationError with cel-go's message on a runtime error, and
   * CostLimitExceeded when the evaluation's cost passes costLimit (default: upstream's per-call
   * limit). The cost of the last evaluation is in lastCost.
   */
  evaluate(activation: Record<string, unknown>, costLimit?: number): unknown;
  /** The runtime cost of the last evaluate() (see instrument()). */
  readonly lastCost: number;
}

export type CompileResult = { expression: CompiledExpression; error?: undefined } | { expression?: undefined; error: CelCompileError };

/** Parses and type-checks expr against environment. */
export function compileExpression(expr: string, environment: ExpressionEnvironment): CompileResult {
  let parsed: ReturnType<Environment['parse']>;
  let text = expr;
  try {
    parsed = environment.env.parse(text);
  } catch (e) {
    return { error: new CelCompileError(formatIssue(expr, e)) };
  }
  let checked = parsed.check();
  if (!checked.valid && (checked.error as { code?: string } | undefined)?.code === 'invalid_macro_argument') {
    // The library's has() takes only identifier.field chains; cel-go's takes any expression.field.
    const rewritten = rewriteHasMacros(expr);
    if (rewritten !== expr) {
      try {
        const again = environment.env.parse(rewritten);
        const againChecked = again.check();
        if (againChecked.valid) {
          parsed = again;
          checked = againChecked;
          text = rewritten;
        }
      } catch {
        // keep the first error
      }
    }
  }
  if (!checked.valid) return { error: new CelCompileError(formatIssue(text, checked.error, parsed.ast, environment)) };
  const hasIssue = findUndefinedHasField(expr, parsed.ast, environment);
  if (hasIssue) return { error: new CelCompileError(displayIssue(expr, hasIssue)) };
  const mixed = findHeterogeneousLiteral(parsed.ast, false);
  if (mixed) return { error: new CelCompileError(displayIssue(expr, { offset: celGoOffset(expr, mixed.node), message: `expected type '${mixed.expected}' but found '${mixed.found}'` })) };
  const badFormat = findInvalidFormatCall(expr, parsed.ast);
  if (badFormat) return { error: new CelCompileError(displayIssue(expr, badFormat)) };
  patchHandles(parsed.ast);
  const badRegex = findInvalidRegexLiteral(parsed.ast);
  if (badRegex) return { error: new CelCompileError(displayIssue(expr, { offset: badRegex.range.start, message: 'invalid matches argument' })) };
  const references = new Set<string>();
  collectReferences(parsed.ast, environment.variables, new Set(), references);
  instrument(parsed.ast);
  const expression = {
    source: expr,
    ast: parsed.ast,
    outputType: checked.type ?? 'dyn',
    references,
    lastCost: 0,
    evaluate(activation: Record<string, unknown>, costLimit = PER_CALL_LIMIT): unknown {
      tracker.cost = 0;
      tracker.limit = costLimit;
      try {
        const value = parsed(activation);
        if (tracker.cost > costLimit) throw new CostLimitExceeded();
        return value;
      } catch (e) {
        // the library turns some errors into values (a || b): the counter is the truth
        if (tracker.cost > costLimit || e instanceof CostLimitExceeded) throw new CostLimitExceeded();
        throw new CelEvaluationError(runtimeMessage(e));
      } finally {
        expression.lastCost = tracker.cost;
        tracker.limit = Number.POSITIVE_INFINITY;
      }
    },
  };
  return { expression };
}

/** has(x.f) where x is an object type without field f: cel-go's checker refuses it, the library does not. */
function findUndefinedHasField(source: string, node: unknown, environment: ExpressionEnvironment): Issue | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = findUndefinedHasField(source, n, environment);
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
      const fields = typeName !== undefined ? environment.objectFields.get(typeName) : undefined;
      if (fields && !fields.has(field)) return { offset: celGoOffset(source, n), message: `undefined field '${field}'` };
    }
  }
  return findUndefinedHasField(source, n.args, environment);
}

const typeOf = (n: ASTNode): string => celGoTypeName((n as { checkedType?: { name?: string } }).checkedType?.name ?? 'dyn');

/**
 * cel-go's HomogeneousAggregateLiterals: the elements of a list literal (the keys, and the values,
 * of a map literal) share one type — except in the argument list of the strings extension's
 * format(), which cel-go exempts.
 */
function findHeterogeneousLiteral(node: unknown, exempt: boolean): { node: ASTNode; expected: string; found: string } | undefined {
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
function patchHandles(node: unknown): void {
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
function findInvalidFormatCall(source: string, node: unknown): Issue | undefined {
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

/** A string literal given to matches() that is no valid pattern: upstream compiles such patterns at compile time. */
function findInvalidRegexLiteral(node: unknown): ASTNode | undefined {
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
  if (n.op === 'rcall' && n.args[0] === 'matches' && n.args[2].length === 1) {
    const arg = n.args[2][0]!;
    if (arg.op === 'value' && typeof arg.args === 'string') {
      try {
        compileRegex(arg.args);
      } catch {
        return arg;
      }
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
function collectReferences(node: ASTNode, declared: ReadonlySet<string>, shadowed: Set<string>, out: Set<string>): void {
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

// ---------- cel-go style messages ----------

const binaryOps: Record<string, string> = {
  '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_',
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_',
  in: '@in', '&&': '_&&_', '||': '_||_',
};

/** The library's type names in cel-go's spelling: list<int> → list(int). */
export function celGoTypeName(t: string): string {
  return t.replace(/^dyn<(.*)>$/, '$1').replace(/</g, '(').replace(/>/g, ')');
}

interface Issue {
  offset: number;
  message: string;
}

function formatIssue(source: string, err: unknown, ast?: ASTNode, environment?: ExpressionEnvironment): string {
  if (err instanceof ParseError && (err as { code?: string }).code === 'unterminated_string') {
    // cel-go's lexer reports the bad token, then the parser the missing operand after it
    const start = (err as { range?: { start: number } }).range?.start ?? 0;
    return [
      displayIssue(source, { offset: start, message: `Syntax error: token recognition error at: '${source.slice(start)}'` }),
      displayIssue(source, { offset: source.length, message: `Syntax error: mismatched input '<EOF>' expecting ${PRIMARY_START}` }),
    ].join('\n');
  }
  const issue = translateIssue(source, err, ast, environment);
  return displayIssue(source, issue);
}

const PRIMARY_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/** Where cel-go places a node: a selection at its '.', a call at its '(', an operator at its symbol. */
function celGoOffset(source: string, node: ASTNode): number {
  const start = node.range.start;
  switch (node.op) {
    case '.':
    case '.?':
      return findAfter(source, (node.args[0] as ASTNode).range.end, '.');
    case 'call':
      return findAfter(source, start, '(');
    case 'rcall':
      return findAfter(source, (node.args[1] as ASTNode).range.end, '(');
    case '[]':
    case '[?]':
      return findAfter(source, (node.args[0] as ASTNode).range.end, '[');
    case '?:':
      return findAfter(source, (node.args[0] as ASTNode).range.end, '?');
    case 'id':
    case 'value':
    case 'list':
    case 'map':
    case '!_':
    case '-_':
      return start;
    default: {
      const args = node.args as unknown;
      if (Array.isArray(args) && args.length === 2 && args[0] && typeof args[0] === 'object' && 'range' in args[0]) {
        return findAfter(source, (args[0] as ASTNode).range.end, node.op === '&&' || node.op === '||' ? node.op : String(node.op));
      }
      return start;
    }
  }
}

/** The ternary whose condition is cond, if any. */
function findTernary(node: unknown, cond: ASTNode): ASTNode | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = findTernary(n, cond);
      if (f) return f;
    }
    return undefined;
  }
  const n = node as ASTNode;
  if (!('op' in n)) return undefined;
  if (n.op === '?:' && n.args[0] === cond) return n;
  return findTernary(n.args, cond);
}

/** The checked type of a sub-expression, by checking its source text alone. */
function typeOfText(environment: ExpressionEnvironment | undefined, text: string): string {
  if (!environment) return 'dyn';
  const r = environment.env.check(text);
  return r.valid && r.type ? celGoTypeName(r.type === 'list' ? 'list<dyn>' : r.type === 'map' ? 'map<dyn, dyn>' : r.type) : 'dyn';
}

/** cel-go's Error.ToDisplayString for one issue. */
function displayIssue(source: string, issue: Issue): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < issue.offset && i < source.length; i++) {
    if (source[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  const column = issue.offset - lineStart;
  let out = `ERROR: <input>:${line}:${column + 1}: ${issue.message}`;
  const lineEnd = source.indexOf('\n', lineStart);
  const snippet = source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd).replace(/\t/g, ' ');
  out += `\n | ${snippet}\n | ${'.'.repeat(Math.min(column, snippet.length))}^`;
  return out;
}

function nodeOf(err: unknown): (ASTNode & { range?: { start: number; end: number } }) | undefined {
  const n = (err as { node?: unknown }).node;
  return n && typeof n === 'object' && 'op' in n ? (n as ASTNode) : undefined;
}

/** The offset of text at or after from, skipping whitespace and parentheses. */
function findAfter(source: string, from: number, text: string): number {
  const i = source.indexOf(text, from);
  return i < 0 ? from : i;
}

/** The offset of the '.' before a field name starting at offset. */
function dotBefore(source: string, offset: number): number {
  let i = offset - 1;
  while (i > 0 && /\s/.test(source[i]!)) i--;
  if (source[i] === '?' && source[i - 1] === '.') i--;
  return source[i] === '.' ? i : offset;
}

function translateIssue(source: string, err: unknown, ast?: ASTNode, environment?: ExpressionEnvironment): Issue {
  const e = err as { code?: string; message?: string; range?: { start: number; end: number } };
  const summary = (e.message ?? String(err)).split('\n')[0]!;
  const node = nodeOf(err);
  const start = e.range?.start ?? node?.range?.start ?? 0;
  if (err instanceof ParseError) {
    const tok = /^Unexpected token: (\w+)/.exec(summary);
    if (tok) {
      const found = tok[1] === 'EOF' ? '<EOF>' : source.slice(start, e.range?.end ?? start + 1);
      return { offset: start, message: `Syntax error: mismatched input '${found}' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}` };
    }
    if (/^Expected IDENTIFIER, got EOF/.test(summary)) {
      return { offset: start, message: `Syntax error: no viable alternative at input '.'` };
    }
    if (e.code === 'unterminated_string') return { offset: start, message: `Syntax error: token recognition error at: '${source.slice(start)}'` };
    return { offset: start, message: `Syntax error: ${summary}` };
  }
  if (!(err instanceof CelTypeError)) return { offset: start, message: summary };
  switch (e.code) {
    case 'no_such_key': {
      const field = /^No such key: (.*)$/.exec(summary)?.[1] ?? '';
      return { offset: dotBefore(source, start), message: `undefined field '${field}'` };
    }
    case 'cannot_index_type': {
      const t = /Cannot index type '(.*)'/.exec(summary)?.[1] ?? '';
      if (node?.op === '[]' || node?.op === '[?]') {
        const left = (node.args as ASTNode[])[0]!;
        return { offset: findAfter(source, left.range.end, '['), message: `found no matching overload for '_[_]' applied to '(${celGoTypeName(t)}, int)'` };
      }
      return { offset: dotBefore(source, start), message: `type '${celGoTypeName(t)}' does not support field selection` };
    }
    case 'unknown_variable': {
      const name = /^Unknown variable: (.*)$/.exec(summary)?.[1] ?? '';
      return { offset: start, message: `undeclared reference to '${name}' (in container '')` };
    }
    case 'no_such_overload': {
      const m = /^no such overload: (.*?) (\S+) (.*)$/.exec(summary);
      if (m && node && binaryOps[m[2]!]) {
        const [left] = node.args as ASTNode[];
        const at = left ? findAfter(source, left.range.end, m[2]!) : start;
        return { offset: at, message: `found no matching overload for '${binaryOps[m[2]!]}' applied to '(${celGoTypeName(m[1]!)}, ${celGoTypeName(m[3]!)})'` };
      }
      const u = /^no such overload: ([!-])(.*)$/.exec(summary);
      if (u) return { offset: start, message: `found no matching overload for '${u[1]}_' applied to '(${celGoTypeName(u[2]!)})'` };
      return { offset: start, message: summary };
    }
    case 'no_matching_overload': {
      const m = /found no matching overload for '(.*)'/.exec(summary)?.[1] ?? '';
      const call = /^(?:(.*)\.)?([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$/.exec(m);
      const paren = findAfter(source, node && node.op === 'rcall' ? (node.args[1] as ASTNode).range.end : start, '(');
      if (!call) return { offset: paren, message: summary };
      const [, recv, name, args] = call;
      const argTypes = args!.split(/,\s*/).filter((x) => x !== '').map(celGoTypeName).join(', ');
      if (!knownFunction(name!)) return { offset: paren, message: `undeclared reference to '${name}' (in container '')` };
      return {
        offset: paren,
        message: recv !== undefined
          ? `found no matching overload for '${name}' applied to '${celGoTypeName(recv)}.(${argTypes})'`
          : `found no matching overload for '${name}' applied to '(${argTypes})'`,
      };
    }
    case 'invalid_condition_type': {
      const ternary = node && ast ? findTernary(ast, node) : undefined;
      if (ternary && ternary.op === '?:') {
        const [c, t, f] = ternary.args;
        const text = (n: ASTNode): string => source.slice(n.range.start, n.range.end);
        const cond = celGoTypeName(/got '(.*)'/.exec(summary)?.[1] ?? typeOfText(environment, text(c)));
        return {
          offset: celGoOffset(source, ternary),
          message: `found no matching overload for '_?_:_' applied to '(${cond}, ${typeOfText(environment, text(t))}, ${typeOfText(environment, text(f))})'`,
        };
      }
      return { offset: start, message: summary };
    }
    case 'incompatible_ternary_branches':
      return { offset: node ? celGoOffset(source, node) : start, message: summary.replace(/^Ternary/, 'ternary') };
    case 'heterogeneous_list_element': {
      const m = /expected type '(.*)' but found '(.*)'/.exec(summary);
      return { offset: node ? celGoOffset(source, node) : start, message: m ? `expected type '${celGoTypeName(m[1]!)}' but found '${celGoTypeName(m[2]!)}'` : summary };
    }
    case 'invalid_comprehension_range': {
      const t = /of type '(.*)' cannot/.exec(summary)?.[1] ?? '';
      return { offset: node ? celGoOffset(source, node) : start, message: `expression of type '${celGoTypeName(t)}' cannot be range of a comprehension (must be list, map, or dynamic)` };
    }
    case 'invalid_macro_argument':
      return { offset: node ? celGoOffset(source, node) : start, message: 'invalid argument to has() macro' };
    case 'invalid_logical_operand': {
      return { offset: start, message: summary };
    }
    default:
      return { offset: start, message: summary };
  }
}

let knownNames: Set<string> | undefined;
function knownFunction(name: string): boolean {
  if (!knownNames) {
    knownNames = new Set();
    for (const f of kubernetesBaseEnvironment().getDefinitions().functions) knownNames.add(f.name);
    // declared upstream for other receivers, so a wrong receiver is "no matching overload" there too
    for (const n of ['sign', 'ip', 'cidr', 'isIP', 'isCIDR', 'family', 'isCanonical', 'containsIP', 'containsCIDR', 'prefixLength', 'masked', 'format', 'named', 'validate']) knownNames.add(n);
  }
  return knownNames.has(name);
}

/** The runtime error text cel-go would give. */
function runtimeMessage(err: unknown): string {
  if (!(err instanceof EvaluationError) && !(err instanceof Error)) return String(err);
  const e = err as Error & { code?: string };
  const summary = e.message.split('\n')[0]!;
  switch (e.code) {
    case 'no_such_key': {
      const idx = /index out of bounds, index (-?\d+) (?:>= size (\d+)|< 0)/.exec(summary);
      if (idx) return `index out of bounds: ${idx[1]}`;
      return summary.replace(/^No such key/, 'no such key');
    }
    case 'index_out_of_bounds':
      return `index out of bounds: ${/index (-?\d+)/.exec(summary)?.[1] ?? ''}`;
    case 'division_by_zero':
      return 'division by zero';
    case 'modulo_by_zero':
      return 'modulus by zero';
    case 'numeric_overflow':
      return 'integer overflow';
    case 'no_such_overload':
    case 'no_matching_overload':
      return 'no such overload';
    case 'optional_value_missing':
      return 'optional.none() dereference';
    default:
      return summary;
  }
}
