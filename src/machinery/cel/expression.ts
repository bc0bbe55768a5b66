// The general CEL layer every user in apiary builds on: an ExpressionEnvironment declares
// variables (and object types), compileExpression type-checks one expression against it, and
// the result evaluates against an activation (variable name → CEL value).
//
// CRD validation rules (validation-rules.ts) declare `self`/`oldSelf`; ValidatingAdmissionPolicy
// will declare `object`, `oldObject`, `request`, `params`, `namespaceObject`, `variables`
// (declare them as 'dyn' or as object types from schema-types.ts).
//
// Library choice: @marcbachmann/cel-js. @bufbuild/cel is conformance-tested too, but its type
// checker only knows object types as protobuf message descriptors, so each structural schema
// would have to become a generated protobuf descriptor and every custom resource a protobuf
// message before evaluation. cel-js declares object types by field list, takes plain JS values,
// has a type checker with source ranges, the standard macros (has, all, exists, exists_one, map,
// filter), optional types, custom functions with receiver overloads and custom types
// (Quantity, URL), and is fast. Neither library has a cost model: cost.ts is our own estimate,
// runtime-cost.ts our own counter.
//
// Errors are reported in cel-go's words and layout (messages.ts); ast-passes.ts brings the
// checked AST to cel-go's behaviour where the library differs.

import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { kubernetesBaseEnvironment } from './library.js';
import { PER_CALL_LIMIT } from './cost.js';
import { celGoOffset, displayIssue, formatIssue, runtimeMessage } from './messages.js';
import {
  collectReferences,
  findHeterogeneousLiteral,
  findInvalidFormatCall,
  findInvalidRegexLiteral,
  findUndefinedHasField,
  patchHandles,
  rewriteHasMacros,
} from './ast-passes.js';
import { CostLimitExceeded, instrument, tracker } from './runtime-cost.js';

export { CostLimitExceeded } from './runtime-cost.js';
export { celGoTypeName } from './messages.js';
export { formatGoFloat, rewriteHasMacros } from './ast-passes.js';

/** A CEL type as the library writes it: 'int', 'string', 'list<int>', 'map<string, dyn>', or a declared object type's name. */
export type CelTypeName = string;

/** An object type: named, with typed fields (values are instances of ctor with own properties). */
export interface ObjectTypeDecl {
  name: string;
  fields: Record<string, CelTypeName>;
  ctor: new () => object;
}

export interface EnvironmentDecls {
  variables: Record<string, CelTypeName>;
  types?: ObjectTypeDecl[];
  /** Equality between two values of an object type (cel-go compares objects field by field). */
  objectEquals?: (a: unknown, b: unknown) => boolean;
}

/** The variables and types an expression may use; build once, compile many expressions. */
export class ExpressionEnvironment {
  readonly env: Environment;
  readonly variables: ReadonlySet<string>;
  /** The declared object types' fields, by type name. */
  readonly objectFields: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(decls: EnvironmentDecls) {
    const env = kubernetesBaseEnvironment().clone();
    for (const t of decls.types ?? []) {
      env.registerType(t.name, { ctor: t.ctor, fields: t.fields });
      if (decls.objectEquals) {
        const eq = decls.objectEquals;
        env.registerOperator(`${t.name} == ${t.name}`, (a: unknown, b: unknown) => eq(a, b));
      }
      // cel-go's checker keeps the legacy nullness of message types: an object compares with null
      // (`self.affinity != null`, opentelemetry-operator's CRDs); lists, maps and scalars do not
      // (the library registers the mirrored `null == T` and the `!=` forms with it)
      env.registerOperator(`${t.name} == null`, (a: unknown, b: unknown) => (a ?? null) === (b ?? null));
    }
    for (const [name, type] of Object.entries(decls.variables)) env.registerVariable(name, type);
    this.env = env;
    this.variables = new Set(Object.keys(decls.variables));
    this.objectFields = new Map((decls.types ?? []).map((t) => [t.name, new Set(Object.keys(t.fields))]));
  }
}

/** A compile error: cel-go's issues text ("ERROR: <input>:L:C: msg\n | src\n | ...^"). */
export class CelCompileError extends Error {
  /**
   * 'program' for what cel-go reports when it plans the program rather than when it checks the
   * expression (a constant find()/findAll() pattern Go's regexp refuses): upstream's callers
   * prefix it "program instantiation failed: " instead of "compilation failed: ".
   */
  constructor(
    message: string,
    readonly stage: 'compile' | 'program' = 'compile',
  ) {
    super(message);
  }
}

/** A runtime error, with cel-go's text ("no such key: foo", "division by zero"). */
export class CelEvaluationError extends Error {}

export interface CompiledExpression {
  readonly source: string;
  /** The type-checked syntax tree (for cost estimation). */
  readonly ast: ASTNode;
  /** The checked result type ('bool', 'string', …). */
  readonly outputType: CelTypeName;
  /** The declared variables the expression reads (e.g. whether a rule uses oldSelf). */
  readonly references: ReadonlySet<string>;
  /**
   * Evaluates; throws CelEvaluationError with cel-go's message on a runtime error, and
   * CostLimitExceeded when the evaluation's cost passes costLimit (default: upstream's per-call
   * limit). The cost of the last evaluation is in lastCost.
   */
  evaluate(activation: Record<string, unknown>, costLimit?: number): unknown;
  /** The runtime cost of the last evaluate() (see instrument()). */
  readonly lastCost: number;
}

export type CompileResult = { expression: CompiledExpression; error?: undefined } | { expression?: undefined; error: CelCompileError };

/** Parses and type-checks expr against environment. */
export function compileExpression(expr: string, environment: ExpressionEnvironment): CompileResult {
  let parsed: ReturnType<Environment['parse']>;
  let text = expr;
  try {
    parsed = environment.env.parse(text);
  } catch (e) {
    return { error: new CelCompileError(formatIssue(expr, e)) };
  }
  let checked = parsed.check();
  if (!checked.valid && (checked.error as { code?: string } | undefined)?.code === 'invalid_macro_argument') {
    // The library's has() takes only identifier.field chains; cel-go's takes any expression.field.
    const rewritten = rewriteHasMacros(expr);
    if (rewritten !== expr) {
      try {
        const again = environment.env.parse(rewritten);
        const againChecked = again.check();
        if (againChecked.valid) {
          parsed = again;
          checked = againChecked;
          text = rewritten;
        }
      } catch {
        // keep the first error
      }
    }
  }
  if (!checked.valid) return { error: new CelCompileError(formatIssue(text, checked.error, parsed.ast, environment.env)) };
  // positions below are in `text`, the source that was checked (the same as expr unless has() was rewritten)
  const hasIssue = findUndefinedHasField(text, parsed.ast, environment.objectFields);
  if (hasIssue) return { error: new CelCompileError(displayIssue(text, hasIssue)) };
  const mixed = findHeterogeneousLiteral(parsed.ast, false);
  if (mixed) return { error: new CelCompileError(displayIssue(text, { offset: celGoOffset(text, mixed.node), message: `expected type '${mixed.expected}' but found '${mixed.found}'` })) };
  const badFormat = findInvalidFormatCall(text, parsed.ast);
  if (badFormat) return { error: new CelCompileError(displayIssue(text, badFormat)) };
  patchHandles(parsed.ast);
  const badRegex = findInvalidRegexLiteral(parsed.ast);
  if (badRegex?.function === 'matches') return { error: new CelCompileError(displayIssue(text, { offset: badRegex.node.range.start, message: 'invalid matches argument' })) };
  if (badRegex) return { error: new CelCompileError(badRegex.error, 'program') };
  const references = new Set<string>();
  collectReferences(parsed.ast, environment.variables, new Set(), references);
  instrument(parsed.ast);
  const expression = {
    source: expr,
    ast: parsed.ast,
    outputType: checked.type ?? 'dyn',
    references,
    lastCost: 0,
    evaluate(activation: Record<string, unknown>, costLimit = PER_CALL_LIMIT): unknown {
      tracker.cost = 0;
      tracker.limit = costLimit;
      try {
        const value = parsed(activation);
        if (tracker.cost > costLimit) throw new CostLimitExceeded();
        return value;
      } catch (e) {
        // the library turns some errors into values (a || b): the counter is the truth
        if (tracker.cost > costLimit || e instanceof CostLimitExceeded) throw new CostLimitExceeded();
        throw new CelEvaluationError(runtimeMessage(e));
      } finally {
        expression.lastCost = tracker.cost;
        tracker.limit = Number.POSITIVE_INFINITY;
      }
    },
  };
  return { expression };
}

