// machinery/cel: Kubernetes CEL for apiary — CRD validation rules now, ValidatingAdmissionPolicy
// and webhook matchConditions later. One CEL library (@marcbachmann/cel-js, why in
// expression.ts) plus the Kubernetes extension libraries (library.ts) and cost limits (cost.ts).
//
// Layers:
// - expression.ts: ExpressionEnvironment + compileExpression(expr, env) → CompiledExpression
//   { outputType, references, ast, evaluate(activation) }, errors in cel-go's words.
//   ValidatingAdmissionPolicy builds on this layer:
//     const t = schemaDeclType(podSchema, true, 'Object');        // or no schema: 'dyn'
//     const env = new ExpressionEnvironment({
//       variables: { object: celTypeName(t), oldObject: celTypeName(t), request: 'dyn', params: 'dyn' },
//       types: objectTypes(t), objectEquals: celEquals });
//     const { expression, error } = compileExpression('object.spec.replicas <= 5', env);
//     // error.message is what status.typeChecking / a 422 shows; check expression.outputType === 'bool'
//     expression.evaluate({ object: toCelValue(obj, t), oldObject: null, request: jsonToCel(req), params: null });
//   estimateCost(expression.ast, { object: t }) gives the static cost against the limits in cost.ts.
// - messages.ts, ast-passes.ts, runtime-cost.ts: what makes the library answer as cel-go.
// - schema-types.ts: structural schema → CEL types and JSON → CEL values.
// - validation-rules.ts: compileValidationRules / CompiledValidationRules for CRDs.

export { compileValidationRules, type CompiledValidationRules, type ValidationRule } from './validation-rules.js';
export {
  compileExpression,
  ExpressionEnvironment,
  CelCompileError,
  CelEvaluationError,
  type CompiledExpression,
  type CompileResult,
  type EnvironmentDecls,
  type ObjectTypeDecl,
  type CelTypeName,
  CostLimitExceeded,
} from './expression.js';
export { schemaDeclType, celTypeName, objectTypes, toCelValue, jsonToCel, celEquals, escapePropertyName, type DeclType } from './schema-types.js';
export {
  estimateCost,
  costErrorMessage,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from './cost.js';
export { kubernetesBaseEnvironment, CelQuantity, CelURL } from './library.js';
