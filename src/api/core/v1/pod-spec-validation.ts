// ValidatePodSpec of kube-apiserver 1.32, in its order (the order of the
// causes and of the message's list): volumes, containers (./container-
// validation.ts), host network ports, restart and DNS policies, node
// selector, the pod's security context, affinity, DNS config, service
// account and node names, active deadline, hostname and subdomain,
// tolerations.

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { goStringSlice } from '../../../machinery/go-syntax.js';
import { validateIP } from '../../../machinery/selector-validation.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateLabels } from '../../../machinery/validation.js';
import { isObject, list, str } from '../../loose.js';
import { idErrors, validatePodContainers, validateSeccompProfileField } from './container-validation.js';
import { validateVolumeSource } from './volume-validation.js';

type Loose = Record<string, unknown>;

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const SYSCTL_RE = '^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';
const SYSCTL = new RegExp(SYSCTL_RE);

function volumes(spec: Loose, path: string): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  list(spec['volumes']).forEach((raw, i) => {
    const v = isObject(raw) ? raw : {};
    const p = `${path}.volumes[${i}]`;
    const name = str(v['name']);
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    else {
      for (const m of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      names.add(name);
    }
    errs.push(...validateVolumeSource(v, p));
  });
  return { names, errs };
}

/** validatePodHostNetworkDeps: with hostNetwork, a host port must equal its container port (on pods even when unset). */
function hostNetworkPorts(spec: Loose, path: string, isPod: boolean): FieldError[] {
  if (spec['hostNetwork'] !== true) return [];
  const errs: FieldError[] = [];
  list(spec['containers']).forEach((c, i) => {
    list(isObject(c) ? c['ports'] : undefined).forEach((raw, j) => {
      const port = isObject(raw) ? raw : {};
      const hostPort = typeof port['hostPort'] === 'number' ? port['hostPort'] : 0;
      if ((isPod || hostPort !== 0) && hostPort !== port['containerPort']) {
        errs.push(fieldErrors.invalid(`${path}.containers[${i}].ports[${j}].hostPort`, hostPort, 'must match `containerPort` when `hostNetwork` is true'));
      }
    });
  });
  return errs;
}

function podSecurityContext(value: unknown, path: string): FieldError[] {
  if (!isObject(value)) return [];
  const errs = [...idErrors(value['fsGroup'], `${path}.fsGroup`), ...idErrors(value['runAsUser'], `${path}.runAsUser`), ...idErrors(value['runAsGroup'], `${path}.runAsGroup`)];
  list(value['supplementalGroups']).forEach((g, i) => errs.push(...idErrors(g, `${path}.supplementalGroups[${i}]`)));
  list(value['sysctls']).forEach((raw, i) => {
    const name = str(isObject(raw) ? raw['name'] : undefined);
    if (name === '') errs.push(fieldErrors.required(`${path}.sysctls[${i}].name`));
    else if (name.length > 253 || !SYSCTL.test(name)) errs.push(fieldErrors.invalid(`${path}.sysctls[${i}].name`, name, `must have at most 253 characters and match regex ${SYSCTL_RE}`));
  });
  errs.push(...validateSeccompProfileField(value['seccompProfile'], `${path}.seccompProfile`));
  return errs;
}

function affinity(value: unknown, path: string): FieldError[] {
  if (!isObject(value) || !isObject(value['nodeAffinity'])) return [];
  const required = value['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'];
  if (!isObject(required)) return [];
  const p = `${path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
  return list(required['nodeSelectorTerms']).length === 0 ? [fieldErrors.required(p, 'must have at least one node selector term')] : [];
}

function dnsConfig(value: unknown, policy: string, path: string): FieldError[] {
  if (policy === 'None') {
    if (!isObject(value)) return [fieldErrors.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (list(value['nameservers']).length === 0) return [fieldErrors.required(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObject(value)) return [];
  const errs: FieldError[] = [];
  const nameservers = list(value['nameservers']).map(str);
  if (nameservers.length > 3) errs.push(fieldErrors.invalid(`${path}.nameservers`, goStringSlice(nameservers), 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...validateIP(ns, `${path}.nameservers[${i}]`)));
  const searches = list(value['searches']).map(str);
  if (searches.length > 32) errs.push(fieldErrors.invalid(`${path}.searches`, goStringSlice(searches), 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(fieldErrors.invalid(`${path}.searches`, goStringSlice(searches), 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((search, i) => {
    const trimmed = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const m of isDNS1123Subdomain(trimmed)) errs.push(fieldErrors.invalid(`${path}.searches[${i}]`, trimmed, m));
  });
  list(value['options']).forEach((o, i) => {
    if (str(isObject(o) ? o['name'] : undefined) === '') errs.push(fieldErrors.required(`${path}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

export function validateTolerations(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list(value).forEach((raw, i) => {
    const t = isObject(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const key = str(t['key']);
    const operator = str(t['operator']);
    const effect = str(t['effect']);
    const value = str(t['value']);
    if (key !== '') for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${p}.key`, key, m));
    if (key === '' && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t['tolerationSeconds'] !== undefined && t['tolerationSeconds'] !== null && effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(fieldErrors.invalid(`${p}.operator`, value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') errs.push(fieldErrors.invalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(fieldErrors.notSupported(`${p}.operator`, operator, ['Equal', 'Exists']));
    if (effect !== '' && !TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
  });
  return errs;
}

export function validatePodSpecFields(spec: Loose, path: string, isPod: boolean): FieldError[] {
  const vols = volumes(spec, path);
  const errs = [...vols.errs, ...validatePodContainers(spec, path, vols.names), ...hostNetworkPorts(spec, path, isPod)];
  const restart = str(spec['restartPolicy']);
  if (restart === '') errs.push(fieldErrors.required(`${path}.restartPolicy`));
  else if (!RESTART_POLICIES.includes(restart)) errs.push(fieldErrors.notSupported(`${path}.restartPolicy`, restart, RESTART_POLICIES));
  const dns = str(spec['dnsPolicy']);
  if (dns === '') errs.push(fieldErrors.required(`${path}.dnsPolicy`));
  else if (!DNS_POLICIES.includes(dns)) errs.push(fieldErrors.notSupported(`${path}.dnsPolicy`, dns, DNS_POLICIES));
  errs.push(...validateLabels(spec['nodeSelector'] as Record<string, string> | undefined, `${path}.nodeSelector`));
  errs.push(...podSecurityContext(spec['securityContext'], `${path}.securityContext`));
  errs.push(...affinity(spec['affinity'], `${path}.affinity`));
  errs.push(...dnsConfig(spec['dnsConfig'], dns, `${path}.dnsConfig`));
  const serviceAccount = str(spec['serviceAccountName']);
  if (serviceAccount !== '') for (const m of isDNS1123Subdomain(serviceAccount)) errs.push(fieldErrors.invalid(`${path}.serviceAccountName`, serviceAccount, m));
  const nodeName = str(spec['nodeName']);
  if (nodeName !== '') for (const m of isDNS1123Subdomain(nodeName)) errs.push(fieldErrors.invalid(`${path}.nodeName`, nodeName, m));
  // A negative terminationGracePeriodSeconds is accepted (with a warning, ./pod-warnings.ts), as upstream.
  const deadline = spec['activeDeadlineSeconds'];
  if (typeof deadline === 'number' && (deadline < 1 || deadline > 2147483647)) {
    errs.push(fieldErrors.invalid(`${path}.activeDeadlineSeconds`, deadline, 'must be between 1 and 2147483647, inclusive'));
  }
  for (const f of ['hostname', 'subdomain']) {
    const v = str(spec[f]);
    if (v !== '') for (const m of isDNS1123Label(v)) errs.push(fieldErrors.invalid(`${path}.${f}`, v, m));
  }
  errs.push(...validateTolerations(spec['tolerations'], `${path}.tolerations`));
  return errs;
}
