// machinery/cel: Kubernetes CEL for apiary — CRD validation rules now, ValidatingAdmissionPolicy
// and webhook matchConditions later. One CEL library (@marcbachmann/cel-js, why in
// expression.ts) plus the Kubernetes extension libraries (library.ts) and cost limits (cost.ts).
//
// Layers:
// - expression.ts: ExpressionEnvironment + compileExpression(expr, env) → CompiledExpression
//   { outputType, references, evaluate(activation) }, errors in cel-go's words. VAP builds on this:
//   declare object/oldObject/request/params/namespaceObject/variables, compile each validation,
//   check outputType, evaluate with an activation.
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
} from './expression.js';
export { schemaDeclType, celTypeName, objectTypes, toCelValue, celEquals, escapePropertyName, type DeclType } from './schema-types.js';
export {
  estimateCost,
  costErrorMessage,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from './cost.js';
export { kubernetesBaseEnvironment, CelQuantity, CelURL } from './library.js';
