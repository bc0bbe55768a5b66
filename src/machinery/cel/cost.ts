// A static estimate of an expression's worst-case cost, after cel-go's checker/cost.go with
// Kubernetes' size estimator (the schema's maxItems/maxProperties/maxLength, or upstream's
// estimate from the 3 MiB request limit).
//
// Followed from upstream: identifiers and field selections cost 1, literals 0, list literals 10,
// map literals 30; a comprehension costs its range's size times (step + loop condition); string
// equality, concatenation and the string functions cost 0.1 per character, `matches` the string's
// size times a quarter of the pattern's; `in` costs the list's size; a value whose size is unknown
// (e.g. the result of string(int)) counts as unbounded, which is why upstream refuses
// `'n=' + string(self.n)` as a messageExpression.
// APPROXIMATE: the Kubernetes library functions (lists, quantity, url, regex, sets) use simplified
// formulas, and the macros' loop bodies use fixed overheads; an estimate far over the limit
// ("more than 100x") matches upstream, a factor close to the limit may differ.

import type { ASTNode } from '@marcbachmann/cel-js';
import type { DeclType } from './schema-types.js';

/** Upstream's limits (k8s.io/apiserver/pkg/apis/cel/config.go, apiextensions validation). */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const UNKNOWN = Number.POSITIVE_INFINITY;
const TRAVERSAL = 0.1;
const REGEX_FACTOR = 0.25;

interface Estimate {
  cost: number;
  /** Worst-case size of the value (string/bytes length, list/map entries; 1 for other scalars). */
  size: number;
  /** The schema type, while the value is on a path from a declared variable. */
  type?: DeclType;
}

interface Checked {
  checkedType?: { name?: string };
}

const scalarTypes = new Set(['int', 'uint', 'double', 'bool', 'null_type', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

function typeSize(node: ASTNode): number {
  const name = (node as unknown as Checked).checkedType?.name;
  return name !== undefined && scalarTypes.has(name) ? 1 : UNKNOWN;
}

const mul = (size: number, factor: number): number => (size === UNKNOWN ? UNKNOWN : Math.ceil(size * factor));

// Receiver string functions costing a traversal of the receiver, and whether their result keeps its size.
const stringFunctions: Record<string, boolean> = {
  charAt: false, indexOf: false, lastIndexOf: false, lowerAscii: true, upperAscii: true, replace: false,
  split: true, substring: true, trim: true, startsWith: false, endsWith: false,
};

/** The worst-case cost of a type-checked AST when its variables have the given schema types. */
export function estimateCost(ast: ASTNode, variables: Record<string, DeclType | undefined>): number {
  const c = estimate(ast, new Map(Object.entries(variables)));
  return c.cost;
}

function estimate(node: ASTNode, scope: Map<string, DeclType | undefined>): Estimate {
  const sub = (n: ASTNode): Estimate => estimate(n, scope);
  switch (node.op) {
    case 'value': {
      const v = node.args;
      const size = typeof v === 'string' ? [...v].length : v instanceof Uint8Array ? v.length : 1;
      return { cost: 0, size };
    }
    case 'id': {
      if (scope.has(node.args)) {
        const t = scope.get(node.args);
        return { cost: 1, type: t, size: t ? t.maxElements : typeSize(node) };
      }
      return { cost: 1, size: typeSize(node) };
    }
    case '.':
    case '.?': {
      const [operand, field] = node.args;
      const o = sub(operand);
      let t: DeclType | undefined;
      if (o.type?.kind === 'object') t = o.type.fields.get(field)?.type;
      else if (o.type?.kind === 'map') t = o.type.elem;
      return { cost: o.cost + 1, type: t, size: t ? t.maxElements : typeSize(node) };
    }
    case '[]':
    case '[?]': {
      const [l, r] = node.args;
      const a = sub(l);
      const b = sub(r);
      const t = a.type?.kind === 'list' || a.type?.kind === 'map' ? a.type.elem : undefined;
      return { cost: a.cost + b.cost + 1, type: t, size: t ? t.maxElements : typeSize(node) };
    }
    case 'list': {
      let cost = 10;
      for (const e of node.args) cost += sub(e).cost;
      return { cost, size: node.args.length };
    }
    case 'map': {
      let cost = 30;
      for (const [k, v] of node.args) cost += sub(k).cost + sub(v).cost;
      return { cost, size: node.args.length };
    }
    case '&&':
    case '||': {
      const [l, r] = node.args;
      return { cost: sub(l).cost + sub(r).cost, size: 1 };
    }
    case '?:': {
      const [c, t, f] = node.args;
      const a = sub(t);
      const b = sub(f);
      return { cost: sub(c).cost + Math.max(a.cost, b.cost), size: Math.max(a.size, b.size), type: a.type ?? b.type };
    }
    case '!_':
    case '-_':
      return { cost: sub(node.args).cost + 1, size: 1 };
    case 'call':
      return callCost(node.args[0], undefined, node.args[1], node, scope);
    case 'rcall':
      return callCost(node.args[0], node.args[1], node.args[2], node, scope);
    default: {
      const [l, r] = node.args as [ASTNode, ASTNode];
      const a = sub(l);
      const b = sub(r);
      const args = a.cost + b.cost;
      switch (node.op) {
        case 'in':
          return { cost: args + (b.size === UNKNOWN ? UNKNOWN : b.size), size: 1 };
        case '+': {
          const size = a.size + b.size;
          const isList = (node as unknown as Checked).checkedType?.name?.startsWith('list<') ?? false;
          return { cost: args + (isList ? 1 : mul(size, TRAVERSAL)), size };
        }
        case '==':
        case '!=':
        case '<':
        case '<=':
        case '>':
        case '>=': {
          const smallest = Math.min(a.size, b.size);
          return { cost: args + (smallest > 0 ? mul(smallest, TRAVERSAL) : 0), size: 1 };
        }
        default:
          return { cost: args + 1, size: 1 };
      }
    }
  }
}

// Per iteration: the loop step and condition the macro expands to, beyond the predicate;
// then the accumulator's initial value and the result expression.
const comprehensionOverhead: Record<string, number> = { all: 3, exists: 4, exists_one: 2, map: 12, filter: 13 };
const comprehensionFixed: Record<string, number> = { all: 1, exists: 1, exists_one: 2, map: 11, filter: 11 };
/** A map's keys are strings of size 0 to upstream's estimator (their type has no maxLength). */
const MAP_KEY: DeclType = { kind: 'scalar', name: '@keys', cel: 'string', maxElements: 0, minSize: 2 };

function callCost(
  name: string,
  receiver: ASTNode | undefined,
  args: ASTNode[],
  node: ASTNode,
  scope: Map<string, DeclType | undefined>,
): Estimate {
  const sub = (n: ASTNode): Estimate => estimate(n, scope);
  if (receiver && name in comprehensionOverhead && args.length >= 2 && args[0]!.op === 'id') {
    const r = sub(receiver);
    const inner = new Map(scope);
    inner.set(args[0]!.args as string, r.type?.kind === 'list' ? r.type.elem : r.type?.kind === 'map' ? MAP_KEY : undefined);
    let body = 0;
    for (const a of args.slice(1)) body += estimate(a, inner).cost;
    const n = r.size;
    const loop = n === UNKNOWN ? UNKNOWN : n * (body + comprehensionOverhead[name]!);
    const listResult = name === 'map' || name === 'filter';
    return { cost: r.cost + comprehensionFixed[name]! + loop, size: listResult ? n : 1, type: name === 'filter' ? r.type : undefined };
  }
  if (!receiver && name === 'has') {
    const a = args[0] ? sub(args[0]) : { cost: 0 };
    return { cost: a.cost, size: 1 };
  }
  const r = receiver ? sub(receiver) : undefined;
  const est = args.map(sub);
  const argCost = est.reduce((s, e) => s + e.cost, 0) + (r?.cost ?? 0);
  const first = est[0];
  let cost = 1;
  let size = typeSize(node);
  if (name === 'dyn') return { cost: argCost + 1, size: first?.size ?? UNKNOWN, type: first?.type };
  if (name === 'size') return { cost: argCost + 1, size: 1 };
  if (r && name === 'matches' || r && (name === 'find' || name === 'findAll')) {
    cost = mul(r!.size + 1, TRAVERSAL) * mul(first?.size ?? UNKNOWN, REGEX_FACTOR);
    if (Number.isNaN(cost)) cost = UNKNOWN;
  } else if (!r && name === 'matches' && est.length === 2) {
    cost = mul(est[0]!.size + 1, TRAVERSAL) * mul(est[1]!.size, REGEX_FACTOR);
  } else if (r && name === 'contains') {
    const a = mul(r.size, TRAVERSAL);
    const b = mul(first?.size ?? UNKNOWN, TRAVERSAL);
    cost = a === 0 || b === 0 ? 1 : a * b;
  } else if (r && (name === 'startsWith' || name === 'endsWith')) {
    cost = Math.max(1, mul(first?.size ?? UNKNOWN, TRAVERSAL));
  } else if (r && name in stringFunctions && r.type?.kind !== 'list') {
    cost = Math.max(1, mul(r.size, TRAVERSAL) * (name === 'split' ? 2 : 1));
    if (stringFunctions[name]) size = name === 'split' ? r.size : r.size;
  } else if (r && (name === 'join' || name === 'isSorted' || name === 'sum' || name === 'min' || name === 'max' || name === 'indexOf' || name === 'lastIndexOf')) {
    // every element visited and compared
    const elem = r.type?.kind === 'list' ? r.type.elem.maxElements : 0;
    cost = Math.max(1, r.size === UNKNOWN ? UNKNOWN : r.size * (1 + mul(elem, TRAVERSAL)));
    if (name === 'join') size = UNKNOWN;
  } else if (name === 'contains' || name === 'equivalent' || name === 'intersects') {
    // sets.*(a, b): every element of b looked up in a
    const a = est[0]?.size ?? UNKNOWN;
    const b = est[1]?.size ?? UNKNOWN;
    cost = a * b || 1;
  } else if (['url', 'isURL', 'quantity', 'isQuantity', 'string', 'bytes', 'quote', 'encode', 'decode'].includes(name)) {
    cost = Math.max(1, mul(first?.size ?? UNKNOWN, TRAVERSAL));
  }
  return { cost: argCost + cost, size };
}

/** Upstream's getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let text: string;
  if (factor > 100) text = 'more than 100x';
  else if (factor < 1.5) text = `${factor.toFixed(6)}x`;
  else text = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/**
 * The worst-case number of times a rule at a schema node runs: the product of the max sizes of
 * every list and map above it (upstream's MaxCardinality).
 */
export function multiplyCardinality(cardinality: number, t: DeclType): number {
  return cardinality * Math.max(1, t.maxElements);
}
