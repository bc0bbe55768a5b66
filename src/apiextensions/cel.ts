// CRD validation rules (x-kubernetes-validations): the compiler the CRD
// strategy (compile errors become 422 causes) and every custom resource
// strategy (rules run after schema validation on create and update) use.
// machinery/cel's compileValidationRules by default; the server may be given
// another of the same shape.

import type { FieldError } from '../machinery/field-errors.js';
import { compileValidationRules } from '../machinery/cel/index.js';

export interface CompiledValidationRules {
  /**
   * Evaluates every rule on `obj` (and `oldObj` on update); paths from the object's root.
   * Failures ratcheted on update (value unchanged, rule without oldSelf) go to `warnings` when given.
   */
  validate(obj: unknown, oldObj: unknown | undefined, warnings?: FieldError[]): FieldError[];
}

/**
 * Compiles the rules of one openAPIV3Schema (plain JSON). `basePath` prefixes
 * the paths of compile errors ("spec.validation.openAPIV3Schema").
 */
export type ValidationRuleCompiler = (schema: unknown, basePath: string) => { rules: CompiledValidationRules | undefined; errors: FieldError[] };

/** The default compiler: machinery/cel. */
export const celCompiler: ValidationRuleCompiler = compileValidationRules;
