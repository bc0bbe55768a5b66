// The injection point for CRD validation rules (x-kubernetes-validations).
// apiextensions does not evaluate CEL itself: the server is assembled with a
// compiler of exactly this shape (machinery/cel's compileValidationRules) and
// passes it to the CRD strategy (validation: compile errors become 422
// causes) and to every custom resource strategy (rules run after schema
// validation on create and update). Without one, a CRD that declares rules is
// refused with a 422 rather than served with its rules silently skipped.

import type { FieldError } from '../machinery/field-errors.js';

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
