// A pod's containers as kube-apiserver 1.32 validates them
// (validateContainerCommon, validateContainers, validateInitContainers and
// the checks beneath), in upstream's order, since the order is the order of
// the causes and of the message's list: name, image, termination message
// policy, ports, env, volume mounts, pull policy, resources, security
// context; then per kind: duplicate names, lifecycle and probes (forbidden
// on init containers unless they restart always), a regular container's
// restartPolicy; then host port conflicts.

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { isDNS1123Label, isQualifiedName, maxLenError } from '../../../machinery/validation.js';
import { isObject, list, str } from '../../loose.js';
import { privilegedAllowed } from './capabilities.js';
import { localDescendingPath } from './file-paths.js';
import { validateResourceRequirements } from './container-resources.js';

type Loose = Record<string, unknown>;

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
/** Container, service and endpoint port protocols. */
export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const SECCOMP_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const MAX_ID = 2147483647;

export function isValidPortNum(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** IsValidUserID / IsValidGroupID. */
export function idErrors(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && (value < 0 || value > MAX_ID) ? [fieldErrors.invalid(path, value, `must be between 0 and ${MAX_ID}, inclusive`)] : [];
}

function ports(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list(value).forEach((raw, i) => {
    const port = isObject(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = str(port['name']);
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const m of msgs) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
      else if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const containerPort = port['containerPort'] ?? 0;
    if (containerPort === 0) errs.push(fieldErrors.required(`${p}.containerPort`));
    else for (const m of isValidPortNum(containerPort)) errs.push(fieldErrors.invalid(`${p}.containerPort`, containerPort, m));
    const hostPort = port['hostPort'] ?? 0;
    if (hostPort !== 0) for (const m of isValidPortNum(hostPort)) errs.push(fieldErrors.invalid(`${p}.hostPort`, hostPort, m));
    const protocol = str(port['protocol']);
    if (protocol === '') errs.push(fieldErrors.required(`${p}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErrors.notSupported(`${p}.protocol`, protocol, PROTOCOLS));
  });
  return errs;
}

/** What a downward API fieldRef may name in an env var (after the label conversion). */
const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
/** The field labels a v1 pod converts (ConvertDownwardAPIFieldLabel). */
const POD_FIELD_LABELS = new Set([...ENV_FIELD_PATHS, 'metadata.annotations', 'metadata.labels', 'spec.restartPolicy', 'spec.schedulerName', 'status.phase']);

function fieldRef(ref: Loose, path: string): FieldError[] {
  const apiVersion = str(ref['apiVersion']);
  if (apiVersion === '') return [fieldErrors.required(`${path}.apiVersion`)];
  const fieldPath = str(ref['fieldPath']);
  if (fieldPath === '') return [fieldErrors.required(`${path}.fieldPath`)];
  const subscripted = /^(metadata\.(?:annotations|labels))\['(.*)'\]$/.exec(fieldPath);
  const base = subscripted?.[1] ?? fieldPath;
  if (apiVersion !== 'v1') return [fieldErrors.invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: unsupported pod version: ${apiVersion}`)];
  if (!POD_FIELD_LABELS.has(base)) return [fieldErrors.invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)];
  if (subscripted !== undefined && subscripted !== null) {
    const key = subscripted[1] === 'metadata.annotations' ? subscripted[2]!.toLowerCase() : subscripted[2]!;
    return isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));
  }
  return ENV_FIELD_PATHS.includes(fieldPath) ? [] : [fieldErrors.notSupported(`${path}.fieldPath`, fieldPath, ENV_FIELD_PATHS)];
}

function env(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list(value).forEach((raw, i) => {
    const ev = isObject(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = str(ev['name']);
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    // RelaxedEnvironmentVariableValidation (beta, on in 1.32): printable ASCII except '='.
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    const from = ev['valueFrom'];
    if (!isObject(from)) return;
    const vp = `${p}.valueFrom`;
    let sources = 0;
    if (isObject(from['fieldRef'])) {
      sources++;
      errs.push(...fieldRef(from['fieldRef'], `${vp}.fieldRef`));
    }
    for (const key of ['resourceFieldRef', 'configMapKeyRef', 'secretKeyRef']) if (isObject(from[key])) sources++;
    if (sources === 0) errs.push(fieldErrors.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (str(ev['value']) !== '') errs.push(fieldErrors.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(fieldErrors.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}


function volumeMounts(value: unknown, volumes: ReadonlySet<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  list(value).forEach((raw, i) => {
    const m = isObject(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = str(m['name']);
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    if (!volumes.has(name)) errs.push(fieldErrors.notFound(`${p}.name`, name));
    const mountPath = str(m['mountPath']);
    if (mountPath === '') errs.push(fieldErrors.required(`${p}.mountPath`));
    if (mountPoints.has(mountPath)) errs.push(fieldErrors.invalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    // Upstream reports subPath problems under the list's path, not the item's.
    const subPath = str(m['subPath']);
    if (subPath !== '') errs.push(...localDescendingPath(subPath, `${path}.subPath`));
    const subPathExpr = str(m['subPathExpr']);
    if (subPathExpr !== '') {
      if (subPath !== '') errs.push(fieldErrors.invalid(`${p}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...localDescendingPath(subPathExpr, `${path}.subPathExpr`));
    }
  });
  return errs;
}

function seccompProfile(value: unknown, path: string): FieldError[] {
  if (!isObject(value)) return [];
  const errs: FieldError[] = [];
  const type = str(value['type']);
  if (type === '') errs.push(fieldErrors.required(`${path}.type`));
  else if (!SECCOMP_TYPES.includes(type)) errs.push(fieldErrors.notSupported(`${path}.type`, type, SECCOMP_TYPES));
  const localhost = value['localhostProfile'];
  if (type === 'Localhost') {
    if (typeof localhost !== 'string') errs.push(fieldErrors.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPath(localhost, `${path}.localhostProfile`));
  }
  return errs;
}

export { seccompProfile as validateSeccompProfileField };

function securityContext(value: unknown, path: string): FieldError[] {
  if (!isObject(value)) return [];
  const errs: FieldError[] = [];
  if (value['privileged'] === true && !privilegedAllowed()) errs.push(fieldErrors.forbidden(`${path}.privileged`, 'disallowed by cluster policy'));
  errs.push(...idErrors(value['runAsUser'], `${path}.runAsUser`), ...idErrors(value['runAsGroup'], `${path}.runAsGroup`));
  errs.push(...seccompProfile(value['seccompProfile'], `${path}.seccompProfile`));
  return errs;
}

function handler(h: Loose, path: string, kinds: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = h[kind];
    if (!isObject(action)) continue;
    if (count > 0) {
      errs.push(fieldErrors.forbidden(`${path}.${kind}`, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const p = `${path}.${kind}`;
    if (kind === 'exec' && list(action['command']).length === 0) errs.push(fieldErrors.required(`${p}.command`));
    if (kind === 'httpGet' && str(action['path']) === '') errs.push(fieldErrors.required(`${p}.path`));
    if (kind === 'httpGet' || kind === 'tcpSocket' || kind === 'grpc') {
      const port = action['port'];
      const msgs = typeof port === 'string' ? isValidPortName(port) : isValidPortNum(port ?? 0);
      for (const m of msgs) errs.push(fieldErrors.invalid(`${p}.port`, port ?? 0, m));
    }
    if (kind === 'httpGet' && !['HTTP', 'HTTPS'].includes(str(action['scheme']))) errs.push(fieldErrors.notSupported(`${p}.scheme`, action['scheme'] ?? '', ['HTTP', 'HTTPS']));
  }
  if (count === 0) errs.push(fieldErrors.required(path, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function probe(value: unknown, path: string, kind: 'liveness' | 'readiness' | 'startup'): FieldError[] {
  if (!isObject(value)) return [];
  const errs = handler(value, path, PROBE_HANDLERS);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const n = value[f];
    if (typeof n === 'number' && n < 0) errs.push(fieldErrors.invalid(`${path}.${f}`, n, 'must be greater than or equal to 0'));
  }
  const grace = value['terminationGracePeriodSeconds'];
  if (typeof grace === 'number' && grace <= 0) errs.push(fieldErrors.invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must be greater than 0'));
  if (kind !== 'readiness' && (value['successThreshold'] ?? 1) !== 1) errs.push(fieldErrors.invalid(`${path}.successThreshold`, value['successThreshold'], 'must be 1'));
  if (kind === 'readiness' && grace !== undefined && grace !== null) errs.push(fieldErrors.invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must not be set for readinessProbes'));
  return errs;
}

function lifecycleAndProbes(c: Loose, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const lifecycle = c['lifecycle'];
  if (isObject(lifecycle)) {
    for (const hook of ['postStart', 'preStop']) if (isObject(lifecycle[hook])) errs.push(...handler(lifecycle[hook], `${p}.lifecycle.${hook}`, LIFECYCLE_HANDLERS));
  }
  errs.push(...probe(c['livenessProbe'], `${p}.livenessProbe`, 'liveness'));
  errs.push(...probe(c['readinessProbe'], `${p}.readinessProbe`, 'readiness'));
  errs.push(...probe(c['startupProbe'], `${p}.startupProbe`, 'startup'));
  return errs;
}

function common(c: Loose, p: string, volumes: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c['name']);
  if (name === '') errs.push(fieldErrors.required(`${p}.name`));
  else for (const m of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
  if (str(c['image']) === '') errs.push(fieldErrors.required(`${p}.image`));
  const tmp = str(c['terminationMessagePolicy']);
  if (tmp === '') errs.push(fieldErrors.required(`${p}.terminationMessagePolicy`));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(tmp)) errs.push(fieldErrors.notSupported(`${p}.terminationMessagePolicy`, tmp, TERMINATION_MESSAGE_POLICIES));
  errs.push(...ports(c['ports'], `${p}.ports`));
  errs.push(...env(c['env'], `${p}.env`));
  errs.push(...volumeMounts(c['volumeMounts'], volumes, `${p}.volumeMounts`));
  const pull = str(c['imagePullPolicy']);
  if (pull === '') errs.push(fieldErrors.required(`${p}.imagePullPolicy`));
  else if (!PULL_POLICIES.includes(pull)) errs.push(fieldErrors.notSupported(`${p}.imagePullPolicy`, pull, PULL_POLICIES));
  errs.push(...validateResourceRequirements(c['resources'] as Parameters<typeof validateResourceRequirements>[0], `${p}.resources`));
  errs.push(...securityContext(c['securityContext'], `${p}.securityContext`));
  return errs;
}

/** AccumulateUniqueHostPorts over one list of containers. */
function hostPortConflicts(containers: Loose[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    list(c['ports']).forEach((raw, pi) => {
      const port = isObject(raw) ? raw : {};
      const hostPort = port['hostPort'];
      if (typeof hostPort !== 'number' || hostPort === 0) return;
      const key = `${str(port['protocol'])}/${str(port['hostIP'])}/${hostPort}`;
      if (seen.has(key)) errs.push(fieldErrors.duplicate(`${path}[${ci}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

const containersOf = (v: unknown): Loose[] => list(v).map((c) => (isObject(c) ? c : {}));

/** Regular containers, then init containers, as ValidatePodSpec calls them. */
export function validatePodContainers(spec: Loose, path: string, volumes: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const containers = containersOf(spec['containers']);
  if (containers.length === 0) errs.push(fieldErrors.required(`${path}.containers`));
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}.containers[${i}]`;
    errs.push(...common(c, p, volumes));
    const name = str(c['name']);
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else names.add(name);
    errs.push(...lifecycleAndProbes(c, p));
    if (c['restartPolicy'] !== undefined && c['restartPolicy'] !== null) errs.push(fieldErrors.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(containers, `${path}.containers`));

  containersOf(spec['initContainers']).forEach((c, i) => {
    const p = `${path}.initContainers[${i}]`;
    errs.push(...common(c, p, volumes));
    const restart = c['restartPolicy'];
    if (restart !== undefined && restart !== null && restart !== 'Always') errs.push(fieldErrors.notSupported(`${p}.restartPolicy`, restart, ['Always']));
    const name = str(c['name']);
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else if (name !== '') names.add(name);
    errs.push(...hostPortConflicts([c], `${path}.initContainers`));
    if (restart === 'Always') errs.push(...lifecycleAndProbes(c, p));
    else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[f] !== undefined && c[f] !== null) errs.push(fieldErrors.forbidden(`${p}.${f}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}
