// CRD validation rules: x-kubernetes-validations compiled at CRD creation, evaluated on every
// write of a custom resource (upstream: apiextensions-apiserver pkg/apiserver/schema/cel/
// compilation.go and validation.go, and the x-kubernetes-validations part of
// pkg/apis/apiextensions/validation/validation.go).
//
// Compile (compileValidationRules) reports, with upstream's paths and messages:
// - the rule's own shape: rule required, message/messageExpression non-empty and one line,
//   reason one of the four FieldValue* reasons, fieldPath a valid path into the node's schema;
// - per rule: "compilation failed: <cel-go issues>", "cel expression must evaluate to a bool",
//   messageExpression compile errors and "must evaluate to a string", the estimated cost over
//   budget (cost.ts, approximate), oldSelf on an uncorrelatable node, optionalOldSelf without oldSelf;
// - for the whole schema: the estimated total over the CRD budget.
// Evaluate (validate) walks the object beside the schema: each node's rules with `self` bound to
// the node's value; transition rules (those that read oldSelf) only when an old value correlates
// (same property, same map key, or the same keys in an x-kubernetes-list-type=map list), or
// always with optionalOldSelf; errors as upstream: `spec: Invalid value: "object": failed rule: …`,
// the root's path printing as "<nil>" as upstream's nil field.Path does.
//
// Ratcheting as upstream: on update, a rule without oldSelf that fails on a value equal to its
// old value (or inside an uncorrelatable part whose nearest correlated ancestor is unchanged)
// becomes a warning.
// Runtime cost as upstream's shape: a per-call limit (1,000,000) that stops validation with
// "operation cancelled: actual cost limit exceeded", and a budget per object (10,000,000) whose
// exhaustion stops it with "validation failed due to running out of cost budget"; the units are
// cel-go's (runtime-cost.ts).
// Rules inside allOf/anyOf/oneOf/not never reach this module: kube-apiserver 1.32 refuses them as
// non-structural ("must be empty to be structural", apiextensions/schema/structural.ts).

import { Optional } from '@marcbachmann/cel-js';
import { FieldError, fieldErrors, GoValue } from '../field-errors.js';
import {
  CelEvaluationError,
  CostLimitExceeded,
  compileExpression,
  ExpressionEnvironment,
  type CompiledExpression,
} from './expression.js';
import {
  celEquals,
  celTypeName,
  MAX_REQUEST_SIZE_BYTES,
  objectTypes,
  schemaDeclType,
  toCelValue,
  type DeclType,
  type JSONSchema,
} from './schema-types.js';
import {
  costErrorMessage,
  estimateCost,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from './cost.js';

/** One x-kubernetes-validations entry as JSON. */
export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface CompiledValidationRules {
  /**
   * Evaluates every x-kubernetes-validations rule in the schema against obj (oldObj for transition
   * rules: oldSelf, optionalOldSelf); returns upstream's field errors with paths from the object's
   * root (e.g. "spec.replicas"). On update, a failed rule on a value the update left unchanged is
   * ratcheted as upstream (CRDValidationRatcheting, on by default in 1.32): not an error but a
   * warning, pushed to `warnings` when given (upstream sends `Warning: <error text>` headers).
   */
  validate(obj: unknown, oldObj: unknown | undefined, warnings?: FieldError[]): FieldError[];
}

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;
/** Rules cheaper than 1 % of the CRD-wide limit are not named when the total is over budget. */
const NAMED_COST_THRESHOLD = STATIC_ESTIMATED_CRD_COST_LIMIT / 100;

interface CompiledRule {
  rule: ValidationRule;
  program: CompiledExpression;
  usesOldSelf: boolean;
  optionalOldSelf: boolean;
  messageExpression?: CompiledExpression;
  /** The fieldPath, normalized ("spec.x" form), to append to the node's path. */
  fieldPath?: string;
}

interface NodeValidator {
  schemaType: string;
  decl: DeclType;
  rules: CompiledRule[];
  properties: Map<string, NodeValidator>;
  items?: NodeValidator;
  additionalProperties?: NodeValidator;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
}

/** Upstream prints a Go struct with %#v; pointers print as addresses, which differ per run. */
function ruleRepr(r: ValidationRule): GoValue {
  const q = (s: string | undefined): string => JSON.stringify(s ?? '');
  const reason = r.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : '(*apiextensions.FieldValueErrorReason)(0xc000000000)';
  const optional = r.optionalOldSelf === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
  return new GoValue(
    `apiextensions.ValidationRule{Rule:${q(r.rule)}, Message:${q(r.message)}, MessageExpression:${q(r.messageExpression)}, Reason:${reason}, FieldPath:${q(r.fieldPath)}, OptionalOldSelf:${optional}}`,
  );
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** Upstream's ValidFieldPath: ".a.b", "['a.b']" or ".a['b']" into the node's schema; the normalized path or an error. */
export function validFieldPath(path: string, schema: JSONSchema): { path: string } | { error: string } {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.' || c === '[' || c === ']') {
      tokens.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      tokens.push(path.slice(i, j));
      i = j;
    }
  }
  let s: JSONSchema | undefined = schema;
  let out = '';
  const step = (name: string): string | undefined => {
    if (!s) return 'does not refer to a valid field';
    const props = s.properties as Record<string, JSONSchema> | undefined;
    if (props) {
      out += out === '' ? name : `.${name}`;
      s = props[name];
      if (!s) return 'does not refer to a valid field';
    } else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      out += `[${name}]`;
      s = s.additionalProperties as JSONSchema;
    } else return 'does not refer to a valid field';
    return undefined;
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    if (tok === '.') {
      const name = tokens[++t];
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      const e = step(name);
      if (e) return { error: e };
    } else if (tok === '[') {
      const q = tokens[++t];
      if (q === undefined) return { error: 'unexpected end of JSON path' };
      if (q.length < 2 || !q.startsWith("'") || !q.endsWith("'")) return { error: `expected single quoted string but got ${q}` };
      const e = step(q.slice(1, -1).replace(/\\(.)/g, '$1'));
      if (e) return { error: e };
      if (tokens[++t] !== ']') return { error: `expected ] but got ${tokens[t] ?? ''}` };
    } else return { error: `expected [ or . but got: ${tok}` };
  }
  return { path: out };
}

interface CompileContext {
  schemaErrors: FieldError[];
  celErrors: FieldError[];
  totalCost: number;
  mostExpensive: { path: string; cost: number }[];
  /** Environments per object type, shared by nodes of the same type. */
  envs: Map<string, ExpressionEnvironment>;
}

function environmentFor(decl: DeclType, optionalOldSelf: boolean, ctx: CompileContext): ExpressionEnvironment {
  const key = `${decl.name}|${optionalOldSelf}`;
  let env = ctx.envs.get(key);
  if (!env) {
    const t = celTypeName(decl);
    env = new ExpressionEnvironment({
      variables: { self: t, oldSelf: optionalOldSelf ? `optional<${t}>` : t },
      types: objectTypes(decl),
      objectEquals: celEquals,
    });
    ctx.envs.set(key, env);
  }
  return env;
}

function observeCost(ctx: CompileContext, path: string, cost: number): void {
  ctx.totalCost += cost;
  if (cost < NAMED_COST_THRESHOLD) return;
  ctx.mostExpensive.push({ path, cost });
  ctx.mostExpensive.sort((a, b) => b.cost - a.cost);
  if (ctx.mostExpensive.length > 4) ctx.mostExpensive.length = 4;
}

/** Validates the shape of one node's rules (upstream's SchemaErrors); true when all are fine. */
function checkRuleShapes(schema: JSONSchema, rules: ValidationRule[], path: string, ctx: CompileContext): boolean {
  const before = ctx.schemaErrors.length;
  rules.forEach((r, i) => {
    const p = `${path}.x-kubernetes-validations[${i}]`;
    const rule = (r.rule ?? '').trim();
    const msg = (r.message ?? '').trim();
    if (rule === '') ctx.schemaErrors.push(fieldErrors.required(`${p}.rule`, 'rule is not specified'));
    else if ((r.message ?? '') !== '' && msg === '') ctx.schemaErrors.push(fieldErrors.invalid(`${p}.message`, r.message, 'message must be non-empty if specified'));
    else if (hasNewlines(msg)) ctx.schemaErrors.push(fieldErrors.invalid(`${p}.message`, r.message, 'message must not contain line breaks'));
    else if (hasNewlines(rule) && msg === '') ctx.schemaErrors.push(fieldErrors.required(`${p}.message`, 'message must be specified if rule contains line breaks'));
    if ((r.messageExpression ?? '') !== '' && r.messageExpression!.trim() === '') {
      ctx.schemaErrors.push(fieldErrors.required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
    }
    if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason)) {
      ctx.schemaErrors.push(fieldErrors.notSupported(`${p}.reason`, r.reason, SUPPORTED_REASONS));
    }
    const fp = r.fieldPath ?? '';
    if (fp !== '' && fp.trim() === '') ctx.schemaErrors.push(fieldErrors.invalid(`${p}.fieldPath`, fp, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fp)) ctx.schemaErrors.push(fieldErrors.invalid(`${p}.fieldPath`, fp, 'fieldPath must not contain line breaks'));
    if (fp !== '' && 'error' in validFieldPath(fp, schema)) ctx.schemaErrors.push(fieldErrors.invalid(`${p}.fieldPath`, fp, 'fieldPath must be a valid path'));
  });
  return ctx.schemaErrors.length === before;
}

function compileNode(
  schema: JSONSchema,
  decl: DeclType | undefined,
  path: string,
  cardinality: Cardinality,
  uncorrelatablePath: string | undefined,
  ctx: CompileContext,
): NodeValidator | undefined {
  const rules = Array.isArray(schema['x-kubernetes-validations']) ? (schema['x-kubernetes-validations'] as ValidationRule[]) : [];
  const shapesOk = checkRuleShapes(schema, rules, path, ctx);
  const node: NodeValidator | undefined = decl
    ? {
        schemaType: typeof schema.type === 'string' ? schema.type : '',
        decl,
        rules: [],
        properties: new Map(),
        listType: schema['x-kubernetes-list-type'] as string | undefined,
        listMapKeys: schema['x-kubernetes-list-map-keys'] as string[] | undefined,
        mapType: schema['x-kubernetes-map-type'] as string | undefined,
      }
    : undefined;
  const errorsBefore = ctx.schemaErrors.length;

  // children first, so that schema errors deeper down suppress this node's CEL compilation as upstream
  const children: (() => void)[] = [];
  const props = (schema.properties as Record<string, JSONSchema> | undefined) ?? {};
  // upstream walks properties in name order
  for (const name of Object.keys(props).sort()) {
    const propSchema = props[name]!;
    let childDecl: DeclType | undefined;
    if (decl?.kind === 'object') {
      for (const f of decl.fields.values()) if (f.property === name) childDecl = f.type;
      if (!childDecl) childDecl = schemaDeclType(propSchema, propSchema['x-kubernetes-embedded-resource'] === true, `${decl.name}.${name.replace(/[^\w]/g, '_')}`);
    }
    const child = compileNode(propSchema, childDecl, `${path}.properties[${name}]`, cardinality, uncorrelatablePath, ctx);
    if (child && node) children.push(() => node.properties.set(name, child));
  }
  if (schema.items && typeof schema.items === 'object') {
    const itemsDecl = decl?.kind === 'list' ? decl.elem : undefined;
    const itemsPath = `${path}.items`;
    const forbid = uncorrelatablePath ?? (schema['x-kubernetes-list-type'] === 'map' ? undefined : path);
    const child = compileNode(schema.items as JSONSchema, itemsDecl, itemsPath, childCardinality(cardinality, schema.maxItems), forbid, ctx);
    if (child && node) children.push(() => (node.items = child));
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const apDecl = decl?.kind === 'map' ? decl.elem : undefined;
    const card = childCardinality(cardinality, schema.maxProperties);
    const child = compileNode(schema.additionalProperties as JSONSchema, apDecl, `${path}.additionalProperties`, card, uncorrelatablePath, ctx);
    if (child && node) children.push(() => (node.additionalProperties = child));
  }
  for (const c of children) c();

  if (rules.length > 0 && shapesOk && ctx.schemaErrors.length === errorsBefore) {
    if (!decl) {
      ctx.celErrors.push(
        fieldErrors.internal(
          `${path}.x-kubernetes-validations`,
          'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
        ),
      );
    } else if (node) {
      rules.forEach((r, i) => compileRule(r, i, schema, node, path, cardinality, uncorrelatablePath, ctx));
    }
  }
  if (!node) return undefined;
  const useful = node.rules.length > 0 || node.properties.size > 0 || node.items !== undefined || node.additionalProperties !== undefined;
  return useful ? node : undefined;
}

function compileRule(
  r: ValidationRule,
  i: number,
  schema: JSONSchema,
  node: NodeValidator,
  path: string,
  cardinality: Cardinality,
  uncorrelatablePath: string | undefined,
  ctx: CompileContext,
): void {
  const p = `${path}.x-kubernetes-validations[${i}]`;
  const optional = r.optionalOldSelf === true;
  const env = environmentFor(node.decl, optional, ctx);
  const result = compileExpression(r.rule ?? '', env);
  let program: CompiledExpression | undefined;
  let error: string | undefined;
  if (result.error?.stage === 'program') error = `program instantiation failed: ${result.error.message}`;
  else if (result.error) error = `compilation failed: ${scopeTypeNames(result.error.message, node.decl)}`;
  else if (result.expression.outputType !== 'bool') error = 'cel expression must evaluate to a bool';
  else program = result.expression;

  const vars = { self: node.decl, oldSelf: node.decl };
  if (program) {
    const cost = multiply(estimateCost(program.ast, vars), ruleCardinality(cardinality, node.decl));
    if (cost > STATIC_ESTIMATED_COST_LIMIT) ctx.celErrors.push(fieldErrors.forbidden(`${p}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    observeCost(ctx, `${p}.rule`, cost);
  }
  if (error) ctx.celErrors.push(fieldErrors.invalid(`${p}.rule`, ruleRepr(r), error));

  let messageExpression: CompiledExpression | undefined;
  if (program && (r.messageExpression ?? '') !== '') {
    const m = compileExpression(r.messageExpression!, env);
    if (m.error) {
      ctx.celErrors.push(fieldErrors.invalid(`${p}.messageExpression`, ruleRepr(r), `messageExpression compilation failed: ${scopeTypeNames(m.error.message, node.decl)}`));
    } else if (m.expression.outputType !== 'string') {
      ctx.celErrors.push(fieldErrors.invalid(`${p}.messageExpression`, ruleRepr(r), 'messageExpression must evaluate to a string'));
    } else {
      messageExpression = m.expression;
      const cost = multiply(estimateCost(m.expression.ast, vars), ruleCardinality(cardinality, node.decl));
      if (cost > STATIC_ESTIMATED_COST_LIMIT) {
        ctx.celErrors.push(fieldErrors.forbidden(`${p}.messageExpression`, costErrorMessage('estimated messageExpression cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
      }
      observeCost(ctx, `${p}.messageExpression`, cost);
    }
  }
  if (!program) return;
  const usesOldSelf = program.references.has('oldSelf');
  if (usesOldSelf && uncorrelatablePath !== undefined) {
    ctx.celErrors.push(fieldErrors.invalid(`${p}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatablePath}`));
  } else if (!usesOldSelf && r.optionalOldSelf !== undefined) {
    ctx.celErrors.push(fieldErrors.invalid(`${p}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
  }
  let fieldPath: string | undefined;
  if ((r.fieldPath ?? '') !== '') {
    const v = validFieldPath(r.fieldPath!, schema);
    if ('path' in v) fieldPath = v.path;
  }
  node.rules.push({ rule: r, program, usesOldSelf, optionalOldSelf: optional, messageExpression, fieldPath });
}

/**
 * Upstream names a rule's self type "selfType<n>" (n changes with every compilation) and the
 * types below it by their path from there; ours are named from the CRD's root. Messages show
 * upstream's form with n = 0.
 */
function scopeTypeNames(message: string, decl: DeclType): string {
  if (decl.kind !== 'object' && decl.kind !== 'list' && decl.kind !== 'map') return message;
  return message.split(decl.name).join('selfType0');
}

/**
 * How many times a node's rules can run per object, as upstream's CELSchemaContext.MaxCardinality:
 * the product of maxItems/maxProperties of every list and map above the node, or undefined
 * (unbounded) as soon as one of them declares no limit. An object's properties do not multiply.
 */
type Cardinality = number | undefined;

function childCardinality(parent: Cardinality, maxElements: unknown): Cardinality {
  if (parent === undefined || typeof maxElements !== 'number') return undefined;
  return parent * Math.max(0, maxElements);
}

/**
 * The factor a rule's cost is multiplied by: the bounded cardinality, or else (upstream's
 * maxCardinality) how many values of the node's minimal serialized size fit in one request,
 * one comma apart. The unbounded parents' estimated sizes are not multiplied.
 */
function ruleCardinality(cardinality: Cardinality, decl: DeclType): number {
  if (cardinality !== undefined) return cardinality;
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (decl.minSize + 1));
}

function multiply(cost: number, cardinality: number): number {
  return cost === 0 ? 0 : cost * cardinality;
}

/**
 * Compiles every x-kubernetes-validations rule of a structural schema.
 * schema: an openAPIV3Schema as plain JSON (structural). basePath: where it sits in the CRD,
 * e.g. "spec.versions[0].schema.openAPIV3Schema", for compile-error paths.
 * rules is undefined when the schema has no rules (nothing to evaluate).
 */
export function compileValidationRules(schema: unknown, basePath: string): { rules: CompiledValidationRules | undefined; errors: FieldError[] } {
  if (!schema || typeof schema !== 'object') return { rules: undefined, errors: [] };
  const s = schema as JSONSchema;
  if (!hasRules(s)) return { rules: undefined, errors: [] };
  // The same schema is compiled when its CRD is validated and again when it is served; a large
  // one takes tens of milliseconds, so recent results are kept (they do not change).
  const key = `${basePath}\u0000${JSON.stringify(s)}`;
  const cached = compileCache.get(key);
  if (cached) {
    compileCache.delete(key);
    compileCache.set(key, cached);
    return { rules: cached.rules, errors: [...cached.errors] };
  }
  const result = compileUncached(s, basePath);
  compileCache.set(key, result);
  if (compileCache.size > COMPILE_CACHE_SIZE) compileCache.delete(compileCache.keys().next().value!);
  return { rules: result.rules, errors: [...result.errors] };
}

const COMPILE_CACHE_SIZE = 32;
const compileCache = new Map<string, { rules: CompiledValidationRules | undefined; errors: FieldError[] }>();

function compileUncached(s: JSONSchema, basePath: string): { rules: CompiledValidationRules | undefined; errors: FieldError[] } {
  const ctx: CompileContext = { schemaErrors: [], celErrors: [], totalCost: 0, mostExpensive: [], envs: new Map() };
  let root: NodeValidator | undefined;
  try {
    const decl = schemaDeclType(s, true, 'selfType');
    root = compileNode(s, decl, basePath, 1, undefined, ctx);
  } catch (e) {
    // a schema this module cannot type: refuse the CRD (as upstream's internal errors do) rather than fail the request
    return { rules: undefined, errors: [fieldErrors.internal(`${basePath}.x-kubernetes-validations`, `internal error: ${(e as Error).message}`)] };
  }
  const errors = [...ctx.schemaErrors, ...ctx.celErrors];
  if (ctx.totalCost > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of ctx.mostExpensive) errors.push(fieldErrors.forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errors.push(
      fieldErrors.forbidden(
        basePath,
        costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', ctx.totalCost, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  if (errors.length > 0 || !root) return { rules: undefined, errors };
  return { rules: { validate: (obj, oldObj, warnings) => validateRoot(root, obj, oldObj, warnings) }, errors: [] };
}

function hasRules(s: unknown): boolean {
  if (!s || typeof s !== 'object') return false;
  const o = s as JSONSchema;
  if (Array.isArray(o['x-kubernetes-validations']) && o['x-kubernetes-validations'].length > 0) return true;
  if (o.properties && typeof o.properties === 'object' && Object.values(o.properties).some(hasRules)) return true;
  return hasRules(o.items) || hasRules(o.additionalProperties);
}

// ---------- evaluation ----------

interface EvalState {
  errors: FieldError[];
  /** What is left of upstream's runtime budget for this object; below 0 stops validation. */
  remaining: number;
  warnings: FieldError[] | undefined;
  cache: WeakMap<object, unknown>;
  oldCache: WeakMap<object, unknown>;
}

/**
 * Upstream's ratcheting options: whether this node correlates with an old value (and equals it),
 * else whether its nearest correlated ancestor was unchanged.
 */
interface Correlation {
  correlated: boolean;
  unchanged: boolean;
  parentUnchanged: boolean;
}

const NO_CORRELATION: Correlation = { correlated: false, unchanged: false, parentUnchanged: false };

function validateRoot(root: NodeValidator, obj: unknown, oldObj: unknown, warnings: FieldError[] | undefined): FieldError[] {
  const state: EvalState = { errors: [], remaining: RUNTIME_CEL_COST_BUDGET, warnings, cache: new WeakMap(), oldCache: new WeakMap() };
  const old = oldObj ?? undefined;
  const correlation = old === undefined ? NO_CORRELATION : { correlated: true, unchanged: jsonEqual(obj, old), parentUnchanged: false };
  validateNode(root, '', obj, old, state, correlation);
  return state.errors;
}

/** The correlation of a child: with an old value when one correlates, else the nearest ancestor's. */
function childCorrelation(c: Correlation, obj: unknown, old: unknown): Correlation {
  if (!c.correlated) return c;
  if (old === undefined) return { correlated: false, unchanged: false, parentUnchanged: c.unchanged };
  return { correlated: true, unchanged: c.unchanged || jsonEqual(obj, old), parentUnchanged: c.unchanged };
}

const ratchets = (c: Correlation): boolean => (c.correlated ? c.unchanged : c.parentUnchanged);

/** Deep equality of JSON values (upstream's DeepEqual on unstructured objects). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
const shown = (path: string): string => (path === '' ? '<nil>' : path);

function ruleErrorString(r: ValidationRule): string {
  return (r.message ?? '') !== '' ? r.message!.trim() : (r.rule ?? '').trim();
}

function fieldErrorForReason(path: string, schemaType: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(path, detail);
    case 'FieldValueRequired':
      return fieldErrors.required(path, detail);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(path, schemaType);
    default:
      return fieldErrors.invalid(path, schemaType, detail);
  }
}

function validateNode(node: NodeValidator, path: string, obj: unknown, oldObj: unknown, state: EvalState, correlation: Correlation): void {
  if (obj === null || obj === undefined || state.remaining < 0) return;
  if (oldObj === null) oldObj = undefined;
  if (node.rules.length > 0) evaluateRules(node, path, obj, oldObj, state, ratchets(correlation));

  if (Array.isArray(obj)) {
    if (!node.items) return;
    const oldItems = node.listType === 'map' && Array.isArray(oldObj) ? (oldObj as unknown[]) : undefined;
    obj.forEach((item, i) => {
      if (state.remaining < 0) return;
      const old = oldItems ? findMapListItem(oldItems, item, node.listMapKeys ?? []) : undefined;
      validateNode(node.items!, `${path}[${i}]`, item, old, state, childCorrelation(correlation, item, old));
    });
    return;
  }
  if (typeof obj !== 'object') return;
  const o = obj as Record<string, unknown>;
  const correlatable = node.mapType !== 'atomic';
  const old = correlatable && oldObj && typeof oldObj === 'object' && !Array.isArray(oldObj) ? (oldObj as Record<string, unknown>) : undefined;
  if (node.additionalProperties) {
    for (const k of Object.keys(o)) {
      validateNode(node.additionalProperties, `${path}[${k}]`, o[k], old?.[k], state, childCorrelation(correlation, o[k], old?.[k]));
    }
  }
  if (node.properties.size > 0) {
    for (const k of Object.keys(o)) {
      const sub = node.properties.get(k);
      if (!sub) continue;
      // upstream never ratchets apiVersion and kind: both sides are converted to the same version
      const c = path === '' && (k === 'apiVersion' || k === 'kind') ? NO_CORRELATION : childCorrelation(correlation, o[k], old?.[k]);
      validateNode(sub, child(path, k), o[k], old?.[k], state, c);
    }
  }
}

/** The old item with the same map keys as item, in an x-kubernetes-list-type=map list. */
function findMapListItem(oldItems: unknown[], item: unknown, keys: string[]): unknown {
  if (!item || typeof item !== 'object') return undefined;
  const it = item as Record<string, unknown>;
  return oldItems.find((o) => {
    if (!o || typeof o !== 'object') return false;
    return keys.every((k) => JSON.stringify((o as Record<string, unknown>)[k]) === JSON.stringify(it[k]));
  });
}

function evaluateRules(node: NodeValidator, path: string, obj: unknown, oldObj: unknown, state: EvalState, ratchet: boolean): void {
  if (state.remaining <= 0) {
    state.errors.push(fieldErrors.invalid(shown(path), node.schemaType, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    state.remaining = -1;
    return;
  }
  const self = toCelValue(obj, node.decl, state.cache);
  const nodeUsesOldSelf = node.rules.some((r) => r.usesOldSelf);
  let oldSelf: unknown;
  const hasOld = oldObj !== undefined;
  for (const compiled of node.rules) {
    if (compiled.usesOldSelf && !hasOld && !compiled.optionalOldSelf) continue;
    // As upstream, oldSelf is bound (for rules and messageExpressions alike) only when some rule
    // of this node is a transition rule.
    if (nodeUsesOldSelf && hasOld && oldSelf === undefined) oldSelf = toCelValue(oldObj, node.decl, state.oldCache);
    const activation: Record<string, unknown> = { self };
    if (compiled.optionalOldSelf) activation.oldSelf = hasOld ? Optional.of(oldSelf) : Optional.none();
    else if (nodeUsesOldSelf && hasOld) activation.oldSelf = oldSelf;
    const rule = compiled.rule;
    let result: unknown;
    const where = shown(path);
    try {
      result = compiled.program.evaluate(activation, PER_CALL_LIMIT);
    } catch (e) {
      if (e instanceof CostLimitExceeded) {
        state.errors.push(
          fieldErrors.invalid(where, node.schemaType, `'${e.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`),
        );
        state.remaining = -1;
        return;
      }
      if (!spend(state, compiled.program.lastCost, where, node.schemaType)) return;
      const text = e instanceof CelEvaluationError ? e.message : String(e);
      if (text.startsWith('no such overload')) {
        state.errors.push(
          fieldErrors.invalid(where, node.schemaType, `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`),
        );
      } else {
        state.errors.push(fieldErrors.invalid(where, node.schemaType, `${text} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (!spend(state, compiled.program.lastCost, where, node.schemaType)) return;
    if (result === true) continue;
    const errPath = compiled.fieldPath ? child(path, compiled.fieldPath) : path;
    let detail: string | undefined;
    if (compiled.messageExpression) {
      const m = evalMessageExpression(compiled.messageExpression, activation, state);
      if (m.stop !== undefined) {
        const e = fieldErrors.invalid(shown(errPath), node.schemaType, m.stop);
        if (ratchet && !compiled.usesOldSelf) state.warnings?.push(e);
        else state.errors.push(e);
        state.remaining = -1;
        return;
      }
      detail = m.message;
    }
    if (detail === undefined) detail = (rule.message ?? '') === '' ? `failed rule: ${ruleErrorString(rule)}` : rule.message!.trim();
    const error = fieldErrorForReason(shown(errPath), node.schemaType, detail, rule.reason);
    if (ratchet && !compiled.usesOldSelf) state.warnings?.push(error);
    else state.errors.push(error);
  }
}

/** Takes an evaluation's cost from the budget; false (and the error) when it runs out. */
function spend(state: EvalState, cost: number, where: string, schemaType: string): boolean {
  if (cost > state.remaining) {
    state.errors.push(fieldErrors.invalid(where, schemaType, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    state.remaining = -1;
    return false;
  }
  state.remaining -= cost;
  return true;
}

/**
 * The message, or none to fall back to message/the default as upstream does on any failure;
 * stop when the budget ran out (upstream then stops validating the object).
 */
function evalMessageExpression(expr: CompiledExpression, activation: Record<string, unknown>, state: EvalState): { message?: string; stop?: string } {
  let v: unknown;
  try {
    v = expr.evaluate(activation, PER_CALL_LIMIT);
  } catch (e) {
    if (e instanceof CostLimitExceeded) return { stop: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(expr.source)}` };
    state.remaining -= expr.lastCost;
    return {};
  }
  if (expr.lastCost > state.remaining) return { stop: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' };
  state.remaining -= expr.lastCost;
  if (typeof v !== 'string') return {};
  const trimmed = v.trim();
  if (trimmed === '' || Buffer.byteLength(trimmed) > MAX_MESSAGE_EXPRESSION_BYTES || /\n/.test(trimmed)) return {};
  return { message: trimmed };
}
