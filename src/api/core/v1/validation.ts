// core/v1 value validation, after upstream's pkg/apis/core/validation (the main
// rules, not every one). Functions return FieldErrors with upstream's paths and
// messages; ObjectMeta is validated by the registry, not here.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import {
  FIELD_IMMUTABLE_ERROR_MSG,
  IS_NEGATIVE_ERROR_MSG,
  byteLength,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  maxLenError,
  regexError,
  validateLabels,
} from '../../../machinery/validation.js';
import type {
  ConfigMap,
  Container,
  Endpoints,
  Event,
  Namespace,
  Pod,
  PodSpec,
  PodTemplateSpec,
  ReplicationController,
  Secret,
} from './types.js';
import { deepCopy } from '../../../machinery/deep-copy.js';
import { deletedSince, hasKeptKeys, wideKeys } from '../../../machinery/wide-keys.js';
import { runSteps, type Steps } from '../../../machinery/steps.js';
import { goStringMap } from '../../../machinery/go-syntax.js';
import { validatePodSpecFields, validateTolerations } from './pod-spec-validation.js';
import { goJsonSyntaxError } from '../../../machinery/go-json-syntax.js';

/** Total data of a ConfigMap or Secret (1 MiB). */
export const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = /^[-._a-zA-Z0-9]+$/;
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** IsConfigMapKey: the keys of ConfigMap and Secret data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const ASCII = /^[\x00-\x7f]*$/;

/** A key isConfigMapKey finds nothing wrong with, known without its checks (ASCII, so its length is its byte length). */
function plainConfigMapKey(key: string): boolean {
  return key.length <= 253 && key.charCodeAt(0) !== 46 /* . */ && configMapKeyRe.test(key);
}

/** field.NewPath(p).Key(k) */
export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

import { PROTOCOLS, isValidPortName, isValidPortNum } from './container-validation.js';
export { PROTOCOLS, isValidPortName, isValidPortNum };

export function dns1123Label(value: string, path: string): FieldError[] {
  return isDNS1123Label(value).map((m) => fieldErrors.invalid(path, value, m));
}


// ---- ConfigMap and Secret -----------------------------------------------------

export function validateConfigMap(obj: KubeObject): FieldError[] {
  return runSteps(configMapSteps(obj));
}

/** Keys checked between two steps of a large map's validation (well under a millisecond). */
const KEYS_PER_STEP = 1024;

/**
 * validateConfigMap a run of keys at a time (a large write's store pauses
 * between the steps: a map of 100,000 keys is 15-40 ms of work).
 */
export function* configMapSteps(obj: KubeObject): Steps<FieldError[]> {
  const cm = obj as ConfigMap;
  const errs: FieldError[] = [];
  let total = 0;
  // One pass over the keys, no allocation for a valid one: a ConfigMap may hold 100,000 (issue 29).
  const data = (cm.data ?? {}) as Record<string, unknown>;
  // A null map (a manifest's `binaryData:`) is no map, as `?? {}` makes it for data.
  const binary = (cm.binaryData ?? undefined) as Record<string, unknown> | undefined;
  // A large request's data map is not listed again: its keys were kept when it was assembled (wide-keys.ts).
  const kept = hasKeptKeys(data);
  let n = 0;
  for (const k of wideKeys(data)) {
    if (++n % KEYS_PER_STEP === 0) yield;
    const v = data[k];
    // A kept list may name a key deleted since (its read then reaches Object.prototype).
    if (kept && deletedSince(data, k, v)) continue;
    if (!plainConfigMapKey(k)) for (const m of isConfigMapKey(k)) errs.push(fieldErrors.invalid(keyPath('data', k), k, m));
    if (binary !== undefined && Object.hasOwn(binary, k) && binary[k] !== undefined) {
      errs.push(fieldErrors.invalid(keyPath('data', k), k, 'duplicate of key present in binaryData'));
    }
    total += typeof v === 'string' && v.length < 64 && ASCII.test(v) ? v.length : byteLength(String(v));
  }
  const binaryKept = binary !== undefined && hasKeptKeys(binary);
  for (const k of binary === undefined ? [] : wideKeys(binary)) {
    if (++n % KEYS_PER_STEP === 0) yield;
    const v = binary![k];
    if (binaryKept && deletedSince(binary!, k, v)) continue;
    for (const m of isConfigMapKey(k)) errs.push(fieldErrors.invalid(keyPath('binaryData', k), k, m));
    total += Buffer.from(String(v), 'base64').length;
  }
  if (total > MAX_SECRET_SIZE) {
    // Upstream reports it on field.NewPath(""), the whole object, which prints as "[]".
    errs.push(fieldErrors.tooLong('[]', MAX_SECRET_SIZE));
  }
  return errs;
}

function immutableDataUpdate(
  obj: { immutable?: boolean; data?: unknown; binaryData?: unknown },
  old: { immutable?: boolean; data?: unknown; binaryData?: unknown },
  withBinary: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  if (old.immutable !== true) return errs;
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', IMMUTABLE_WHEN_SET));
  if (!sameJSON(obj.data ?? {}, old.data ?? {})) errs.push(fieldErrors.forbidden('data', IMMUTABLE_WHEN_SET));
  if (withBinary && !sameJSON(obj.binaryData ?? {}, old.binaryData ?? {})) {
    errs.push(fieldErrors.forbidden('binaryData', IMMUTABLE_WHEN_SET));
  }
  return errs;
}

export function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return runSteps(configMapUpdateSteps(obj, old));
}

/** validateConfigMapUpdate in steps (configMapSteps). */
export function* configMapUpdateSteps(obj: KubeObject, old: KubeObject): Steps<FieldError[]> {
  const immutable = immutableDataUpdate(obj as ConfigMap, old as ConfigMap, true);
  return [...immutable, ...(yield* configMapSteps(obj))];
}

export const SecretTypes = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
  bootstrapToken: 'bootstrap.kubernetes.io/token',
} as const;

export function validateSecret(obj: KubeObject): FieldError[] {
  return runSteps(secretSteps(obj));
}

/** validateSecret a run of keys at a time (configMapSteps says why). */
export function* secretSteps(obj: KubeObject): Steps<FieldError[]> {
  const s = obj as Secret;
  const errs: FieldError[] = [];
  const data = s.data ?? {};
  let total = 0;
  const kept = hasKeptKeys(data);
  let n = 0;
  for (const k of wideKeys(data)) {
    if (++n % KEYS_PER_STEP === 0) yield;
    const v = data[k];
    // A kept list may name a key deleted since (wide-keys.ts).
    if (kept && deletedSince(data, k, v)) continue;
    for (const m of isConfigMapKey(k)) errs.push(fieldErrors.invalid(keyPath('data', k), k, m));
    total += Buffer.from(String(v), 'base64').length;
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('data', MAX_SECRET_SIZE));
  // Upstream checks that a key exists: an empty value is there.
  const has = (k: string): boolean => data[k] !== undefined;
  switch (s.type) {
    case SecretTypes.serviceAccountToken: {
      const name = s.metadata.annotations?.['kubernetes.io/service-account.name'] ?? '';
      if (name === '') errs.push(fieldErrors.required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    }
    case SecretTypes.dockercfg:
      if (!has('.dockercfg')) errs.push(fieldErrors.required(keyPath('data', '.dockercfg')));
      else {
        const bad = mapUnmarshalError(data['.dockercfg']!);
        if (bad !== undefined) errs.push(fieldErrors.invalid(keyPath('data', '.dockercfg'), '<secret contents redacted>', bad));
      }
      break;
    case SecretTypes.dockerConfigJson:
      if (!has('.dockerconfigjson')) errs.push(fieldErrors.required(keyPath('data', '.dockerconfigjson')));
      else {
        const bad = mapUnmarshalError(data['.dockerconfigjson']!);
        if (bad !== undefined) errs.push(fieldErrors.invalid(keyPath('data', '.dockerconfigjson'), '<secret contents redacted>', bad));
      }
      break;
    case SecretTypes.basicAuth:
      if (!has('username') && !has('password')) {
        errs.push(fieldErrors.required(keyPath('data', 'username')));
        errs.push(fieldErrors.required(keyPath('data', 'password')));
      }
      break;
    case SecretTypes.sshAuth:
      if (!has('ssh-privatekey')) errs.push(fieldErrors.required(keyPath('data', 'ssh-privatekey')));
      break;
    case SecretTypes.tls:
      if (!has('tls.crt')) errs.push(fieldErrors.required(keyPath('data', 'tls.crt')));
      if (!has('tls.key')) errs.push(fieldErrors.required(keyPath('data', 'tls.key')));
      break;
    default:
      break;
  }
  return errs;
}

export function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return runSteps(secretUpdateSteps(obj, old));
}

/** validateSecretUpdate in steps (configMapSteps). */
export function* secretUpdateSteps(obj: KubeObject, old: KubeObject): Steps<FieldError[]> {
  const s = obj as Secret;
  const o = old as Secret;
  const errs: FieldError[] = [];
  if ((s.type ?? '') !== (o.type ?? '')) errs.push(fieldErrors.invalid('type', s.type ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  errs.push(...immutableDataUpdate(s, o, false));
  errs.push(...(yield* secretSteps(obj)));
  return errs;
}

/** encoding/json's error for decoding these (base64) bytes into a map[string]interface{}, as upstream checks docker configs. */
function mapUnmarshalError(base64: string): string | undefined {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return goJsonSyntaxError(text) ?? 'unexpected end of JSON input';
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const goType = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`;
}

// ---- Namespace ----------------------------------------------------------------

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * validateFinalizerName: a qualified name; without a '/', one of the standard
 * finalizers. Both checks report, as upstream's (a bad name without a '/' gets
 * two causes).
 */
export function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    errs.push(fieldErrors.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

export function validateNamespace(obj: KubeObject): FieldError[] {
  const ns = obj as Namespace;
  const errs: FieldError[] = [];
  (ns.spec?.finalizers ?? []).forEach((f) => errs.push(...validateFinalizerName(f, 'spec.finalizers')));
  return errs;
}

// ---- ServiceAccount ---------------------------------------------------------------

export function validateServiceAccount(_obj: KubeObject): FieldError[] {
  return [];
}

// ---- Pod ----------------------------------------------------------------------

export function validatePodSpec(spec: PodSpec | undefined, path: string, isPod = false): FieldError[] {
  return validatePodSpecFields((spec ?? {}) as Record<string, unknown>, path, isPod);
}

export function validatePod(obj: KubeObject): FieldError[] {
  const spec = (obj as Pod).spec;
  const errs = validatePodSpec(spec, 'spec', true);
  // Pods only, not templates: images without surrounding whitespace.
  for (const field of ['containers', 'initContainers'] as const) {
    (spec?.[field] ?? []).forEach((c, i) => {
      const image = c.image ?? '';
      if (image.trim() !== image) errs.push(fieldErrors.invalid(`spec.${field}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

const POD_UPDATABLE =
  '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** A pod's spec is immutable but for images, activeDeadlineSeconds and added tolerations. */
export function validatePodUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validatePod(obj);
  const a = deepCopy((obj as Pod).spec ?? ({} as PodSpec));
  const b = (old as Pod).spec ?? ({} as PodSpec);
  // ValidateContainerUpdates: the same containers; images checked again (upstream lists them twice).
  for (const field of ['containers', 'initContainers'] as const) {
    const now = a[field] ?? [];
    if (now.length !== (b[field] ?? []).length) return [...errs, fieldErrors.forbidden(`spec.${field}`, 'pod updates may not add or remove containers')];
    now.forEach((c, i) => {
      const image = c.image ?? '';
      if (image === '') errs.push(fieldErrors.required(`spec.${field}[${i}].image`));
      if (image.trim() !== image) errs.push(fieldErrors.invalid(`spec.${field}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  const deadline = a.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    if (deadline < 0 || deadline > 2147483647) return [...errs, fieldErrors.invalid('spec.activeDeadlineSeconds', deadline, 'must be between 0 and 2147483647, inclusive')];
    if (b.activeDeadlineSeconds !== undefined && b.activeDeadlineSeconds !== null && b.activeDeadlineSeconds < deadline) {
      return [...errs, fieldErrors.invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
    }
  } else if (b.activeDeadlineSeconds !== undefined && b.activeDeadlineSeconds !== null) {
    errs.push(fieldErrors.invalid('spec.activeDeadlineSeconds', new GoValue('(*int64)(nil)'), 'must not update from a positive integer to nil value'));
  }
  errs.push(...onlyAddedTolerations(a.tolerations ?? [], b.tolerations ?? []));
  errs.push(...onlyDeletedSchedulingGates(a, b));
  // What may change is set back to the old values; anything else left differing is forbidden.
  const munged = deepCopy(a);
  (munged.containers ?? []).forEach((c, i) => (c.image = b.containers?.[i]?.image as string));
  (munged.initContainers ?? []).forEach((c, i) => (c.image = b.initContainers?.[i]?.image as string));
  setOrDelete(munged, 'activeDeadlineSeconds', b.activeDeadlineSeconds);
  setOrDelete(munged, 'tolerations', b.tolerations);
  setOrDelete(munged, 'schedulingGates', (b as Record<string, unknown>)['schedulingGates']);
  if (typeof b.terminationGracePeriodSeconds === 'number' && b.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = b.terminationGracePeriodSeconds;
  }
  // A pod still gated may gain node selector terms and node affinity (not checked further here).
  if (((b as Record<string, unknown[] | undefined>)['schedulingGates'] ?? []).length > 0) {
    setOrDelete(munged, 'nodeSelector', b.nodeSelector);
    const affinity = (munged as Record<string, Record<string, unknown> | undefined>)['affinity'];
    const oldNode = (b as Record<string, Record<string, unknown> | undefined>)['affinity']?.['nodeAffinity'];
    if (affinity !== undefined) setOrDelete(affinity, 'nodeAffinity', oldNode);
    if (affinity !== undefined && Object.keys(affinity).length === 0 && (b as Record<string, unknown>)['affinity'] === undefined) delete (munged as Record<string, unknown>)['affinity'];
  }
  if (!sameJSON(munged, b)) errs.push(fieldErrors.forbidden('spec', `pod updates may not change fields other than ${POD_UPDATABLE}`));
  return errs;
}

function setOrDelete(target: object, key: string, value: unknown): void {
  const t = target as Record<string, unknown>;
  if (value === undefined) delete t[key];
  else t[key] = deepCopy(value);
}

/** validateOnlyAddedTolerations: every old toleration still there (its tolerationSeconds may change); then the new list's own checks. */
function onlyAddedTolerations(now: readonly Record<string, unknown>[], before: readonly Record<string, unknown>[]): FieldError[] {
  const shape = (t: Record<string, unknown>): string => JSON.stringify([t['key'] ?? '', t['operator'] ?? '', t['value'] ?? '', t['effect'] ?? '']);
  const kept = new Set(now.map(shape));
  if (before.some((t) => !kept.has(shape(t)))) return [fieldErrors.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
  return validateTolerations(now, 'spec.tolerations');
}

/** validateOnlyDeletedSchedulingGates: no gate may be added. */
function onlyDeletedSchedulingGates(a: PodSpec, b: PodSpec): FieldError[] {
  const gates = (spec: PodSpec): { name?: string }[] => ((spec as Record<string, unknown>)['schedulingGates'] as { name?: string }[] | undefined) ?? [];
  const old = new Set(gates(b).map((g) => g.name ?? ''));
  const added = new Map<string, number>();
  gates(a).forEach((g, i) => added.set(g.name ?? '', i));
  return [...added].filter(([name]) => !old.has(name)).map(([name, i]) => fieldErrors.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
}

// ---- PodTemplate holders ----------------------------------------------------------

export function validatePodTemplateSpec(t: PodTemplateSpec | undefined, path: string): FieldError[] {
  if (t === undefined) return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  errs.push(...validateLabels(t.metadata?.labels, `${path}.metadata.labels`));
  errs.push(...validatePodSpec(t.spec, `${path}.spec`));
  return errs;
}

/** Controllers' templates must restart always. */
export function validateRestartAlways(t: PodTemplateSpec | undefined, path: string): FieldError[] {
  const policy = t?.spec?.restartPolicy ?? '';
  if (policy !== '' && policy !== 'Always') {
    return [fieldErrors.notSupported(`${path}.spec.restartPolicy`, policy, ['Always'])];
  }
  return [];
}

export function validateReplicationController(obj: KubeObject): FieldError[] {
  const rc = obj as ReplicationController;
  const spec = rc.spec ?? {};
  const errs: FieldError[] = [];
  if ((spec.replicas ?? 0) < 0) errs.push(fieldErrors.invalid('spec.replicas', spec.replicas, IS_NEGATIVE_ERROR_MSG));
  if ((spec.minReadySeconds ?? 0) < 0) {
    errs.push(fieldErrors.invalid('spec.minReadySeconds', spec.minReadySeconds, IS_NEGATIVE_ERROR_MSG));
  }
  const selector = spec.selector ?? {};
  if (Object.keys(selector).length === 0) errs.push(fieldErrors.required('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  if (spec.template === undefined) errs.push(fieldErrors.required('spec.template'));
  else {
    const labels = spec.template.metadata?.labels ?? {};
    const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Object.keys(selector).length > 0 && !matches) {
      errs.push(fieldErrors.invalid('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
    }
    errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
    errs.push(...validateRestartAlways(spec.template, 'spec.template'));
  }
  return errs;
}

export function validateReplicationControllerStatus(obj: KubeObject): FieldError[] {
  const status = (obj as ReplicationController).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) {
    const v = status[f];
    if (v !== undefined && v < 0) errs.push(fieldErrors.invalid(`status.${f}`, v, IS_NEGATIVE_ERROR_MSG));
  }
  errs.push(...replicaCountErrors(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], 'cannot be greater than readyReplicas'));
  return errs;
}

/**
 * The replica counts of a workload's status checked against each other, as
 * upstream's status validations do (an absent count is 0): each of `counts`
 * at most status.replicas, then availableReplicas at most readyReplicas,
 * refused with `availableAboveReady` (the words differ between kinds).
 */
export function replicaCountErrors(status: object | undefined, counts: readonly string[], availableAboveReady: string): FieldError[] {
  const n = (f: string): number => {
    const v = (status as Record<string, unknown> | undefined)?.[f];
    return typeof v === 'number' ? v : 0;
  };
  const errs: FieldError[] = [];
  for (const f of counts) if (n(f) > n('replicas')) errs.push(fieldErrors.invalid(`status.${f}`, n(f), 'cannot be greater than status.replicas'));
  if (n('availableReplicas') > n('readyReplicas')) errs.push(fieldErrors.invalid('status.availableReplicas', n('availableReplicas'), availableAboveReady));
  return errs;
}

/** status.collisionCount may grow but not shrink or go away (upstream's IsDecremented check on a status update). */
export function collisionCountDecremented(obj: KubeObject, old: KubeObject): FieldError[] {
  const now = (obj.status as { collisionCount?: number } | undefined)?.collisionCount;
  const before = (old.status as { collisionCount?: number } | undefined)?.collisionCount;
  if (typeof before !== 'number' || (typeof now === 'number' && now >= before)) return [];
  return [fieldErrors.invalid('status.collisionCount', typeof now === 'number' ? now : 0, 'cannot be decremented')];
}

// ---- Event ------------------------------------------------------------------------

export function validateEvent(obj: KubeObject): FieldError[] {
  const ev = obj as Event;
  const errs: FieldError[] = [];
  const ns = ev.metadata.namespace ?? '';
  const involvedNs = ev.involvedObject?.namespace ?? '';
  if (involvedNs === '') {
    if (ns !== '' && ns !== 'default') {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else if (ns !== involvedNs) {
    errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  }
  const eventTime = ev.eventTime ?? null;
  if (eventTime !== null && eventTime !== '') {
    // New-style events carry their reporter.
    if ((ev.reportingComponent ?? '') === '') errs.push(fieldErrors.required('reportingController'));
    if ((ev.reportingInstance ?? '') === '') errs.push(fieldErrors.required('reportingInstance'));
    if ((ev.action ?? '') === '') errs.push(fieldErrors.required('action'));
    if ((ev.reason ?? '') === '') errs.push(fieldErrors.required('reason'));
    const type = ev.type ?? '';
    if (type !== 'Normal' && type !== 'Warning') {
      errs.push(fieldErrors.invalid('type', type, 'has invalid value: ' + type));
    }
  }
  return errs;
}

// ---- Endpoints ----------------------------------------------------------------------

export function validateEndpoints(obj: KubeObject): FieldError[] {
  const ep = obj as Endpoints;
  const errs: FieldError[] = [];
  (ep.subsets ?? []).forEach((ss, i) => {
    const p = `subsets[${i}]`;
    const addresses = [...(ss.addresses ?? []), ...(ss.notReadyAddresses ?? [])];
    if (addresses.length === 0) errs.push(fieldErrors.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    (ss.addresses ?? []).forEach((a, j) => {
      if (!isIP(a.ip ?? '')) errs.push(fieldErrors.invalid(`${p}.addresses[${j}].ip`, a.ip ?? '', 'must be a valid IP address'));
    });
    (ss.notReadyAddresses ?? []).forEach((a, j) => {
      if (!isIP(a.ip ?? '')) {
        errs.push(fieldErrors.invalid(`${p}.notReadyAddresses[${j}].ip`, a.ip ?? '', 'must be a valid IP address'));
      }
    });
    const ports = ss.ports ?? [];
    ports.forEach((port, j) => {
      const pp = `${p}.ports[${j}]`;
      if (ports.length > 1 && (port.name ?? '') === '') errs.push(fieldErrors.required(`${pp}.name`));
      else if ((port.name ?? '') !== '') errs.push(...dns1123Label(port.name!, `${pp}.name`));
      for (const m of isValidPortNum(port.port)) errs.push(fieldErrors.invalid(`${pp}.port`, port.port, m));
      const proto = port.protocol ?? '';
      if (proto === '') errs.push(fieldErrors.required(`${pp}.protocol`));
      else if (!PROTOCOLS.includes(proto)) errs.push(fieldErrors.notSupported(`${pp}.protocol`, proto, PROTOCOLS));
    });
  });
  return errs;
}

export function isIP(s: string): boolean {
  if (/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s)) return s.split('.').every((x) => Number(x) <= 255);
  return s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s);
}

// ---- LimitRange (limitrange-validation.ts) and ResourceQuota (quota-validation.ts) ----------

export { validateLimitRange } from './limitrange-validation.js';

// ---- helpers ------------------------------------------------------------------------

/** Structural equality through JSON (objects compared key-order-insensitively). */
export function sameJSON(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(value as Record<string, unknown>).sort()) sorted[key] = (value as Record<string, unknown>)[key];
      return sorted;
    }
    return value;
  });
}
