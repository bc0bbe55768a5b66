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
// The Kubernetes library functions follow upstream's library/cost.go (ip and cidr parsing and
// isIP/isCIDR traverse their string, containsIP/containsCIDR compare 16-byte addresses, a named
// format's validate() is a match against a 128-character regexp, isURL is a plain call); ordering
// comparisons cost 1 except on strings and bytes, a map `in` costs 1, has() costs its operand.
// Checked against kube-apiserver 1.32 at the acceptance boundary, where it prints the factor to
// six decimals (test/machinery/cel/compile.test.ts): equal to the unit on the rules tried.
// Known gaps: equality of type values (type(x) == int), the size of string(dyn) (upstream bounds
// it by the request size; here it is unbounded).

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

const scalarTypes = new Set(['int', 'uint', 'double', 'bool', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

const typeName = (node: ASTNode): string | undefined => (node as unknown as Checked).checkedType?.name;

/** Strings, bytes, lists, maps and dyn of unknown origin are unbounded; any other value counts 1. */
function typeSize(node: ASTNode): number {
  const name = typeName(node);
  if (name === undefined || name === 'string' || name === 'bytes' || name === 'dyn' || /^(list|map)</.test(name)) return UNKNOWN;
  return 1;
}

const mul = (size: number, factor: number): number => (size === UNKNOWN ? UNKNOWN : Math.ceil(size * factor));
const times = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : a * b);

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
      // Indexing a value that is not on a schema path (a function's result): upstream's estimator
      // gives it the path "@values"/"@items" alone, which resolves to the scope's root object, whose
      // size is 0. Followed, so the same rules are accepted.
      return { cost: a.cost + b.cost + 1, type: t, size: t ? t.maxElements : a.type ? typeSize(node) : 0 };
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
    case '-_': {
      // cel-go's parser reads a negated numeric literal (-5) as one literal: no cost
      const operand = node.args as ASTNode;
      if (node.op === '-_' && operand.op === 'value' && (typeof operand.args === 'number' || typeof operand.args === 'bigint')) return { cost: 0, size: 1 };
      return { cost: sub(operand).cost + 1, size: 1 };
    }
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
          // a map lookup is O(1); a list is scanned
          if ((typeName(r) ?? '').startsWith('map<')) return { cost: args + 1, size: 1 };
          return { cost: args + (b.size === UNKNOWN ? UNKNOWN : b.size), size: 1 };
        case '+': {
          const size = a.size + b.size;
          const t = typeName(node) ?? '';
          if (t.startsWith('list<')) return { cost: args + 1, size };
          if (t === 'string' || t === 'bytes') return { cost: args + mul(size, TRAVERSAL), size };
          return { cost: args + 1, size: 1 };
        }
        case '<':
        case '<=':
        case '>':
        case '>=': {
          // only strings and bytes are compared element by element; other values cost 1
          const t = typeName(l) ?? '';
          if (t !== 'string' && t !== 'bytes') return { cost: args + 1, size: 1 };
          const smallest = Math.min(a.size, b.size);
          return { cost: args + (smallest > 0 ? mul(smallest, TRAVERSAL) : 0), size: 1 };
        }
        case '==':
        case '!=': {
          // by the smaller operand's size: 0.1 per character or element, 0 when it is empty
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

/** The worst-case size of a list's elements: from the schema when the list is on a path, else by type. */
function elementSize(list: Estimate, node: ASTNode): number {
  if (list.type?.kind === 'list') return list.type.elem.maxElements;
  const t = typeName(node) ?? '';
  const m = /^list<(.*)>$/.exec(t);
  return m && scalarTypes.has(m[1]!) ? 1 : UNKNOWN;
}

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
    // a presence test costs nothing beyond reading the operand of its field selection
    const sel = args[0];
    const operand = sel && (sel.op === '.' || sel.op === '.?') ? (sel.args as [ASTNode, string])[0] : sel;
    return { cost: operand ? sub(operand).cost : 0, size: 1 };
  }
  // format.<name>() and format.named() are namespaced functions: the namespace is no value to read
  const r = receiver ? (receiver.op === 'id' && receiver.args === 'format' ? { cost: 0, size: 1 } : sub(receiver)) : undefined;
  const est = args.map(sub);
  const argCost = est.reduce((s, e) => s + e.cost, 0) + (r?.cost ?? 0);
  const first = est[0];
  const firstSize = first?.size ?? UNKNOWN;
  const rSize = r?.size ?? UNKNOWN;
  const fixed = (cost: number, size = typeSize(node)): Estimate => ({ cost: argCost + cost, size });
  const namespace = receiver?.op === 'id' ? receiver.args : undefined;

  if (name === 'dyn' && !receiver) return fixed(1, UNKNOWN);
  if (name === 'size') return fixed(1, 1);
  if (namespace === 'sets' && est.length === 2) return fixed(Math.max(1, times(est[0]!.size, est[1]!.size)));
  if (namespace === 'strings' && name === 'quote') return fixed(mul(firstSize, TRAVERSAL), firstSize === UNKNOWN ? UNKNOWN : firstSize * 2 + 2);
  if (!r) {
    switch (name) {
      case 'matches':
        return fixed(times(mul(est[0]!.size + 1, TRAVERSAL), mul(est[1]?.size ?? UNKNOWN, REGEX_FACTOR)));
      case 'url':
        return fixed(mul(firstSize, TRAVERSAL), firstSize);
      case 'isURL':
        return fixed(1); // not in upstream's estimator: a plain call
      case 'quantity':
      case 'isQuantity':
      case 'isIP':
      case 'isCIDR':
      case 'ip':
      case 'cidr':
        return fixed(mul(firstSize, TRAVERSAL));
      case 'bytes':
        return fixed(mul(firstSize, TRAVERSAL), firstSize === UNKNOWN ? UNKNOWN : firstSize * 4);
      default:
        return fixed(1); // conversions and the rest: O(1)
    }
  }
  switch (name) {
    case 'matches':
    case 'find':
    case 'findAll': {
      const cost = times(mul(rSize + 1, TRAVERSAL), mul(firstSize, REGEX_FACTOR));
      return fixed(cost, name === 'matches' ? 1 : name === 'find' ? rSize : rSize);
    }
    case 'validate':
      // <NamedFormat>.validate(s): matching s against a regexp upstream assumes 128 characters long
      return fixed(times(mul(firstSize, TRAVERSAL), mul(128, REGEX_FACTOR)));
    case 'containsIP':
    case 'containsCIDR': {
      // comparing two addresses of at most 16 bytes, plus parsing a string argument
      let cost = mul(16 + 16, TRAVERSAL);
      if (name === 'containsCIDR') cost += mul(16, TRAVERSAL) + 1;
      if (typeName(args[0]!) === 'string') cost += mul(firstSize, TRAVERSAL);
      return fixed(cost, 1);
    }
    case 'contains': {
      const cost = times(mul(rSize, TRAVERSAL), mul(firstSize, TRAVERSAL));
      return fixed(cost, 1);
    }
    case 'startsWith':
    case 'endsWith':
      return fixed(mul(firstSize, TRAVERSAL), 1);
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return fixed(mul(rSize, TRAVERSAL), rSize);
    case 'replace': {
      // the result's size as upstream: the replacement at every match when it is longer
      const toReplaceMin = args[0]?.op === 'value' ? firstSize : 0;
      const withSize = est[1]?.size ?? UNKNOWN;
      let size: number;
      if (toReplaceMin === 0) size = rSize === UNKNOWN || withSize === UNKNOWN ? UNKNOWN : (rSize + 1) * withSize + rSize;
      else if (withSize <= toReplaceMin) size = rSize;
      else size = rSize === UNKNOWN || withSize === UNKNOWN ? UNKNOWN : Math.ceil(rSize / toReplaceMin) * withSize;
      return fixed(mul(rSize, 2 * TRAVERSAL), size);
    }
    case 'split':
      return fixed(mul(rSize, 2 * TRAVERSAL), rSize);
    case 'join': {
      const list = r!;
      let size = times(list.size, elementSize(list, receiver!));
      if (first) size += times(firstSize, Math.max(0, list.size - 1));
      return fixed(mul(size, TRAVERSAL), size);
    }
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
    case 'indexOf':
    case 'lastIndexOf': {
      const t = typeName(receiver!) ?? '';
      if (t === 'string') return fixed(mul(rSize, TRAVERSAL));
      const elemIsString = /^list<(string|bytes)>$/.test(t);
      const elCost = elemIsString ? 1 + mul(elementSize(r!, receiver!), TRAVERSAL) : 1;
      return fixed(times(rSize, elCost));
    }
    default:
      return fixed(1);
  }
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
