// admissionregistration.k8s.io/v1 webhook configuration validation (upstream's
// pkg/apis/admissionregistration/validation for the two webhook kinds, with
// apiserver's util/webhook URL and service checks). An update is validated with
// the looser options upstream derives from the old object, so a configuration
// stored under older rules can still be changed.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import { goStringSlice } from '../../../machinery/go-syntax.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateLabels } from '../../../machinery/validation.js';
import { compileMatchCondition } from './match-conditions.js';
import type { LabelSelector, MutatingWebhook, RuleWithOperations, ValidatingWebhook } from './types.js';

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  ignoreMatchConditions: boolean;
}

const STRICT: Options = {
  requireNoSideEffects: true,
  requireRecognizedReviewVersion: true,
  requireUniqueNames: true,
  allowInvalidLabelValueInSelector: false,
  ignoreMatchConditions: false,
};

const list = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);

/** apimachinery's IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function validateFullyQualifiedName(path: string, name: string | undefined): FieldError[] {
  if (name === undefined || name === '') return [fieldErrors.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(sel: LabelSelector | undefined, allowInvalidValues: boolean, path: string): FieldError[] {
  if (sel === undefined || sel === null) return [];
  const errs: FieldError[] = [];
  list(sel.matchExpressions).forEach((req, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values = list(req?.values);
    switch (req?.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(`${p}.operator`, req?.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(req?.key ?? '')) errs.push(fieldErrors.invalid(`${p}.key`, req?.key ?? '', msg));
    if (!allowInvalidValues) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(`${p}.values[${j}]`, v, msg));
      });
    }
  });
  errs.push(...validateLabels(sel.matchLabels, `${path}.matchLabels`));
  return errs;
}

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErrors.required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      plainResource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErrors.invalid(path, goStringSlice(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plainResource) errs.push(fieldErrors.invalid(path, goStringSlice(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: RuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = list(rule.operations) as string[];
  if (ops.length === 0) errs.push(fieldErrors.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) errs.push(fieldErrors.invalid(`${path}.operations`, new GoValue(goStringSlice(ops).text.replace(/^\[\]string/, '[]admissionregistration.OperationType')), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = list(rule.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiGroups`, goStringSlice(groups), "if '*' is present, must not specify other API groups"));
  const versions = list(rule.apiVersions);
  if (versions.length === 0) errs.push(fieldErrors.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiVersions`, goStringSlice(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(list(rule.resources), `${path}.resources`));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(rule.scope)) errs.push(fieldErrors.notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

/** The parts of a URL Go's url.Parse finds (enough for the webhook URL checks). */
function parseGoUrl(raw: string): { scheme: string; host: string; user?: string; query: string; fragment: string } | string {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (/[\x00-\x1f\x7f]/.test(rest)) return `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL`;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith(':')) return `parse ${JSON.stringify(raw)}: missing protocol scheme`;
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  const out: { scheme: string; host: string; user?: string; query: string; fragment: string } = { scheme, host, query, fragment };
  if (user !== undefined) out.user = user;
  return out;
}

export function validateWebhookURL(path: string, url: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const u = parseGoUrl(url);
  if (typeof u === 'string') return [fieldErrors.required(path, `url must be a valid URL: ${u}${form}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldErrors.invalid(path, u.host, `host must be specified${form}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(fieldErrors.invalid(path, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

export function validateWebhookService(path: string, svc: { namespace?: string; name?: string; path?: string; port?: number }): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.name) errs.push(fieldErrors.required(`${path}.name`, 'service name is required'));
  if (!svc.namespace) errs.push(fieldErrors.required(`${path}.namespace`, 'service namespace is required'));
  const port = svc.port ?? 0;
  if (!(port >= 1 && port <= 65535)) errs.push(fieldErrors.invalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = svc.path;
  if (urlPath === undefined || urlPath === null || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, fieldErrors.invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(fieldErrors.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const msg of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(`${path}.path`, urlPath, `segment[${i}]: ${msg}`));
  });
  return errs;
}

function validateMatchConditions(conditions: { name?: string; expression?: string }[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > 64) errs.push(fieldErrors.tooMany(path, conditions.length, 64));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const expression = (c?.expression ?? '').trim();
    if (expression === '') errs.push(fieldErrors.required(`${p}.expression`));
    else {
      const compiled = compileMatchCondition(expression);
      if (typeof compiled === 'string') errs.push(fieldErrors.invalid(`${p}.expression`, expression, compiled));
    }
    const name = c?.name ?? '';
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    else for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, msg));
    if (name !== '') {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: MutatingWebhook, mutating: boolean, opts: Options, path: string): FieldError[] {
  const errs = validateFullyQualifiedName(`${path}.name`, hook.name);
  list(hook.rules).forEach((r, i) => errs.push(...validateRule(r ?? {}, `${path}.rules[${i}]`)));
  if (hook.failurePolicy != null && !FAILURE_POLICIES.includes(hook.failurePolicy)) errs.push(fieldErrors.notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy != null && !MATCH_POLICIES.includes(hook.matchPolicy)) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  const allowed = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (hook.sideEffects == null) errs.push(fieldErrors.required(`${path}.sideEffects`, `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(hook.sideEffects)) errs.push(fieldErrors.notSupported(`${path}.sideEffects`, hook.sideEffects, allowed));
  if (hook.timeoutSeconds != null && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  errs.push(...validateLabelSelector(hook.namespaceSelector, opts.allowInvalidLabelValueInSelector, `${path}.namespaceSelector`));
  errs.push(...validateLabelSelector(hook.objectSelector, opts.allowInvalidLabelValueInSelector, `${path}.objectSelector`));
  if (mutating && hook.reinvocationPolicy != null && !REINVOCATION_POLICIES.includes(hook.reinvocationPolicy)) {
    errs.push(fieldErrors.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  const cc = hook.clientConfig ?? {};
  const hasUrl = cc.url !== undefined && cc.url !== null;
  const hasService = cc.service !== undefined && cc.service !== null;
  if (hasUrl === hasService) errs.push(fieldErrors.required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...validateWebhookURL(`${path}.clientConfig.url`, cc.url!));
  else errs.push(...validateWebhookService(`${path}.clientConfig.service`, cc.service!));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(list(hook.matchConditions), `${path}.matchConditions`));
  return errs;
}

/**
 * A list of review versions (admissionReviewVersions; CRDs' conversionReviewVersions
 * with their own accepted list and required message): DNS-1035 labels, no
 * duplicates, and (when asked) at least one this server speaks.
 */
export function validateReviewVersions(
  versions: string[],
  requireRecognized: boolean,
  path: string,
  accepted: readonly string[] = ACCEPTED_REVIEW_VERSIONS,
  requiredDetail = `must specify one of ${accepted.join(', ')}`,
): FieldError[] {
  if (versions.length < 1) return [fieldErrors.required(path, requiredDetail)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let recognized = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(`${path}[${i}]`, v, msg));
    if (accepted.includes(v)) recognized = true;
  });
  if (requireRecognized && !recognized) {
    errs.push(fieldErrors.invalid(path, goStringSlice(versions), `must include at least one of ${[...accepted].sort().join(', ')}`));
  }
  return errs;
}

function hooksOf(obj: KubeObject): MutatingWebhook[] {
  return list((obj as { webhooks?: MutatingWebhook[] }).webhooks).map((h) => h ?? ({} as MutatingWebhook));
}

function validateConfiguration(obj: KubeObject, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  hooksOf(obj).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, mutating, opts, path));
    errs.push(...validateReviewVersions(list(hook.admissionReviewVersions), opts.requireRecognizedReviewVersion, `${path}.admissionReviewVersions`));
    if (opts.requireUniqueNames && hook.name) {
      if (names.has(hook.name)) errs.push(fieldErrors.duplicate(`${path}.name`, hook.name));
      else names.add(hook.name);
    }
  });
  return errs;
}

/** Update options from the old object, as upstream's Validate*Update: what it already had stays allowed. */
function updateOptions(obj: KubeObject, old: KubeObject): Options {
  const oldHooks = hooksOf(old);
  const newHooks = hooksOf(obj);
  const names = oldHooks.map((h) => h.name);
  const invalidSelector = oldHooks.some(
    (h) => validateLabelSelector(h.namespaceSelector, false, '').length > 0 || validateLabelSelector(h.objectSelector, false, '').length > 0,
  );
  return {
    requireNoSideEffects: oldHooks.every((h) => h.sideEffects != null && NO_SIDE_EFFECTS.includes(h.sideEffects)),
    requireRecognizedReviewVersion: oldHooks.every((h) => {
      const v = list(h.admissionReviewVersions);
      return v.length === 0 || v.some((x) => ACCEPTED_REVIEW_VERSIONS.includes(x));
    }),
    requireUniqueNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: invalidSelector,
    ignoreMatchConditions:
      newHooks.length === oldHooks.length && newHooks.every((h, i) => JSON.stringify(h.matchConditions ?? null) === JSON.stringify(oldHooks[i]!.matchConditions ?? null)),
  };
}

export const validateMutatingWebhookConfiguration = (obj: KubeObject): FieldError[] => validateConfiguration(obj, true, STRICT);
export const validateValidatingWebhookConfiguration = (obj: KubeObject): FieldError[] => validateConfiguration(obj, false, STRICT);
export const validateMutatingWebhookConfigurationUpdate = (obj: KubeObject, old: KubeObject): FieldError[] =>
  validateConfiguration(obj, true, updateOptions(obj, old));
export const validateValidatingWebhookConfigurationUpdate = (obj: KubeObject, old: KubeObject): FieldError[] =>
  validateConfiguration(obj, false, updateOptions(obj, old));

export type { ValidatingWebhook };
