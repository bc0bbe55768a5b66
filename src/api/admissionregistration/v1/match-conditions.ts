// Webhook matchConditions: CEL expressions over `object`, `oldObject`,
// `request` and `authorizer`, which must type-check to bool (upstream's
// admission/plugin/webhook/matchconditions with the plugin/cel compiler). One
// environment, compiled programs cached by expression text: the dispatcher and
// validation compile the same strings.

import { type CompiledExpression, ExpressionEnvironment, compileExpression } from '../../../machinery/cel/index.js';

let environment: ExpressionEnvironment | undefined;
const cache = new Map<string, CompiledExpression | string>();

function env(): ExpressionEnvironment {
  environment ??= new ExpressionEnvironment({
    variables: { object: 'dyn', oldObject: 'dyn', request: 'dyn', authorizer: 'dyn' },
  });
  return environment;
}

/** The compiled condition, or the error text validation reports (cel-go's words). */
export function compileMatchCondition(expression: string): CompiledExpression | string {
  const hit = cache.get(expression);
  if (hit !== undefined) return hit;
  const result = compileExpression(expression, env());
  let out: CompiledExpression | string;
  if (result.error) out = `compilation failed: ${result.error.message}`;
  else if (result.expression.outputType !== 'bool') out = `must evaluate to bool but got ${result.expression.outputType}`;
  else out = result.expression;
  if (cache.size > 1000) cache.clear();
  cache.set(expression, out);
  return out;
}
