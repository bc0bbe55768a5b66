// The PodSecurity admission plugin (upstream staging/src/k8s.io/pod-security-admission/admission):
// a namespace's `pod-security.kubernetes.io/{enforce,audit,warn}` labels (each with a
// `-version`) pick a Pod Security Standard level (privileged, baseline, restricted)
// per mode. Pods are refused when they violate the enforce level; the warn level
// becomes a Warning header and the audit level an audit annotation. Workloads with a
// pod template (Deployments, ReplicationControllers) are warned and audited, never
// refused. A namespace whose enforce level changes gets warnings naming its existing
// pods that violate the new level. Exemptions (AdmissionConfiguration) are not read.

import { forbidden, invalid } from '../../machinery/errors.js';
import { fieldErrors } from '../../machinery/field-errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../registry/admission.js';
import type { RESTStore } from '../../registry/rest.js';
import { describe, evaluatePod, type Level, type PodMetaLike, type Version } from './checks.js';
import { deepCopy } from '../../machinery/deep-copy.js';

const PREFIX = 'pod-security.kubernetes.io/';
const LEVELS: Level[] = ['privileged', 'baseline', 'restricted'];
const LATEST: Version = { major: Number.POSITIVE_INFINITY, minor: 0 };
/** Existing pods checked when a namespace's enforce level changes (upstream's limit). */
const MAX_PODS_CHECKED = 3000;

interface ModePolicy {
  level: Level;
  version: Version;
  text: string;
}

type Mode = 'enforce' | 'audit' | 'warn';

function parseVersion(v: string | undefined): Version | undefined {
  if (v === undefined || v === 'latest') return LATEST;
  const m = /^v(\d+)\.(\d+)$/.exec(v);
  return m === null ? undefined : { major: Number(m[1]), minor: Number(m[2]) };
}

/** The policy of one mode from namespace labels; an invalid value is reported (errors) and fails closed. */
function modePolicy(labels: Record<string, string>, mode: Mode, errors?: ReturnType<typeof fieldErrors.invalid>[]): ModePolicy {
  const levelText = labels[PREFIX + mode];
  const versionText = labels[`${PREFIX}${mode}-version`];
  let level: Level = 'privileged';
  let invalidLabel = false;
  if (levelText !== undefined) {
    if ((LEVELS as string[]).includes(levelText)) level = levelText as Level;
    else {
      invalidLabel = true;
      errors?.push(fieldErrors.invalid(`metadata.labels[${PREFIX}${mode}]`, levelText, 'must be one of privileged, baseline, restricted'));
    }
  }
  let version = parseVersion(versionText);
  if (version === undefined) {
    errors?.push(fieldErrors.invalid(`metadata.labels[${PREFIX}${mode}-version]`, versionText, 'must be "latest" or "v1.x"'));
    version = LATEST;
    invalidLabel = true;
  }
  if (invalidLabel) return { level: 'restricted', version: LATEST, text: 'restricted:latest' };
  const vtext = versionText === undefined || versionText === 'latest' ? 'latest' : versionText;
  return { level, version, text: `${level}:${vtext}` };
}

interface PodParts {
  meta: PodMetaLike;
  spec: Record<string, unknown>;
}

function templateOf(a: AdmissionAttributes): PodParts | undefined {
  const o = a.object as Record<string, unknown> | undefined;
  const spec = o?.['spec'] as Record<string, unknown> | undefined;
  const tpl = spec?.['template'] as Record<string, unknown> | undefined;
  if (tpl === undefined || tpl === null) return undefined;
  return { meta: (tpl['metadata'] as PodMetaLike | undefined) ?? {}, spec: (tpl['spec'] as Record<string, unknown> | undefined) ?? {} };
}

/** Kinds whose pod template is checked (warn and audit only), as upstream's PodSpecExtractor. */
const TEMPLATE_RESOURCES = new Set(['/replicationcontrollers', '/podtemplates', 'apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs']);

/** Upstream ignores pod updates that change only metadata or container images. */
function significantPodUpdate(a: AdmissionAttributes): boolean {
  if (a.oldObject === undefined || a.object === undefined) return true;
  const strip = (o: KubeObject): string => {
    const spec = deepCopy((o['spec'] as Record<string, unknown>) ?? {});
    for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
      for (const c of (spec[key] as Record<string, unknown>[] | undefined) ?? []) delete c['image'];
    }
    return JSON.stringify(spec);
  };
  if (strip(a.object) !== strip(a.oldObject)) return true;
  // annotations that some checks read (AppArmor, seccomp) count
  return JSON.stringify(a.object.metadata.annotations ?? {}) !== JSON.stringify(a.oldObject.metadata.annotations ?? {});
}

export class PodSecurityAdmission implements AdmissionPlugin {
  readonly name = 'PodSecurity';
  readonly resources: ReadonlySet<string> = new Set(['/namespaces', '/pods', ...TEMPLATE_RESOURCES]);

  constructor(private readonly stores: { namespaces: () => RESTStore | undefined; pods: () => RESTStore | undefined }) {}

  private async namespaceLabels(name: string): Promise<Record<string, string> | undefined> {
    const store = this.stores.namespaces();
    if (store === undefined || name === '') return undefined;
    const cached = store.getCached('', name) as KubeObject | undefined;
    if (cached !== undefined) return cached.metadata.labels ?? {};
    try {
      return (await store.get('', name, {})).metadata.labels ?? {};
    } catch {
      return undefined;
    }
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    const key = `${a.resource.group}/${a.resource.resource}`;
    if (key === '/namespaces') return this.validateNamespace(a);
    if (key === '/pods') {
      if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return;
      if (a.operation === 'UPDATE' && a.subresource === '' && !significantPodUpdate(a)) return;
      const labels = await this.namespaceLabels(a.namespace);
      if (labels === undefined || !Object.keys(labels).some((k) => k.startsWith(PREFIX))) return;
      const o = a.object as Record<string, unknown>;
      return this.judge(a, labels, { meta: a.object?.metadata ?? {}, spec: (o['spec'] as Record<string, unknown>) ?? {} }, true);
    }
    if (TEMPLATE_RESOURCES.has(key) && a.subresource === '') {
      const parts = templateOf(a);
      if (parts === undefined) return;
      const labels = await this.namespaceLabels(a.namespace);
      if (labels === undefined || !Object.keys(labels).some((k) => k.startsWith(PREFIX))) return;
      return this.judge(a, labels, parts, false);
    }
  }

  private judge(a: AdmissionAttributes, labels: Record<string, string>, pod: PodParts, enforce: boolean): void {
    const enforcePolicy = modePolicy(labels, 'enforce');
    const evaluated = new Map<string, string>();
    const violations = (p: ModePolicy): string => {
      let v = evaluated.get(p.text);
      if (v === undefined) {
        v = describe(evaluatePod(p.level, p.version, pod.meta, pod.spec as never));
        evaluated.set(p.text, v);
      }
      return v;
    };
    if (enforce) {
      if (a.request !== undefined) a.request.auditAnnotations[`${PREFIX}enforce-policy`] = enforcePolicy.text;
      const v = violations(enforcePolicy);
      if (v !== '') throw forbidden({ group: '', resource: 'pods' }, a.name, `violates PodSecurity "${enforcePolicy.text}": ${v}`);
    }
    const audit = modePolicy(labels, 'audit');
    const av = violations(audit);
    if (av !== '' && a.request !== undefined) a.request.auditAnnotations[`${PREFIX}audit-violations`] = `would violate PodSecurity "${audit.text}": ${av}`;
    const warn = modePolicy(labels, 'warn');
    // a pod the enforce level allowed is not warned again about the same policy
    if (enforce && warn.text === enforcePolicy.text) return;
    const wv = violations(warn);
    if (wv !== '') a.request?.addWarning(`would violate PodSecurity "${warn.text}": ${wv}`);
  }

  /** Namespace labels must name a level and version; an enforce change warns about existing pods. */
  private async validateNamespace(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' || a.object === undefined) return;
    const labels = a.object.metadata.labels ?? {};
    // an update that leaves the pod-security labels as they were is not judged again (upstream)
    const ours = (l: Record<string, string>): string => JSON.stringify(Object.entries(l).filter(([k]) => k.startsWith(PREFIX)).sort());
    if (a.operation === 'UPDATE' && a.oldObject !== undefined && ours(labels) === ours(a.oldObject.metadata.labels ?? {})) return;
    const errors: ReturnType<typeof fieldErrors.invalid>[] = [];
    for (const mode of ['enforce', 'audit', 'warn'] as const) modePolicy(labels, mode, errors);
    if (errors.length > 0) throw invalid('', 'Namespace', a.name, errors);
    if (a.operation !== 'UPDATE' || a.oldObject === undefined) return;
    const next = modePolicy(labels, 'enforce');
    const prev = modePolicy(a.oldObject.metadata.labels ?? {}, 'enforce');
    if (next.text === prev.text || next.level === 'privileged') return;
    const pods = this.stores.pods();
    if (pods === undefined) return;
    const list = (await pods.list(a.name, { resourceVersion: '0' })).items as KubeObject[];
    // Pods with the same violations are one line, named by the first name in order, with a count (upstream's wording).
    const groups = new Map<string, { name: string; count: number }>();
    for (const pod of list.slice(0, MAX_PODS_CHECKED)) {
      const results = evaluatePod(next.level, next.version, pod.metadata, (pod['spec'] as never) ?? {});
      if (results.length === 0) continue;
      const reasons = results.map((r) => r.reason).join(', ');
      const name = pod.metadata.name ?? '';
      const g = groups.get(reasons);
      if (g === undefined) groups.set(reasons, { name, count: 1 });
      else {
        g.count++;
        if (name < g.name) g.name = name;
      }
    }
    const lines = [...groups].map(([reasons, g]) =>
      g.count === 1 ? `${g.name}: ${reasons}` : `${g.name} (and ${g.count - 1} other ${g.count === 2 ? 'pod' : 'pods'}): ${reasons}`,
    );
    if (lines.length === 0) return;
    for (const w of [`existing pods in namespace "${a.name}" violate the new PodSecurity enforce level "${next.text}"`, ...lines]) a.request?.addWarning(w);
  }
}
