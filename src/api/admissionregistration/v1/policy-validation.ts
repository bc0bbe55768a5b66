// Validation of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
// (upstream pkg/apis/admissionregistration/validation): ObjectMeta, the match
// resources and their rules, paramKind/paramRef, validation actions, and every
// CEL expression compiled in the policy environment (policy-cel.ts), with
// upstream's "must evaluate to …" result type checks.

import type { KubeObject } from '../../../machinery/meta.js';
import { fieldErrors, GoValue, type FieldError } from '../../../machinery/field-errors.js';
import { goQuote, goStringSlice } from '../../../machinery/go-syntax.js';
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  pathSegmentName,
} from '../../../machinery/validation.js';
import { outputIs, outputTypeName, PolicyCompiler } from './policy-cel.js';
import type {
  LabelSelector,
  MatchResources,
  NamedRuleWithOperations,
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from './policy-types.js';

const SUPPORTED_FAILURE_POLICIES = ['Fail', 'Ignore'];
const SUPPORTED_MATCH_POLICIES = ['Equivalent', 'Exact'];
const SUPPORTED_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SUPPORTED_SCOPES = ['*', 'Cluster', 'Namespaced'];
const SUPPORTED_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
const goSlice = (v: unknown[] | undefined): GoValue => goStringSlice(arr(v as string[]));

/** metav1validation.ValidateLabelSelector (strict). */
export function validateLabelSelector(sel: LabelSelector, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, r] of arr(sel.matchExpressions).entries()) {
    const p = `${path}.matchExpressions[${i}]`;
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (arr(r.values).length === 0) errs.push(fieldErrors.required(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (arr(r.values).length > 0) errs.push(fieldErrors.forbidden(`${p}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
        break;
      default:
        errs.push(fieldErrors.invalid(`${p}.operator`, r.operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(r.key ?? '')) errs.push(fieldErrors.invalid(`${p}.key`, r.key ?? '', msg));
    for (const [j, v] of arr(r.values).entries()) for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(`${p}.values[${j}]`, v, msg));
  }
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, v, msg));
  }
  return errs;
}

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plain = false;
  for (const [i, rs] of resources.entries()) {
    if (rs === '') {
      errs.push(fieldErrors.required(`${path}[${i}]`));
      continue;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      plain = rs !== '*';
      continue;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErrors.invalid(`${path}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(`${path}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  }
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErrors.invalid(path, goStringSlice(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plain) errs.push(fieldErrors.invalid(path, goStringSlice(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(r: NamedRuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(r.operations);
  if (ops.length === 0) errs.push(fieldErrors.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) errs.push(fieldErrors.invalid(`${path}.operations`, new GoValue(`[]admissionregistration.OperationType{${ops.map(goQuote).join(', ')}}`), "if '*' is present, must not specify other operations"));
  for (const [i, o] of ops.entries()) if (!SUPPORTED_OPERATIONS.includes(o)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, o, SUPPORTED_OPERATIONS));
  const groups = arr(r.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiGroups`, goSlice(groups), "if '*' is present, must not specify other API groups"));
  const versions = arr(r.apiVersions);
  if (versions.length === 0) errs.push(fieldErrors.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiVersions`, goSlice(versions), "if '*' is present, must not specify other API versions"));
  for (const [i, v] of versions.entries()) if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`));
  errs.push(...validateResources(arr(r.resources), `${path}.resources`));
  if (r.scope !== undefined && r.scope !== null && !SUPPORTED_SCOPES.includes(r.scope)) errs.push(fieldErrors.notSupported(`${path}.scope`, r.scope, SUPPORTED_SCOPES));
  return errs;
}

function validateNamedRule(r: NamedRuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, n] of arr(r.resourceNames).entries()) {
    for (const msg of pathSegmentName(n, false)) errs.push(fieldErrors.invalid(`${path}.resourceNames[${i}]`, n, msg));
    if (seen.has(n)) errs.push(fieldErrors.duplicate(`${path}.resourceNames[${i}]`, n));
    seen.add(n);
  }
  errs.push(...validateRule(r, path));
  return errs;
}

function validateMatchResources(m: MatchResources, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined || m.matchPolicy === null) errs.push(fieldErrors.required(`${path}.matchPolicy`));
  else if (!SUPPORTED_MATCH_POLICIES.includes(m.matchPolicy)) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, m.matchPolicy, SUPPORTED_MATCH_POLICIES));
  if (m.namespaceSelector === undefined || m.namespaceSelector === null) errs.push(fieldErrors.required(`${path}.namespaceSelector`));
  else errs.push(...validateLabelSelector(m.namespaceSelector, `${path}.namespaceSelector`));
  if (m.objectSelector === undefined || m.objectSelector === null) errs.push(fieldErrors.required(`${path}.objectSelector`));
  else errs.push(...validateLabelSelector(m.objectSelector, `${path}.objectSelector`));
  for (const [i, r] of arr(m.resourceRules).entries()) errs.push(...validateNamedRule(r, `${path}.resourceRules[${i}]`));
  for (const [i, r] of arr(m.excludeResourceRules).entries()) errs.push(...validateNamedRule(r, `${path}.excludeResourceRules[${i}]`));
  return errs;
}

function validateParamKind(k: ParamKind, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = k.apiVersion ?? '';
  if (apiVersion === '') errs.push(fieldErrors.required(`${path}.apiVersion`));
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = apiVersion === '/' ? ['', ''] : slashes === 0 ? ['', apiVersion] : apiVersion.split('/') as [string, string];
      if (group !== '') {
        const e = isDNS1123Subdomain(group);
        if (e.length > 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, group, e.join(',')));
      }
      if (version === '') errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const e = isDNS1035Label(version);
        if (e.length > 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, version, e.join(',')));
      }
    }
  }
  const kind = k.kind ?? '';
  if (kind === '') errs.push(fieldErrors.required(`${path}.kind`));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length > 0) errs.push(fieldErrors.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

function compilationFailed(path: string, expr: string, message: string): FieldError {
  return fieldErrors.invalid(path, expr, `compilation failed: ${message}`);
}

/** Compiles one expression and checks its result type; undefined when it is fine. */
function checkExpression(compiler: PolicyCompiler, expr: string, path: string, want: string[], wantText: string, message = false): FieldError | undefined {
  const r = message ? compiler.compileMessage(expr) : compiler.compile(expr);
  if (r.error !== undefined) return compilationFailed(path, expr, r.error.message);
  if (!outputIs(r.expression, ...want)) return fieldErrors.invalid(path, expr, `must evaluate to ${wantText} but got ${outputTypeName(r.expression)}`);
  return undefined;
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

export function validateValidatingAdmissionPolicySpec(p: ValidatingAdmissionPolicy, ignoreMatchConditions: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const spec = p.spec ?? {};
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const compiler = new PolicyCompiler({ hasParams });
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(fieldErrors.required('spec.failurePolicy'));
  else if (!SUPPORTED_FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(fieldErrors.notSupported('spec.failurePolicy', spec.failurePolicy, SUPPORTED_FAILURE_POLICIES));
  if (hasParams) errs.push(...validateParamKind(spec.paramKind!, 'spec.paramKind'));
  if (spec.matchConstraints === undefined || spec.matchConstraints === null) errs.push(fieldErrors.required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    if (arr(spec.matchConstraints.resourceRules).length === 0) errs.push(fieldErrors.required('spec.matchConstraints.resourceRules'));
  }
  if (!ignoreMatchConditions) errs.push(...validateMatchConditions(spec.matchConditions, hasParams));
  for (const [i, v] of arr(spec.variables).entries()) {
    const path = `spec.variables[${i}]`;
    if ((v.name ?? '').trim() === '') errs.push(fieldErrors.required(`${path}.name`, 'name is not specified'));
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(v.name) || CEL_RESERVED.has(v.name)) errs.push(fieldErrors.invalid(`${path}.name`, v.name, 'name is not a valid CEL identifier'));
    if ((v.expression ?? '').trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
    else {
      const r = compiler.compileVariable(v.name ?? '', v.expression);
      if (r.error !== undefined) errs.push(compilationFailed(`${path}.expression`, v.expression, r.error.message));
    }
  }
  const validations = arr(spec.validations);
  const audits = arr(spec.auditAnnotations);
  if (validations.length === 0 && audits.length === 0) {
    errs.push(fieldErrors.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  for (const [i, v] of validations.entries()) {
    const path = `spec.validations[${i}]`;
    const expr = v.expression ?? '';
    if (expr.trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
    else {
      const e = checkExpression(compiler, expr, `${path}.expression`, ['bool'], 'bool');
      if (e) errs.push(e);
    }
    const me = v.messageExpression ?? '';
    if (me.length > 0 && me.trim() === '') errs.push(fieldErrors.invalid(`${path}.messageExpression`, me, 'must be non-empty if specified'));
    else if (me.trim() !== '') {
      const e = checkExpression(compiler, me, `${path}.messageExpression`, ['string'], 'string', true);
      if (e) errs.push(e);
    }
    const msg = v.message ?? '';
    if (msg.length > 0 && msg.trim() === '') errs.push(fieldErrors.invalid(`${path}.message`, msg, 'message must be non-empty if specified'));
    else if (hasNewlines(msg.trim())) errs.push(fieldErrors.invalid(`${path}.message`, msg, 'message must not contain line breaks'));
    if (v.reason !== undefined && v.reason !== null && !SUPPORTED_REASONS.includes(v.reason)) errs.push(fieldErrors.notSupported(`${path}.reason`, v.reason, SUPPORTED_REASONS));
  }
  if (audits.length > MAX_AUDIT_ANNOTATIONS) errs.push(fieldErrors.invalid('spec.auditAnnotations', new GoValue('[]admissionregistration.AuditAnnotation{…}'), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  const keys = new Set<string>();
  for (const [i, a] of audits.entries()) {
    const path = `spec.auditAnnotations[${i}]`;
    const name = p.metadata?.name ?? '';
    if (name !== '') {
      const full = `${name}/${a.key ?? ''}`;
      for (const msg of isQualifiedName(full)) errs.push(fieldErrors.invalid(`${path}.key`, full, msg));
    } else errs.push(fieldErrors.invalid(`${path}.key`, a.key ?? '', 'requires metadata.name be non-empty'));
    const ve = (a.valueExpression ?? '').trim();
    if (ve === '') errs.push(fieldErrors.required(`${path}.valueExpression`, 'valueExpression is not specified'));
    else if (ve.length > MAX_AUDIT_VALUE_EXPRESSION_LENGTH) errs.push(fieldErrors.required(`${path}.valueExpression`, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length`));
    else {
      const r = compiler.compile(ve);
      if (r.error !== undefined) errs.push(compilationFailed(`${path}.valueExpression`, a.valueExpression, r.error.message));
      else if (!outputIs(r.expression, 'string', 'null')) errs.push(fieldErrors.invalid(`${path}.valueExpression`, a.valueExpression, `must evaluate to one of [string null_type] but got ${outputTypeName(r.expression)}`));
    }
    if (keys.has(a.key)) errs.push(fieldErrors.duplicate(`${path}.key`, a.key));
    keys.add(a.key);
  }
  return errs;
}

function validateMatchConditions(conditions: ValidatingAdmissionPolicy['spec']['matchConditions'], hasParams: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const list = arr(conditions);
  if (list.length > 64) errs.push(fieldErrors.tooMany('spec.matchConditions', list.length, 64));
  const names = new Set<string>();
  const compiler = new PolicyCompiler({ hasParams });
  for (const [i, c] of list.entries()) {
    const path = `spec.matchConditions[${i}]`;
    const expr = (c.expression ?? '').trim();
    if (expr === '') errs.push(fieldErrors.required(`${path}.expression`));
    else {
      const e = checkExpression(compiler, expr, `${path}.expression`, ['bool'], 'bool');
      if (e) errs.push(e);
    }
    if ((c.name ?? '') === '') errs.push(fieldErrors.required(`${path}.name`));
    else for (const msg of isQualifiedName(c.name)) errs.push(fieldErrors.invalid(`${path}.name`, c.name, msg));
    if ((c.name ?? '') !== '') {
      if (names.has(c.name)) errs.push(fieldErrors.duplicate(`${path}.name`, c.name));
      names.add(c.name);
    }
  }
  return errs;
}

export function validateValidatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  return validateValidatingAdmissionPolicySpec(obj as ValidatingAdmissionPolicy, false);
}

/** On update, unchanged matchConditions (and paramKind) are not compiled again. */
export function validateValidatingAdmissionPolicyUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const p = obj as ValidatingAdmissionPolicy;
  const o = old as ValidatingAdmissionPolicy;
  const same =
    JSON.stringify(p.spec?.paramKind ?? null) === JSON.stringify(o.spec?.paramKind ?? null) &&
    JSON.stringify(p.spec?.matchConditions ?? null) === JSON.stringify(o.spec?.matchConditions ?? null);
  return validateValidatingAdmissionPolicySpec(p, same);
}

export function validateValidatingAdmissionPolicyStatus(obj: KubeObject): FieldError[] {
  const p = obj as ValidatingAdmissionPolicy;
  const errs: FieldError[] = [];
  for (const [i, w] of arr(p.status?.typeChecking?.expressionWarnings).entries()) {
    const path = `status.typeChecking.expressionWarnings[${i}]`;
    if ((w.warning ?? '') === '') errs.push(fieldErrors.required(`${path}.warning`));
    if ((w.fieldRef ?? '').trim() === '') errs.push(fieldErrors.required(`${path}.fieldRef`));
  }
  return errs;
}

function validateParamRef(r: ParamRef | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (r === undefined || r === null) return errs;
  const name = r.name ?? '';
  const hasSelector = r.selector !== undefined && r.selector !== null;
  if (name !== '') {
    for (const msg of pathSegmentName(name, false)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
    if (hasSelector) errs.push(fieldErrors.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(r.selector!, `${path}.selector`));
    if (name !== '') errs.push(fieldErrors.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name === '' && !hasSelector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = r.parameterNotFoundAction ?? '';
  if (action === '') errs.push(fieldErrors.required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldErrors.notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

export function validateValidatingAdmissionPolicyBinding(obj: KubeObject): FieldError[] {
  const b = obj as ValidatingAdmissionPolicyBinding;
  const spec = b.spec ?? {};
  const errs: FieldError[] = [];
  const policyName = spec.policyName ?? '';
  if (policyName === '') errs.push(fieldErrors.required('spec.policyName'));
  else for (const msg of nameIsDNSSubdomain(policyName, false)) errs.push(fieldErrors.invalid('spec.policyName', policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  if (spec.matchResources !== undefined && spec.matchResources !== null) errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResources'));
  const actions = arr(spec.validationActions);
  const seen = new Set<string>();
  for (const [i, a] of actions.entries()) {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(fieldErrors.notSupported(`spec.validationActions[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  }
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErrors.invalid('spec.validationActions', new GoValue(`[]admissionregistration.ValidationAction{${actions.map(goQuote).join(', ')}}`), 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldErrors.required('spec.validationActions', 'at least one validation action is required'));
  return errs;
}
