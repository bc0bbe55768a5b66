// A ValidatingAdmissionPolicy compiled for evaluation (upstream's
// validating/validator.go and the CEL filters): match conditions, variables
// (lazy, each evaluated at most once per evaluation), validations with their
// messageExpressions, audit annotations; evaluation under upstream's cost
// limits (each call PER_CALL_LIMIT, all of one policy evaluation together
// RUNTIME_CEL_COST_BUDGET).

import { PolicyCompiler } from '../../api/admissionregistration/v1/policy-cel.js';
import type { ValidatingAdmissionPolicy, Validation } from '../../api/admissionregistration/v1/policy-types.js';
import { CostLimitExceeded, type CompiledExpression } from '../../machinery/cel/expression.js';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../../machinery/cel/cost.js';

export interface Decision {
  action: 'admit' | 'deny';
  /** 'error' when the decision comes from an evaluation error (failurePolicy decided it). */
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  reason?: string;
}

export interface AuditAnnotationResult {
  key: string;
  action: 'publish' | 'exclude' | 'error';
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: Decision[];
  auditAnnotations: AuditAnnotationResult[];
}

/** The variables CEL sees (object, oldObject, request, params, namespaceObject), as CEL values. */
export interface Activation {
  /** A CelAuthorizer for the request's user (library-authz.ts), or null. */
  authorizer?: unknown;
  object: unknown;
  oldObject: unknown;
  request: unknown;
  params: unknown;
  namespaceObject: unknown;
}

class BudgetExceeded extends Error {}

interface Compiled<T> {
  source: T;
  expression?: CompiledExpression;
  error?: string;
}

const MAX_MESSAGE_BYTES = 5 * 1024;

export class CompiledPolicy {
  readonly name: string;
  readonly failurePolicy: string;
  /** A compile error (a stored policy that no longer compiles): every binding fails as failurePolicy says. */
  readonly configurationError: string | undefined;
  private readonly matchConditions: Compiled<{ name: string; expression: string }>[] = [];
  private readonly variables: Compiled<{ name: string; expression: string }>[] = [];
  private readonly validations: { validation: Validation; expression: Compiled<string>; message?: Compiled<string> }[] = [];
  private readonly audits: Compiled<{ key: string; valueExpression: string }>[] = [];
  private readonly variablesCtor: new () => object;
  /** The request variables any expression reads (object, oldObject, request, namespaceObject, params): the rest need not be built. */
  readonly uses = new Set<string>();

  constructor(readonly policy: ValidatingAdmissionPolicy) {
    this.name = policy.metadata.name ?? '';
    const spec = policy.spec ?? {};
    this.failurePolicy = spec.failurePolicy ?? 'Fail';
    const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
    const compiler = new PolicyCompiler({ hasParams });
    this.variablesCtor = compiler.variablesCtor;
    const errors: string[] = [];
    const compile = <T>(source: T, expr: string, variable?: string, message = false): Compiled<T> => {
      const r = variable !== undefined ? compiler.compileVariable(variable, expr) : message ? compiler.compileMessage(expr) : compiler.compile(expr);
      if (r.error !== undefined) {
        errors.push(r.error.message);
        return { source, error: r.error.message };
      }
      return { source, expression: r.expression };
    };
    const conditions = new PolicyCompiler({ hasParams });
    for (const c of spec.matchConditions ?? []) {
      const r = conditions.compile(c.expression);
      this.matchConditions.push(r.error !== undefined ? { source: c, error: r.error.message } : { source: c, expression: r.expression });
    }
    for (const v of spec.variables ?? []) this.variables.push(compile(v, v.expression, v.name));
    for (const v of spec.validations ?? []) {
      const entry: (typeof this.validations)[number] = { validation: v, expression: compile(v.expression, v.expression) };
      if ((v.messageExpression ?? '').trim() !== '') entry.message = compile(v.messageExpression!, v.messageExpression!, undefined, true);
      this.validations.push(entry);
    }
    for (const a of spec.auditAnnotations ?? []) this.audits.push(compile(a, a.valueExpression.trim()));
    this.configurationError = errors.length > 0 ? errors.join('; ') : undefined;
    const all = [...this.matchConditions, ...this.variables, ...this.audits, ...this.validations.flatMap((v) => (v.message ? [v.expression, v.message] : [v.expression]))];
    for (const c of all) for (const r of c.expression?.references ?? []) this.uses.add(r);
  }

  private decisionForError(message: string): Decision {
    return { action: this.failurePolicy === 'Ignore' ? 'admit' : 'deny', evaluation: 'error', message };
  }

  /** Evaluates the match conditions: true (all true), false (one false), or an error text. */
  private matches(vars: Record<string, unknown>): true | false | string {
    const errors: string[] = [];
    for (const c of this.matchConditions) {
      if (c.expression === undefined) {
        errors.push(c.error ?? '');
        continue;
      }
      try {
        const v = c.expression.evaluate(vars, PER_CALL_LIMIT);
        if (v === false) return false;
        if (v !== true) errors.push(`expression '${c.source.expression}' resulted in error: no such overload`);
      } catch (e) {
        errors.push(`expression '${c.source.expression}' resulted in error: ${(e as Error).message}`);
      }
    }
    if (errors.length === 0) return true;
    return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  }

  validate(input: Activation): ValidateResult {
    const vars: Record<string, unknown> = { ...input };
    vars['variables'] = this.variablesValue(vars);
    // messageExpressions and audit annotations run without the authorizer, their variables evaluated
    // afresh in that context (upstream's message and audit filters get no authorizer binding)
    let lateVars: Record<string, unknown> | undefined;
    const late = (): Record<string, unknown> => {
      if (lateVars !== undefined) return lateVars;
      lateVars = { ...input, authorizer: null };
      lateVars['variables'] = this.variablesValue(lateVars);
      return lateVars;
    };
    if (this.matchConditions.length > 0) {
      const m = this.matches(vars);
      if (typeof m === 'string') return { decisions: [this.decisionForError(m)], auditAnnotations: [] };
      if (!m) return { decisions: [], auditAnnotations: [] };
    }
    let budget = RUNTIME_CEL_COST_BUDGET;
    const run = (e: CompiledExpression, source: string, activation = vars): { value?: unknown; error?: string } => {
      try {
        const value = e.evaluate(activation, Math.min(PER_CALL_LIMIT, budget));
        budget -= e.lastCost;
        return { value };
      } catch (err) {
        budget -= e.lastCost;
        if (err instanceof CostLimitExceeded && budget <= 0) throw new BudgetExceeded();
        return { error: `expression '${source}' resulted in error: ${(err as Error).message}` };
      }
    };
    const decisions: Decision[] = [];
    try {
      for (const v of this.validations) {
        const expr = v.validation.expression;
        if (v.expression.expression === undefined) {
          decisions.push(this.decisionForError(v.expression.error ?? ''));
          continue;
        }
        const r = run(v.expression.expression, expr);
        if (budget < 0) throw new BudgetExceeded();
        if (r.error !== undefined) {
          decisions.push(this.decisionForError(r.error));
          continue;
        }
        if (r.value === true) {
          decisions.push({ action: 'admit', evaluation: 'admit', message: '' });
          continue;
        }
        let message = '';
        if (v.message?.expression !== undefined) {
          const m = run(v.message.expression, v.validation.messageExpression ?? '', input.authorizer !== undefined && input.authorizer !== null ? late() : vars);
          if (typeof m.value === 'string') {
            message = m.value.trim();
            if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
          }
        }
        if (message === '' && (v.validation.message ?? '') !== '') message = v.validation.message!.trim();
        if (message === '') message = `failed expression: ${expr.trim()}`;
        decisions.push({ action: 'deny', evaluation: 'deny', message, reason: v.validation.reason ?? 'Invalid' });
      }
    } catch (e) {
      if (!(e instanceof BudgetExceeded)) throw e;
      return { decisions: [this.decisionForError('validation failed due to running out of cost budget, no further validation rules will be run')], auditAnnotations: [] };
    }
    const audits: AuditAnnotationResult[] = [];
    for (const a of this.audits) {
      const key = a.source.key;
      if (a.expression === undefined) {
        audits.push({ key, action: this.failurePolicy === 'Ignore' ? 'exclude' : 'error', error: a.error ?? '' });
        continue;
      }
      let value: unknown;
      try {
        value = a.expression.evaluate(input.authorizer !== undefined && input.authorizer !== null ? late() : vars, PER_CALL_LIMIT);
      } catch (err) {
        audits.push({ key, action: this.failurePolicy === 'Ignore' ? 'exclude' : 'error', error: `expression '${a.source.valueExpression.trim()}' resulted in error: ${(err as Error).message}` });
        continue;
      }
      if (typeof value === 'string') {
        const v = value.trim();
        audits.push(v === '' ? { key, action: 'exclude' } : { key, action: 'publish', value: v });
      } else if (value === null) audits.push({ key, action: 'exclude' });
      else {
        audits.push({ key, action: 'error', error: `valueExpression '${a.source.valueExpression}' resulted in unsupported return type: ${typeof value}. Return type must be either string or null.` });
      }
    }
    return { decisions, auditAnnotations: audits };
  }

  /** The `variables` value: each variable a getter evaluated at most once, its error raised where it is used. */
  private variablesValue(vars: Record<string, unknown>): object {
    const out = new this.variablesCtor();
    for (const v of this.variables) {
      let done = false;
      let value: unknown;
      let error: Error | undefined;
      Object.defineProperty(out, v.source.name, {
        enumerable: true,
        get: () => {
          if (!done) {
            done = true;
            if (v.expression === undefined) error = new Error(`composited variable "${v.source.name}" fails to compile: ${v.error ?? ''}`);
            else {
              try {
                value = v.expression.evaluate(vars, PER_CALL_LIMIT);
              } catch (e) {
                error = e as Error;
              }
            }
          }
          if (error !== undefined) throw error;
          return value;
        },
      });
    }
    return out;
  }
}
