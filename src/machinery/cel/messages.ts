// cel-go's words and layout for CEL errors, which upstream shows to users verbatim:
//   ERROR: <input>:1:5: undefined field 'foo'
//    | self.foo == 1
//    | ....^
// The library's own errors are translated here: the checker's common errors with cel-go's
// texts and positions (a selection at its '.', a call at its '(', an operator at its symbol);
// syntax errors keep cel-go's prefix and shape, not ANTLR's exact "expecting {…}" sets.

import { ParseError, TypeError as CelTypeError, EvaluationError, type ASTNode } from '@marcbachmann/cel-js';
import { kubernetesBaseEnvironment } from './library.js';

/** What can type-check a piece of source (an environment's library Environment). */
export interface TypeChecker {
  check(text: string): { valid: boolean; type?: string };
}

const binaryOps: Record<string, string> = {
  '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_',
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_',
  in: '@in', '&&': '_&&_', '||': '_||_',
};

/** The library's type names in cel-go's spelling: list<int> → list(int). */
export function celGoTypeName(t: string): string {
  return t.replace(/^dyn<(.*)>$/, '$1').replace(/</g, '(').replace(/>/g, ')');
}

export interface Issue {
  offset: number;
  message: string;
}

export function formatIssue(source: string, err: unknown, ast?: ASTNode, checker?: TypeChecker): string {
  if (err instanceof ParseError && (err as { code?: string }).code === 'unterminated_string') {
    // cel-go's lexer reports the bad token, then the parser the missing operand after it
    const start = (err as { range?: { start: number } }).range?.start ?? 0;
    return [
      displayIssue(source, { offset: start, message: `Syntax error: token recognition error at: '${source.slice(start)}'` }),
      displayIssue(source, { offset: source.length, message: `Syntax error: mismatched input '<EOF>' expecting ${PRIMARY_START}` }),
    ].join('\n');
  }
  const issue = translateIssue(source, err, ast, checker);
  return displayIssue(source, issue);
}

const PRIMARY_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/** Where cel-go places a node: a selection at its '.', a call at its '(', an operator at its symbol. */
export function celGoOffset(source: string, node: ASTNode): number {
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
function typeOfText(checker: TypeChecker | undefined, text: string): string {
  if (!checker) return 'dyn';
  const r = checker.check(text);
  return r.valid && r.type ? celGoTypeName(r.type === 'list' ? 'list<dyn>' : r.type === 'map' ? 'map<dyn, dyn>' : r.type) : 'dyn';
}

/** cel-go's Error.ToDisplayString for one issue. */
export function displayIssue(source: string, issue: Issue): string {
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

function translateIssue(source: string, err: unknown, ast?: ASTNode, checker?: TypeChecker): Issue {
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
        const cond = celGoTypeName(/got '(.*)'/.exec(summary)?.[1] ?? typeOfText(checker, text(c)));
        return {
          offset: celGoOffset(source, ternary),
          message: `found no matching overload for '_?_:_' applied to '(${cond}, ${typeOfText(checker, text(t))}, ${typeOfText(checker, text(f))})'`,
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
export function runtimeMessage(err: unknown): string {
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
