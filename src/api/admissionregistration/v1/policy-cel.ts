// The CEL environment of ValidatingAdmissionPolicy expressions (upstream
// k8s.io/apiserver/pkg/admission/plugin/cel/compile.go): `object`, `oldObject`,
// `request`, `namespaceObject` and (when the policy has a paramKind) `params`,
// all dynamically typed at evaluation as upstream declares them, plus
// `variables`, an object type whose fields are the policy's variables compiled
// so far (a later variable or an unknown name is "undefined field").
// `authorizer` (machinery/cel/library-authz.ts) is declared for everything but messageExpressions.
//
// One PolicyCompiler per policy: variables are compiled in order, each seeing
// the ones before it, as upstream's composited compiler does.

import { AUTHORIZER_TYPE } from '../../../machinery/cel/library-authz.js';
import {
  compileExpression,
  ExpressionEnvironment,
  celGoTypeName,
  type CompiledExpression,
  type CompileResult,
  type CelTypeName,
} from '../../../machinery/cel/expression.js';

export interface PolicyCompileOptions {
  hasParams: boolean;
  /** Type of `object`/`oldObject` for type checking (default dyn). */
  objectType?: { name: CelTypeName; types: ConstructorParameters<typeof ExpressionEnvironment>[0]['types']; equals?: (a: unknown, b: unknown) => boolean };
  /** Type of `params` for type checking (default dyn). */
  paramsType?: { name: CelTypeName; types: ConstructorParameters<typeof ExpressionEnvironment>[0]['types'] };
}

/** The constructor of a policy's `variables` values: own properties (getters) per variable. */
export type VariablesCtor = new () => object;

export class PolicyCompiler {
  private readonly variableTypes: Record<string, CelTypeName> = {};
  readonly variablesCtor: VariablesCtor = class PolicyVariables {};
  private env: ExpressionEnvironment | undefined;
  private envWithoutAuthorizer: ExpressionEnvironment | undefined;

  constructor(private readonly options: PolicyCompileOptions) {}

  private environment(authorizer = true): ExpressionEnvironment {
    if (authorizer && this.env !== undefined) return this.env;
    if (!authorizer && this.envWithoutAuthorizer !== undefined) return this.envWithoutAuthorizer;
    const objectType = this.options.objectType?.name ?? 'dyn';
    const variables: Record<string, CelTypeName> = {
      object: objectType,
      oldObject: objectType,
      request: 'dyn',
      namespaceObject: 'dyn',
      variables: 'kubernetes.variables',
    };
    if (this.options.hasParams) variables['params'] = this.options.paramsType?.name ?? 'dyn';
    if (authorizer) variables['authorizer'] = AUTHORIZER_TYPE;
    const types = [
      ...(this.options.objectType?.types ?? []),
      ...(this.options.hasParams ? (this.options.paramsType?.types ?? []) : []),
      { name: 'kubernetes.variables', fields: { ...this.variableTypes }, ctor: this.variablesCtor },
    ];
    const env = new ExpressionEnvironment({ variables, types, ...(this.options.objectType?.equals ? { objectEquals: this.options.objectType.equals } : {}) });
    if (authorizer) this.env = env;
    else this.envWithoutAuthorizer = env;
    return env;
  }

  /** Validations, variables, match conditions and audit annotations: `authorizer` is declared. */
  compile(expr: string): CompileResult {
    return compileExpression(expr, this.environment());
  }

  /** messageExpressions: as upstream, without `authorizer`. */
  compileMessage(expr: string): CompileResult {
    return compileExpression(expr, this.environment(false));
  }

  /** Compiles a variable and makes it visible to what is compiled next (as dyn when it failed). */
  compileVariable(name: string, expr: string): CompileResult {
    const result = this.compile(expr);
    this.variableTypes[name] = result.expression !== undefined ? result.expression.outputType : 'dyn';
    this.env = undefined;
    this.envWithoutAuthorizer = undefined;
    return result;
  }
}

/** cel-go's name of a checked type, as the "must evaluate to X but got Y" messages print it. */
export function outputTypeName(e: CompiledExpression): string {
  const t = e.outputType;
  if (t === 'list') return 'list(dyn)';
  if (t === 'map') return 'map(dyn, dyn)';
  if (t === 'null') return 'null_type';
  return celGoTypeName(t);
}

/** Whether a checked result type is one of `want` (upstream refuses dyn too: "must evaluate to bool but got dyn"). */
export function outputIs(e: CompiledExpression, ...want: string[]): boolean {
  return want.includes(e.outputType);
}
