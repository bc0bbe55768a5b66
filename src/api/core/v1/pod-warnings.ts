// The warnings kube-apiserver 1.32 sends back on a pod write and on a write of
// any workload with a pod template (upstream pkg/api/pod/warnings.go and the
// kinds' WarningsOnCreate/WarningsOnUpdate): deprecated node labels and
// annotations, deprecated volume plugins, duplicates that apply would drop,
// fractional byte quantities, port clashes. The write is never refused.
//
// Clients print these texts, so they are upstream's word for word. One pass
// over the spec: linear in the pod's size.
import type { KubeObject } from '../../../machinery/meta.js';
import { parseQuantity } from '../../../machinery/quantity.js';
import { isDNS1123Label } from '../../../machinery/validation.js';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** field.Path's printing: `a.b`, `a[0]`, `a[key]`; the root is the empty path. */
const child = (path: string, ...names: string[]): string => (path === '' ? names.join('.') : `${path}.${names.join('.')}`);
const at = (path: string, i: number | string): string => `${path}[${i}]`;

/** Upstream's deprecated node labels (pkg/api/node). */
const DEPRECATED_NODE_LABELS: ReadonlyMap<string, string> = new Map([
  ['beta.kubernetes.io/arch', 'deprecated since v1.14; use "kubernetes.io/arch" instead'],
  ['beta.kubernetes.io/os', 'deprecated since v1.14; use "kubernetes.io/os" instead'],
  ['failure-domain.beta.kubernetes.io/region', 'deprecated since v1.17; use "topology.kubernetes.io/region" instead'],
  ['failure-domain.beta.kubernetes.io/zone', 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead'],
  ['beta.kubernetes.io/instance-type', 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead'],
  ['app.kubernetes.io/created-by', 'deprecated since v1.9'],
  ['scheduler.alpha.kubernetes.io/preferAvoidPods', 'deprecated since v1.22; use Taints and Tolerations instead'],
  ['node-role.kubernetes.io/master', 'use "node-role.kubernetes.io/control-plane" instead'],
]);

const DEPRECATED_ANNOTATIONS: readonly [string, string][] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

/** Deprecated and removed volume plugins (v1 field names), in upstream's order. */
const DEPRECATED_VOLUMES: readonly [string, string][] = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageos', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['ephemeral', ''],
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_CONTAINER_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** The quantity's canonical text when it has a fraction of a unit (MilliValue not a multiple of 1000), else undefined. */
function fractional(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const q = parseQuantity(value);
    return q.milliValue() % 1000n === 0n ? undefined : q.toString();
  } catch {
    return undefined;
  }
}

function fractionalByte(path: string, value: unknown, out: string[]): void {
  const text = fractional(value);
  if (text !== undefined) out.push(`${path}: fractional byte value ${JSON.stringify(text)} is invalid, must be an integer`);
}

/** Upstream's GetWarningsForPersistentVolumeClaimSpec. */
export function pvcSpecWarnings(path: string, spec: unknown): string[] {
  const out: string[] = [];
  const resources = obj(obj(spec)?.['resources']);
  fractionalByte(child(path, 'resources', 'requests') + '[storage]', obj(resources?.['requests'])?.['storage'], out);
  fractionalByte(child(path, 'resources', 'limits') + '[storage]', obj(resources?.['limits'])?.['storage'], out);
  return out;
}

function nodeSelectorTermWarnings(term: unknown, path: string, out: string[]): void {
  list(obj(term)?.['matchExpressions']).forEach((e, i) => {
    const key = str(obj(e)?.['key']);
    const msg = DEPRECATED_NODE_LABELS.get(key);
    if (msg !== undefined) out.push(`${child(at(child(path, 'matchExpressions'), i), 'key')}: ${key} is ${msg}`);
  });
}

/** Upstream's overlap test: equal paths, or one a prefix of the other followed by a separator (an empty path overlaps nothing). */
function overlap(a: string, b: string): boolean {
  if (a === '' || b === '') return false;
  return a === b || `${a}/`.startsWith(b) || `${b}/`.startsWith(a);
}

/** A ConfigMap, Secret or DownwardAPI volume's paths: each against every earlier one it collides with. */
function overlaps(paths: string[], message: string, out: string[]): void {
  const seen: string[] = [];
  for (const path of paths) {
    const normalized = path.replace(/\/+$/, '');
    for (const item of seen) if (overlap(item, normalized)) out.push(`${message}: ${JSON.stringify(normalized)} with ${JSON.stringify(item)}`);
    seen.push(normalized);
  }
}

const itemPaths = (source: Obj | undefined): string[] | undefined => (Array.isArray(source?.['items']) ? (source['items'] as unknown[]).map((i) => str(obj(i)?.['path'])) : undefined);

/** A projected source's paths and how a warning names it; undefined for a source of no known kind. */
function projectedPaths(s: Obj): { paths: string[]; from: string } | undefined {
  const cm = obj(s['configMap']);
  const sec = obj(s['secret']);
  const down = obj(s['downwardAPI']);
  const token = obj(s['serviceAccountToken']);
  const bundle = obj(s['clusterTrustBundle']);
  if (itemPaths(cm) !== undefined) return { paths: itemPaths(cm)!, from: `ConfigMap ${JSON.stringify(str(cm!['name']))}` };
  if (itemPaths(sec) !== undefined) return { paths: itemPaths(sec)!, from: `Secret ${JSON.stringify(str(sec!['name']))}` };
  if (itemPaths(down) !== undefined) return { paths: itemPaths(down)!, from: 'DownwardAPI' };
  if (token !== undefined) return { paths: [str(token['path'])], from: 'ServiceAccountToken' };
  if (bundle !== undefined) {
    const name = typeof bundle['name'] === 'string' ? bundle['name'] : str(bundle['signerName']);
    return { paths: [str(bundle['path'])], from: `ClusterTrustBundle ${JSON.stringify(name)}` };
  }
  return undefined;
}

/** Upstream's warningsForOverlappingVirtualPaths: paths of one volume that collide (a file where another wants a directory). */
function overlappingPathWarnings(volumes: Obj[]): string[] {
  const out: string[] = [];
  for (const v of volumes) {
    const name = JSON.stringify(str(v['name']));
    const configMap = obj(v['configMap']);
    const cmPaths = itemPaths(configMap);
    if (cmPaths !== undefined) overlaps(cmPaths, `volume ${name} (ConfigMap ${JSON.stringify(str(configMap?.['name']))}): overlapping paths`, out);
    const secret = obj(v['secret']);
    const secretPaths = itemPaths(secret);
    if (secretPaths !== undefined) overlaps(secretPaths, `volume ${name} (Secret ${JSON.stringify(str(secret?.['secretName']))}): overlapping paths`, out);
    const downwardPaths = itemPaths(obj(v['downwardAPI']));
    if (downwardPaths !== undefined) overlaps(downwardPaths, `volume ${name} (DownwardAPI): overlapping paths`, out);
    const projected = obj(v['projected']);
    if (projected === undefined) continue;
    // Every path against every earlier one of the volume. As upstream, a source of
    // no known kind (a config map without items) counts the previous source's paths again.
    let current: { paths: string[]; from: string } = { paths: [], from: '' };
    const all: { path: string; from: string }[] = [];
    for (const s of list(projected['sources']).map((x) => obj(x) ?? {})) {
      if (Object.keys(s).length === 0) {
        out.push(`volume ${name} (Projected) has no sources provided`);
        continue;
      }
      current = projectedPaths(s) ?? current;
      for (const path of current.paths) {
        const normalized = path.replace(/\/+$/, '');
        for (const earlier of all) {
          if (overlap(earlier.path, normalized)) {
            out.push(`volume ${name} (Projected): overlapping paths: ${JSON.stringify(normalized)} (${current.from}) with ${JSON.stringify(earlier.path)} (${earlier.from})`);
          }
        }
        all.push({ path: normalized, from: current.from });
      }
    }
  }
  return out;
}

/** Go's %+v of the internal ContainerPort (field order Name, HostPort, ContainerPort, Protocol, HostIP). */
const goPort = (p: Obj): string =>
  `{Name:${str(p['name'])} HostPort:${num(p['hostPort'])} ContainerPort:${num(p['containerPort'])} Protocol:${str(p['protocol'])} HostIP:${str(p['hostIP'])}}`;

/** Upstream's warningsForPodSpecAndMeta: `path` is '' for a pod, the template's path otherwise. */
function specAndMetaWarnings(path: string, specValue: unknown, metaValue: unknown): string[] {
  const out: string[] = [];
  const spec = obj(specValue) ?? {};
  const annotations = obj(obj(metaValue)?.['annotations']) ?? {};
  const specPath = child(path, 'spec');
  const annotationsPath = child(path, 'metadata', 'annotations');
  const has = (key: string): boolean => Object.hasOwn(annotations, key);

  for (const key of Object.keys(obj(spec['nodeSelector']) ?? {})) {
    const msg = DEPRECATED_NODE_LABELS.get(key);
    if (msg !== undefined) out.push(`${at(child(specPath, 'nodeSelector'), key)}: ${msg}`);
  }
  const affinity = obj(spec['affinity']);
  const nodeAffinity = obj(affinity?.['nodeAffinity']);
  if (nodeAffinity !== undefined) {
    const required = obj(nodeAffinity['requiredDuringSchedulingIgnoredDuringExecution']);
    if (required !== undefined) {
      const termsPath = child(specPath, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
      list(required['nodeSelectorTerms']).forEach((t, i) => nodeSelectorTermWarnings(t, at(termsPath, i), out));
    }
    const preferredPath = child(specPath, 'affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution');
    list(nodeAffinity['preferredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) =>
      nodeSelectorTermWarnings(obj(t)?.['preference'], child(at(preferredPath, i), 'preference'), out),
    );
  }
  list(spec['topologySpreadConstraints']).forEach((c, i) => {
    const constraint = obj(c) ?? {};
    const cPath = at(child(specPath, 'topologySpreadConstraints'), i);
    const key = str(constraint['topologyKey']);
    const msg = DEPRECATED_NODE_LABELS.get(key);
    if (msg !== undefined) out.push(`${child(cPath, 'topologyKey')}: ${key} is ${msg}`);
    if (obj(constraint['labelSelector']) === undefined) out.push(`${child(cPath, 'labelSelector')}: a null labelSelector results in matching no pod`);
  });

  for (const [key, message] of DEPRECATED_ANNOTATIONS) if (has(key)) out.push(`${at(annotationsPath, key)}: ${message}`);

  const volumes = list(spec['volumes']).map((v) => obj(v) ?? {});
  volumes.forEach((v, i) => {
    const vPath = at(child(specPath, 'volumes'), i);
    for (const [source, message] of DEPRECATED_VOLUMES) {
      if (obj(v[source]) === undefined) continue;
      // v1's "storageos" is the internal type's StorageOS, which the path names.
      if (source !== 'ephemeral') out.push(`${child(vPath, source === 'storageos' ? 'storageOS' : source)}: ${message}`);
      else {
        const template = obj(obj(v[source])?.['volumeClaimTemplate']);
        if (template !== undefined) out.push(...pvcSpecWarnings(child(vPath, 'ephemeral', 'volumeClaimTemplate', 'spec'), template['spec']));
      }
    }
  });

  out.push(...overlappingPathWarnings(volumes));

  const duplicates = (items: unknown[], field: string, what: string, listPath: string): void => {
    if (items.length < 2) return;
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const value = str(obj(item)?.[field]);
      if (seen.has(value)) out.push(`${child(at(listPath, i), field)}: duplicate ${what} ${JSON.stringify(value)}`);
      else seen.add(value);
    });
  };
  duplicates(list(spec['hostAliases']), 'ip', 'ip', child(specPath, 'hostAliases'));
  const pullSecrets = list(spec['imagePullSecrets']);
  duplicates(pullSecrets, 'name', 'name', child(specPath, 'imagePullSecrets'));
  pullSecrets.forEach((item, i) => {
    const name = str(obj(item)?.['name']);
    if (name === '') out.push(`${child(at(child(specPath, 'imagePullSecrets'), i), 'name')}: invalid empty name ""`);
  });

  const overhead = obj(spec['overhead']);
  fractionalByte(at(child(specPath, 'overhead'), 'memory'), overhead?.['memory'], out);
  fractionalByte(at(child(specPath, 'overhead'), 'ephemeral-storage'), overhead?.['ephemeral-storage'], out);

  const podSecurity = obj(spec['securityContext']);
  if (obj(podSecurity?.['seccompProfile']) === undefined && has(SECCOMP_POD)) {
    out.push(`${at(annotationsPath, SECCOMP_POD)}: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const podAppArmor = obj(podSecurity?.['appArmorProfile']) !== undefined;

  // VisitContainersWithPath's order: init containers, containers, ephemeral containers.
  const containers: [Obj, string][] = [];
  for (const kind of ['initContainers', 'containers', 'ephemeralContainers']) {
    list(spec[kind]).forEach((c, i) => containers.push([obj(c) ?? {}, at(child(specPath, kind), i)]));
  }
  for (const [c, cPath] of containers) {
    const name = str(c['name']);
    const security = obj(c['securityContext']);
    if (obj(security?.['seccompProfile']) === undefined && has(SECCOMP_CONTAINER_PREFIX + name)) {
      out.push(`${at(annotationsPath, SECCOMP_CONTAINER_PREFIX + name)}: non-functional in v1.27+; use the "seccompProfile" field instead`);
    }
    // A pod's own AppArmor annotations are synced to fields instead (upstream warns only for templates).
    if (path !== '' && !podAppArmor && obj(security?.['appArmorProfile']) === undefined && has(APPARMOR_CONTAINER_PREFIX + name)) {
      out.push(`${at(annotationsPath, APPARMOR_CONTAINER_PREFIX + name)}: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    const resources = obj(c['resources']);
    const limits = obj(resources?.['limits']);
    const requests = obj(resources?.['requests']);
    for (const resource of ['memory', 'ephemeral-storage']) {
      fractionalByte(at(child(cPath, 'resources', 'limits'), resource), limits?.[resource], out);
      fractionalByte(at(child(cPath, 'resources', 'requests'), resource), requests?.[resource], out);
    }
    const env = list(c['env']).map((e) => obj(e) ?? {});
    if (env.length > 1) {
      const names = new Set<string>();
      env.forEach((item, i) => {
        const envName = str(item['name']);
        if (!names.has(envName)) {
          names.add(envName);
          return;
        }
        const ref = `$(${envName})`;
        const value = str(item['value']);
        if (obj(item['valueFrom']) !== undefined || value === ref || !value.includes(ref)) {
          out.push(`${at(child(cPath, 'env'), i)}: hides previous definition of ${JSON.stringify(envName)}, which may be dropped when using apply`);
        }
      });
    }
  }

  const allPorts = new Map<string, { path: string; port: Obj }[]>();
  for (const [c, cPath] of containers) {
    list(c['ports']).forEach((p, i) => {
      const port = obj(p) ?? {};
      const portPath = at(child(cPath, 'ports'), i);
      const hostIP = str(port['hostIP']);
      const hostPort = num(port['hostPort']);
      if (hostIP !== '' && hostPort === 0) out.push(`${portPath}: hostIP set without hostPort: ${goPort(port)}`);
      const key = `${num(port['containerPort'])}/${str(port['protocol'])}`;
      const others = allPorts.get(key);
      if (others === undefined) {
        allPorts.set(key, [{ path: portPath, port }]);
        return;
      }
      for (const other of others) {
        const otherIP = str(other.port['hostIP']);
        const otherPort = num(other.port['hostPort']);
        if (hostIP === otherIP && hostPort === otherPort) out.push(`${portPath}: duplicate port definition with ${other.path}`);
        else if (hostPort === 0 || otherPort === 0) out.push(`${portPath}: overlapping port definition with ${other.path}`);
        else if (hostPort === otherPort && (hostIP === '') !== (otherIP === '')) out.push(`${portPath}: dangerously ambiguous port definition with ${other.path}`);
      }
      others.push({ path: portPath, port });
    });
  }

  const grace = spec['terminationGracePeriodSeconds'];
  if (typeof grace === 'number' && grace < 0) {
    out.push(`${child(specPath, 'terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`);
  }

  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const podAffinity = obj(affinity?.[kind]);
    if (podAffinity === undefined) continue;
    const requiredPath = child(specPath, 'affinity', kind, 'requiredDuringSchedulingIgnoredDuringExecution');
    list(podAffinity['requiredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      if (obj(obj(t)?.['labelSelector']) === undefined) out.push(`${child(at(requiredPath, i), 'labelSelector')}: a null labelSelector results in matching no pod`);
    });
    const preferredPath = child(specPath, 'affinity', kind, 'preferredDuringSchedulingIgnoredDuringExecution');
    list(podAffinity['preferredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      if (obj(obj(obj(t)?.['podAffinityTerm'])?.['labelSelector']) === undefined) {
        out.push(`${child(at(preferredPath, i), 'podAffinityTerm', 'labelSelector')}: a null labelSelector results in matching no pod`);
      }
    });
  }
  return out;
}

/** Upstream's GetWarningsForPodTemplate (the template at `path`; absent → none). */
export function podTemplateWarnings(path: string, template: unknown): string[] {
  const t = obj(template);
  return t === undefined ? [] : specAndMetaWarnings(path, t['spec'], t['metadata']);
}

/** The name warning of the workloads whose pods are named after them. */
function nameWarnings(o: KubeObject, what: string): string[] {
  const msgs = isDNS1123Label(o.metadata.name ?? '');
  return msgs.length === 0 ? [] : [`metadata.name: this is used in ${what}, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
}

const POD_NAMES = 'Pod names and hostnames';
const specOf = (o: KubeObject): Obj => obj(o['spec']) ?? {};
const generationChanged = (o: KubeObject, old: KubeObject): boolean => (o.metadata.generation ?? 0) !== (old.metadata.generation ?? 0);

/** A pod's create warnings (upstream warns nothing on a pod update: a high-frequency path). */
export function podWarnings(o: KubeObject): string[] {
  return [...nameWarnings(o, "the Pod's hostname"), ...specAndMetaWarnings('', o['spec'], o.metadata)];
}

/** The WarningsOnCreate/WarningsOnUpdate pair of a kind whose pod template is at spec.template. */
export function templateWarningsHooks(named: boolean): {
  warningsOnCreate: (o: KubeObject) => string[];
  warningsOnUpdate: (o: KubeObject, old: KubeObject) => string[];
} {
  return {
    warningsOnCreate: (o) => [...(named ? nameWarnings(o, POD_NAMES) : []), ...podTemplateWarnings('spec.template', specOf(o)['template'])],
    warningsOnUpdate: (o, old) => (generationChanged(o, old) ? podTemplateWarnings('spec.template', specOf(o)['template']) : []),
  };
}

/** DaemonSets: warned on create, and on an update only when the template changed (its template generation moved). */
export function daemonSetWarnings(templateGeneration: string): {
  warningsOnCreate: (o: KubeObject) => string[];
  warningsOnUpdate: (o: KubeObject, old: KubeObject) => string[];
} {
  return {
    warningsOnCreate: (o) => podTemplateWarnings('spec.template', specOf(o)['template']),
    warningsOnUpdate: (o, old) =>
      o.metadata.annotations?.[templateGeneration] !== old.metadata.annotations?.[templateGeneration] ? podTemplateWarnings('spec.template', specOf(o)['template']) : [],
  };
}

/** Upstream's ReplicationController hooks: its update warnings look at the old template (upstream passes the two in swapped order). */
export const replicationControllerWarnings = {
  warningsOnCreate: (o: KubeObject): string[] => [...nameWarnings(o, POD_NAMES), ...podTemplateWarnings('spec.template', specOf(o)['template'])],
  warningsOnUpdate: (o: KubeObject, old: KubeObject): string[] =>
    generationChanged(o, old) ? podTemplateWarnings('spec.template', specOf(old)['template']) : [],
};

/** PodTemplates: the template at `template`. */
export const podTemplateObjectWarnings = {
  warningsOnCreate: (o: KubeObject): string[] => podTemplateWarnings('template', o['template']),
  warningsOnUpdate: (o: KubeObject, old: KubeObject): string[] => (generationChanged(o, old) ? podTemplateWarnings('template', o['template']) : []),
};

/** StatefulSets: the template, then the claim templates (on update at a `.Spec` path, as upstream prints it). */
export const statefulSetWarnings = {
  warningsOnCreate: (o: KubeObject): string[] => statefulSetExtra(o, '', podTemplateWarnings('spec.template', specOf(o)['template'])),
  warningsOnUpdate: (o: KubeObject, old: KubeObject): string[] =>
    statefulSetExtra(o, 'Spec', generationChanged(o, old) ? podTemplateWarnings('spec.template', specOf(o)['template']) : []),
};

function statefulSetExtra(o: KubeObject, claimChild: string, out: string[]): string[] {
  const spec = specOf(o);
  list(spec['volumeClaimTemplates']).forEach((c, i) => {
    const p = at('spec.volumeClaimTemplates', i);
    out.push(...pvcSpecWarnings(claimChild === '' ? p : child(p, claimChild), obj(c)?.['spec']));
  });
  return out;
}

const INDEXED_LIMITS =
  'In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail';

/** Upstream's WarningsForJobSpec: the Indexed Job soft limits, then the template. */
function jobSpecWarnings(path: string, specValue: unknown): string[] {
  const spec = obj(specValue) ?? {};
  const out: string[] = [];
  if (spec['completionMode'] === 'Indexed' && num(spec['completions']) > 100_000 && num(spec['parallelism']) > 10_000) out.push(`${path}: ${INDEXED_LIMITS}`);
  out.push(...podTemplateWarnings(child(path, 'template'), spec['template'] ?? {}));
  return out;
}

export const jobWarnings = {
  warningsOnCreate: (o: KubeObject): string[] => [...nameWarnings(o, POD_NAMES), ...jobSpecWarnings('spec', o['spec'])],
  warningsOnUpdate: (o: KubeObject, old: KubeObject): string[] => (generationChanged(o, old) ? jobSpecWarnings('spec', o['spec']) : []),
};

const jobTemplateSpec = (o: KubeObject): unknown => obj(specOf(o)['jobTemplate'])?.['spec'];

/** CronJobs: the job template's spec; on update also a TZ in the schedule (at upstream's "spec.spec.schedule"). */
export const cronJobWarnings = {
  warningsOnCreate: (o: KubeObject): string[] => [...nameWarnings(o, POD_NAMES), ...jobSpecWarnings('spec.jobTemplate.spec', jobTemplateSpec(o))],
  warningsOnUpdate: (o: KubeObject, old: KubeObject): string[] => {
    const out = generationChanged(o, old) ? jobSpecWarnings('spec.jobTemplate.spec', jobTemplateSpec(o)) : [];
    if (str(specOf(o)['schedule']).includes('TZ')) {
      out.push('cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details');
    }
    return out;
  },
};
