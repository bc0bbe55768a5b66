// The runtime cost of CEL evaluations: upstream limits each call (PER_CALL_LIMIT) and each
// object's rules together (RUNTIME_CEL_COST_BUDGET). The library has no cost tracking, so every
// node of a checked AST is wrapped to count its evaluations.

import type { ASTNode } from '@marcbachmann/cel-js';

/** Thrown when an evaluation passes its cost limit; the text is cel-go's. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/**
 * The runtime cost counter. Evaluation is synchronous, so one counter serves every expression.
 * Units are cel-go's actual cost (interpreter/runtimecost.go with Kubernetes' library/cost.go),
 * checked against kube-apiserver 1.32 by the size of list at which a rule passes its per-call
 * limit: identifiers and field selections 1, literals and constant list literals 0, other list
 * literals 10 and map literals 30, `&&`/`||`/`?:` nothing beyond their operands, calls 1 except
 * the sized ones (equality and ordering 0.1 per element of the smaller operand, string `+`, `in`
 * a list, matches/find/findAll, contains, startsWith, the string and list library functions),
 * and the comprehension each macro expands to (per element: all 3, exists 4, exists_one 0 or 2,
 * filter 0 or 13, map 12; plus the accumulator and result).
 */
export const tracker = { cost: 0, limit: Number.POSITIVE_INFINITY };

interface NodeInternals {
  op: string;
  args: unknown;
  meta: { alternate?: NodeInternals; macro?: { evaluate: (ev: unknown, m: unknown, ctx: unknown) => unknown }; evaluate: (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown };
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
  /** The value of this node's last evaluation: a call's cost reads its arguments' sizes. */
  last?: unknown;
}

type Evaluate = (ev: unknown, ast: unknown, ctx: unknown) => unknown;

/** cel-go's actualSize: characters of a string, bytes, list and map entries; 1 for anything else. */
function sizeOf(v: unknown): number {
  if (typeof v === 'string') {
    // code points: UTF-16 length less the second half of each surrogate pair
    let n = v.length;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff) n--;
    }
    return n;
  }
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return 1;
}

const traversal = (v: unknown, factor = 0.1): number => Math.ceil(sizeOf(v) * factor);

/** upstream's traversalCost (isSorted, sum, min, max, indexOf, lastIndexOf): truncated, per element. */
function traversalCost(v: unknown): number {
  if (typeof v === 'string') return Math.floor(sizeOf(v) * 0.1);
  if (v instanceof Uint8Array) return Math.floor(v.length * 0.1);
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + traversalCost(x), 0);
  if (v instanceof Map) {
    let c = 0;
    for (const [k, x] of v) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  return 1;
}

const last = (n: unknown): unknown => (n as NodeInternals | undefined)?.last;
const isConstant = (n: NodeInternals): boolean => n.op === 'value' || (n.op === 'list' && (n.args as NodeInternals[]).every(isConstant));
const NAMESPACES = new Set(['format', 'sets', 'strings']);

/** Per-element overhead of the comprehension a macro expands to, given the predicate's result. */
const MACRO_STEP: Record<string, (result: unknown, arity: number) => number> = {
  all: () => 3,
  exists: () => 4,
  // `p ? acc + … : acc`: cel-go charges nothing for the untaken accumulator branch
  exists_one: (r) => (r === true ? 2 : 0),
  filter: (r) => (r === true ? 13 : 0),
  map: (r, arity) => (arity === 3 ? (r === true ? 12 : 0) : 12),
};
/** The accumulator's initial value and the result expression. */
const MACRO_FIXED: Record<string, number> = { all: 1, exists: 1, exists_one: 2, filter: 11, map: 11 };

/** The cost of a node that does not depend on the values it sees, or undefined. */
function fixedCost(node: NodeInternals): number | undefined {
  switch (node.op) {
    case 'value':
    case '&&':
    case '||':
    case '?:':
      return 0;
    case 'id':
      return NAMESPACES.has(node.args as string) ? 0 : 1;
    case 'list':
      return isConstant(node) ? 0 : 10;
    case 'map':
      return 30;
    case '.':
    case '.?':
    case '[]':
    case '[?]':
    case '!_':
    case '-_':
    case '-':
    case '*':
    case '/':
    case '%':
      return 1;
    default:
      return undefined;
  }
}

/** The cost of one evaluation of `node` that produced `value`, its operands already counted. */
function nodeCost(node: NodeInternals, value: unknown): number {
  switch (node.op) {
    case 'value':
    case '&&':
    case '||':
    case '?:':
      return 0;
    case 'id':
      return NAMESPACES.has(node.args as string) ? 0 : 1; // format.…, sets.…: a function's namespace, no value
    case 'list':
      return isConstant(node) ? 0 : 10;
    case 'map':
      return 30;
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const [l, r] = node.args as [NodeInternals, NodeInternals];
      return Math.ceil(Math.min(sizeOf(last(l)), sizeOf(last(r))) * 0.1);
    }
    case 'in': {
      const list = last((node.args as NodeInternals[])[1]);
      return Array.isArray(list) ? list.length : 1;
    }
    case '+': {
      const [l, r] = node.args as [NodeInternals, NodeInternals];
      const a = last(l);
      const b = last(r);
      if (typeof a === 'string' || a instanceof Uint8Array) return Math.ceil((sizeOf(a) + sizeOf(b)) * 0.1);
      return 1;
    }
    case 'call':
    case 'rcall':
      return callCost(node, value);
    default:
      return 1;
  }
}

function callCost(node: NodeInternals, value: unknown): number {
  const rcall = node.op === 'rcall';
  const [name, a, b] = node.args as [string, NodeInternals | NodeInternals[], NodeInternals[] | undefined];
  const receiver = rcall ? last(a as NodeInternals) : undefined;
  const args = ((rcall ? b : a) as NodeInternals[] | undefined) ?? [];
  const first = last(args[0]);
  if (!rcall && name === 'has') return 0;
  if (rcall && (a as NodeInternals).op === 'id' && NAMESPACES.has((a as NodeInternals).args as string)) {
    // sets.contains/equivalent/intersects: the product of the sizes; format.* and strings.* as plain calls
    if ((a as NodeInternals).args === 'sets' && args.length === 2) return Math.max(1, sizeOf(first) * sizeOf(last(args[1])));
    if ((a as NodeInternals).args === 'strings' && name === 'quote') return traversal(first);
    return 1;
  }
  const subject = rcall ? receiver : first;
  switch (name) {
    case 'matches':
    case 'find':
    case 'findAll': {
      const pattern = rcall ? first : last(args[1]);
      return Math.ceil((1 + sizeOf(subject)) * 0.1) * Math.ceil(sizeOf(pattern) * 0.25);
    }
    case 'contains':
      return typeof subject === 'string' ? traversal(subject) * traversal(first) : 1;
    case 'startsWith':
    case 'endsWith':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'url':
    case 'quantity':
    case 'isQuantity':
    case 'isIP':
    case 'isCIDR':
    case 'cidr':
      return traversal(subject);
    case 'ip':
      return rcall ? 1 : traversal(first);
    case 'replace':
    case 'split':
      return traversal(subject, 0.2);
    case 'join':
      return traversal(value, 0.2);
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
    case 'indexOf':
    case 'lastIndexOf':
      return rcall ? traversalCost(receiver) : 1;
    case 'validate':
      return Math.ceil((1 + sizeOf(first)) * 0.1) * 32;
    case 'containsIP':
      return 1 + (typeof first === 'string' ? traversal(first) : 0);
    case 'containsCIDR':
      return 3 + (typeof first === 'string' ? traversal(first) : 0);
    default:
      return 1;
  }
}

/** The macro an rcall node is (all, exists, …) with its iteration variable, or undefined. */
function macroOf(node: NodeInternals): { name: string; body: NodeInternals[] } | undefined {
  if (node.op !== 'rcall') return undefined;
  const [name, , args] = node.args as [string, NodeInternals, NodeInternals[]];
  if (!(name in MACRO_STEP) || !Array.isArray(args) || args.length < 2 || args[0]?.op !== 'id') return undefined;
  return { name, body: args.slice(1) };
}

/** Counts the cost of every evaluation of every node of a checked AST, macro expansions included. */
export function instrument(root: ASTNode): void {
  const seen = new Set<unknown>();
  // the per-element overhead of a macro, charged when its predicate (or transform) is evaluated
  const stepOf = new Map<NodeInternals, (result: unknown) => number>();
  // `internal`: nodes of the library's own macro expansions (reached only through an alternate or a
  // comprehension's parts): their cost is the macro's, charged above, so they are not wrapped.
  const visit = (x: unknown, internal = false): void => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    if (Array.isArray(x)) {
      for (const v of x) visit(v, internal);
      return;
    }
    if (!('op' in x) || !('meta' in x)) {
      // a comprehension's arguments
      const c = x as Record<string, unknown>;
      for (const k of ['iterable', 'init', 'step']) visit(c[k], true);
      return;
    }
    const node = x as NodeInternals;
    if (internal) {
      visit(node.args, true);
      visit(node.meta.alternate, true);
      return;
    }
    const macro = macroOf(node);
    if (macro) {
      const step = MACRO_STEP[macro.name]!;
      const arity = macro.body.length + 1;
      // the predicate decides the branch; a 2-argument map charges its transform
      stepOf.set(macro.body[0]!, (r) => step(r, arity));
    }
    // what the node would run (the library resolves this on first evaluation, as here)
    let target: Evaluate | undefined;
    const resolve = (): Evaluate => {
      const m = node.meta;
      const alternate = m.alternate;
      const macroImpl = m.macro;
      if (alternate) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
      if (macroImpl) return (ev, _ast, ctx) => macroImpl.evaluate(ev, macroImpl, ctx);
      return m.evaluate; // the operators' evaluate functions use their arguments, not `this`
    };
    const charge = (cost: number): void => {
      tracker.cost += cost;
      if (tracker.cost > tracker.limit) throw new CostLimitExceeded();
    };
    const step = stepOf.get(node); // a macro's predicate is visited after the macro
    const fixed = macro || step ? undefined : fixedCost(node);
    if (fixed !== undefined) {
      // the common case: a cost known before evaluation
      node.evaluate = (ev, ast, ctx) => {
        const value = (target ??= resolve())(ev, ast, ctx);
        node.last = value;
        tracker.cost += fixed;
        if (tracker.cost > tracker.limit) throw new CostLimitExceeded();
        return value;
      };
    } else {
      node.evaluate = (ev, ast, ctx) => {
        const value = (target ??= resolve())(ev, ast, ctx);
        node.last = value;
        if (macro) {
          // the accumulator and result; all/exists read their loop condition once more when they stop early
          let cost = MACRO_FIXED[macro.name]!;
          if (macro.name === 'all' && value === false) cost += 2;
          if (macro.name === 'exists' && value === true) cost += 3;
          charge(cost);
        } else {
          charge(nodeCost(node, value));
        }
        if (step) charge(step(value));
        return value;
      };
    }
    visit(node.args);
    visit(node.meta.alternate, true);
  };
  visit(root);
}
