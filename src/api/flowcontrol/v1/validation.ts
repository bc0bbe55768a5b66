// Validation of flowcontrol/v1 objects, with upstream's paths and messages
// (pkg/apis/flowcontrol/validation/validation.go). The objects are validated
// after defaulting, as upstream validates its internal (defaulted) form.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import { goStringSlice } from '../../../machinery/go-syntax.js';
import { isDNS1123Subdomain, validateNamespaceName } from '../../../machinery/validation.js';
import type { Loose } from '../../loose.js';
import { mandatoryFlowSchema, mandatoryPriorityLevel } from './bootstrap.js';
import { FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE } from './types.js';

const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const ENABLEMENTS = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
const MAX_QUEUES = 10_000_000;
/** Shuffle sharding hashes into 60 bits (upstream's shufflesharding.MaxHashBits). */
export const MAX_HASH_BITS = 60;
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";
const PRESERVE_ZERO_SHARES_ANNOTATION = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';

/** Bits of hash a hand of `handSize` cards from a deck of `deckSize` needs (upstream's RequiredEntropyBits). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Go's semantic equality of two specs: unset, empty and zero values are alike. */
function normalized(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalized);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const n = normalized((v as Record<string, unknown>)[k]);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (v === null || v === false || v === '' || v === 0) return undefined;
  return v;
}
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalized(a) ?? null) === JSON.stringify(normalized(b) ?? null);
}

function validateVerbs(verbs: string[], path: string, errs: FieldError[]): void {
  if (verbs.length === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  else if (verbs.includes('*')) {
    if (verbs.length > 1) errs.push(fieldErrors.invalid(`${path}.verbs`, goStringSlice(verbs), "if '*' is present, must not specify other verbs"));
  } else if (!verbs.every((v) => SUPPORTED_VERBS.includes(v))) {
    errs.push(fieldErrors.notSupported(`${path}.verbs`, goStringSlice(verbs), SUPPORTED_VERBS));
  }
}

function validateSubject(s: Loose, path: string, errs: FieldError[]): void {
  const userForbidden = (): void => void errs.push(fieldErrors.forbidden(`${path}.user`, "user is forbidden when subject kind is not 'User'"));
  const groupForbidden = (): void => void errs.push(fieldErrors.forbidden(`${path}.group`, "group is forbidden when subject kind is not 'Group'"));
  const saForbidden = (): void => void errs.push(fieldErrors.forbidden(`${path}.serviceAccount`, "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"));
  switch (s.kind) {
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (sa == null) errs.push(fieldErrors.required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = text(sa.name);
        if (name === '') errs.push(fieldErrors.required(`${path}.serviceAccount.name`));
        else if (name !== '*') for (const msg of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.serviceAccount.name`, name, msg));
        const ns = text(sa.namespace);
        if (ns === '') errs.push(fieldErrors.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
        else for (const msg of validateNamespaceName(ns, false)) errs.push(fieldErrors.invalid(`${path}.serviceAccount.namespace`, ns, msg));
      }
      if (s.user != null) userForbidden();
      if (s.group != null) groupForbidden();
      return;
    }
    case 'User':
      if (s.user == null) errs.push(fieldErrors.required(`${path}.user`, "user is required when subject kind is 'User'"));
      else if (text(s.user.name) === '') errs.push(fieldErrors.required(`${path}.user.name`));
      if (s.serviceAccount != null) saForbidden();
      if (s.group != null) groupForbidden();
      return;
    case 'Group':
      if (s.group == null) errs.push(fieldErrors.required(`${path}.group`, "group is required when subject kind is 'Group'"));
      else if (text(s.group.name) === '') errs.push(fieldErrors.required(`${path}.group.name`));
      if (s.serviceAccount != null) saForbidden();
      if (s.user != null) userForbidden();
      return;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, text(s.kind), SUBJECT_KINDS));
  }
}

/** A non-resource URL pattern's problem, or undefined (upstream's ValidateNonResourceURLPath). */
function nonResourceURLProblem(p: string): string | undefined {
  if (p === '') return 'must not be empty';
  if (p === '/') return undefined;
  if (!p.startsWith('/')) return 'must start with slash';
  if (p.includes(' ')) return 'must not contain white-space';
  if (p.includes('//')) return 'must not contain double slash';
  const wildcards = p.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !p.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

function validateResourceRule(r: Loose, path: string, errs: FieldError[]): void {
  validateVerbs(arr<string>(r.verbs), path, errs);
  const groups = arr<string>(r.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiGroups`, goStringSlice(groups), "if '*' is present, must not specify other api groups"));
  const resources = arr<string>(r.resources);
  if (resources.length === 0) errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(fieldErrors.invalid(`${path}.resources`, goStringSlice(resources), "if '*' is present, must not specify other resources"));
  const namespaces = arr<string>(r.namespaces);
  if (namespaces.length === 0 && r.clusterScope !== true) {
    errs.push(fieldErrors.required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(fieldErrors.invalid(`${path}.namespaces`, goStringSlice(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of validateNamespaceName(ns, false)) errs.push(fieldErrors.invalid(`${path}.namespaces[${i}]`, ns, NS_ERR_INTRO + msg));
    });
  }
}

function validateNonResourceRule(r: Loose, path: string, errs: FieldError[]): void {
  validateVerbs(arr<string>(r.verbs), path, errs);
  const urls = arr<string>(r.nonResourceURLs);
  if (urls.length === 0) errs.push(fieldErrors.required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, goStringSlice(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const problem = nonResourceURLProblem(u);
      if (problem !== undefined) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs[${i}]`, u, problem));
    });
  }
}

function validateConditions(status: Loose | undefined, errs: FieldError[]): void {
  const seen = new Set<string>();
  arr<Loose>(status?.conditions).forEach((c, i) => {
    const type = text(c?.type);
    if (seen.has(type)) errs.push(fieldErrors.duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    if (type === '') errs.push(fieldErrors.required(`status.conditions[${i}].type`, 'must not be empty'));
  });
}

/** A spec the error shows as a Go struct; we print its JSON under upstream's type name. */
function specValue(typeName: string, spec: unknown): GoValue {
  return new GoValue(`flowcontrol.${typeName}${JSON.stringify(spec ?? {})}`);
}

export function validateFlowSchemaSpecOnly(name: string, spec: Loose): FieldError[] {
  const errs: FieldError[] = [];
  const precedence = num(spec.matchingPrecedence);
  if (precedence <= 0) errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE) {
    errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`));
  }
  if (precedence === 1 && name !== 'exempt') errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const dm = spec.distinguisherMethod;
  if (dm != null && !DISTINGUISHER_METHODS.includes(text(dm.type))) {
    errs.push(fieldErrors.notSupported('spec.distinguisherMethod.type', new GoValue(`flowcontrol.FlowDistinguisherMethod{Type:${JSON.stringify(text(dm.type))}}`), DISTINGUISHER_METHODS));
  }
  const plName = text(spec.priorityLevelConfiguration?.name);
  if (plName !== '') for (const msg of isDNS1123Subdomain(plName)) errs.push(fieldErrors.invalid('spec.priorityLevelConfiguration.name', plName, msg));
  else errs.push(fieldErrors.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr<Loose>(spec.rules).forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    const subjects = arr<Loose>(rule?.subjects);
    if (subjects.length > 0) subjects.forEach((s, j) => validateSubject(s ?? {}, `${path}.subjects[${j}]`, errs));
    else errs.push(fieldErrors.required(`${path}.subjects`, 'subjects must contain at least one value'));
    const resourceRules = arr<Loose>(rule?.resourceRules);
    const nonResourceRules = arr<Loose>(rule?.nonResourceRules);
    if (resourceRules.length === 0 && nonResourceRules.length === 0) {
      errs.push(fieldErrors.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    }
    resourceRules.forEach((r, j) => validateResourceRule(r ?? {}, `${path}.resourceRules[${j}]`, errs));
    nonResourceRules.forEach((r, j) => validateNonResourceRule(r ?? {}, `${path}.nonResourceRules[${j}]`, errs));
  });
  return errs;
}

export function validateFlowSchema(obj: KubeObject): FieldError[] {
  const fs = obj as Loose;
  const name = obj.metadata.name ?? '';
  const spec: Loose = fs.spec ?? {};
  const errs = validateFlowSchemaSpecOnly(name, spec);
  const mandatory = mandatoryFlowSchema(name);
  if (mandatory !== undefined && !semanticallyEqual(spec, mandatory.spec)) {
    errs.push(fieldErrors.invalid('spec', specValue('FlowSchemaSpec', spec), `spec of '${name}' must equal the fixed value`));
  }
  validateConditions(fs.status, errs);
  return errs;
}

export function validateFlowSchemaStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  validateConditions((obj as Loose).status, errs);
  return errs;
}

function validateQueuing(q: Loose, path: string, errs: FieldError[]): void {
  const qll = num(q.queueLengthLimit);
  const queues = num(q.queues);
  const handSize = num(q.handSize);
  if (qll <= 0) errs.push(fieldErrors.invalid(`${path}.queueLengthLimit`, qll, 'must be positive'));
  if (queues <= 0) errs.push(fieldErrors.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(fieldErrors.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
}

function validateLimited(l: Loose, errs: FieldError[]): void {
  const shares = num(l.nominalConcurrencyShares);
  if (shares < 0) errs.push(fieldErrors.invalid('spec.limited.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
  const lr: Loose = l.limitResponse ?? {};
  switch (lr.type) {
    case 'Reject':
      if (lr.queuing != null) errs.push(fieldErrors.forbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
      break;
    case 'Queue':
      if (lr.queuing == null) errs.push(fieldErrors.required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'));
      else validateQueuing(lr.queuing, 'spec.limited.limitResponse.queuing', errs);
      break;
    default:
      errs.push(fieldErrors.notSupported('spec.limited.limitResponse.type', text(lr.type), LIMIT_RESPONSE_TYPES));
  }
  if (typeof l.lendablePercent === 'number' && !(l.lendablePercent >= 0 && l.lendablePercent <= 100)) {
    errs.push(fieldErrors.invalid('spec.limited.lendablePercent', l.lendablePercent, 'must be between 0 and 100, inclusive'));
  }
  if (typeof l.borrowingLimitPercent === 'number' && l.borrowingLimitPercent < 0) {
    errs.push(fieldErrors.invalid('spec.limited.borrowingLimitPercent', l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
  }
}

export function validatePriorityLevelConfiguration(obj: KubeObject): FieldError[] {
  const plc = obj as Loose;
  const name = obj.metadata.name ?? '';
  const errs: FieldError[] = [];
  if (obj.metadata.annotations?.[PRESERVE_ZERO_SHARES_ANNOTATION] !== undefined) {
    errs.push(fieldErrors.forbidden('metadata.annotations', `annotation '${PRESERVE_ZERO_SHARES_ANNOTATION}' is forbidden`));
  }
  const spec: Loose = plc.spec ?? {};
  const type = text(spec.type);
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(fieldErrors.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (type) {
    case 'Exempt':
      if (spec.limited != null) errs.push(fieldErrors.forbidden('spec.limited', 'must be nil if the type is not Limited'));
      if (spec.exempt != null) {
        const e: Loose = spec.exempt;
        if (typeof e.nominalConcurrencyShares === 'number' && e.nominalConcurrencyShares < 0) {
          errs.push(fieldErrors.invalid('spec.exempt.nominalConcurrencyShares', e.nominalConcurrencyShares, 'must be a non-negative integer'));
        }
        if (typeof e.lendablePercent === 'number' && !(e.lendablePercent >= 0 && e.lendablePercent <= 100)) {
          errs.push(fieldErrors.invalid('spec.exempt.lendablePercent', e.lendablePercent, 'must be between 0 and 100, inclusive'));
        }
      }
      break;
    case 'Limited':
      if (spec.exempt != null) errs.push(fieldErrors.forbidden('spec.exempt', 'must be nil if the type is Limited'));
      if (spec.limited == null) errs.push(fieldErrors.required('spec.limited', 'must not be empty when type is Limited'));
      else validateLimited(spec.limited, errs);
      break;
    default:
      errs.push(fieldErrors.notSupported('spec.type', type, ENABLEMENTS));
  }
  const mandatory = mandatoryPriorityLevel(name);
  if (mandatory !== undefined) {
    if (name === 'exempt') {
      // Everything but spec.exempt is fixed: operators may tune the exempt level's shares.
      if (!semanticallyEqual({ ...spec, exempt: undefined }, { ...mandatory.spec, exempt: undefined })) {
        errs.push(fieldErrors.invalid('spec', specValue('PriorityLevelConfigurationSpec', spec), `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`));
      }
    } else if (!semanticallyEqual(spec, mandatory.spec)) {
      errs.push(fieldErrors.invalid('spec', specValue('PriorityLevelConfigurationSpec', spec), `spec of '${name}' must equal the fixed value`));
    }
  }
  validateConditions(plc.status, errs);
  return errs;
}

export function validatePriorityLevelConfigurationStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  validateConditions((obj as Loose).status, errs);
  return errs;
}
