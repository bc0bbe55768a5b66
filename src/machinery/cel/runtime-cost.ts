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
 * Each evaluated node costs 1 (literals 0), comprehension bodies once per element: the same order
 * of magnitude as cel-go's actual cost, not its exact units (cel-go also charges string functions
 * by length).
 */
export const tracker = { cost: 0, limit: Number.POSITIVE_INFINITY };

interface NodeInternals {
  op: string;
  args: unknown;
  meta: { alternate?: NodeInternals; macro?: { evaluate: (ev: unknown, m: unknown, ctx: unknown) => unknown }; evaluate: (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown };
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
}

/** Counts every evaluation of every node of a checked AST, macro expansions included. */
export function instrument(root: ASTNode): void {
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
