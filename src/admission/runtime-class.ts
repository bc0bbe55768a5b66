// RuntimeClass admission (upstream plugin/pkg/admission/runtimeclass), in
// kube-apiserver's default plugin set.
//
// Contract, for CREATE of a pod (not its subresources) that names
// `spec.runtimeClassName`:
// - the class must exist (the watch cache first, then a live read, as
//   upstream's lister-then-client): else 403 `pod rejected: RuntimeClass "x"
//   not found`;
// - admit: the class's `overhead.podFixed` becomes `spec.overhead` (a client
//   value that differs: 403 `pod rejected: Pod's Overhead doesn't match
//   RuntimeClass's defined Overhead`); its `scheduling.nodeSelector` is merged
//   into the pod's (a key the pod sets to another value: 403 `conflict:
//   runtimeClass.scheduling.nodeSelector[k] = v; pod.spec.nodeSelector[k] =
//   w`) and its tolerations merged, keeping only supersets;
// - validate: a pod overhead without a class overhead, or one that no longer
//   matches it (a webhook changed it), is refused.
// Quantities compare by value, as upstream's semantic equality.

import type { KubeObject } from '../machinery/meta.js';
import { forbidden, isStatusError } from '../machinery/errors.js';
import { parseQuantity } from '../machinery/quantity.js';
import type { RESTStore } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { nameForErrors } from './resource-quota-check.js';

export const RUNTIME_CLASS_PLUGIN = 'RuntimeClass';

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}
type ResourceList = Record<string, string>;
type RuntimeClassObject = KubeObject & {
  overhead?: { podFixed?: ResourceList };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
};
interface PodSpec {
  runtimeClassName?: string;
  overhead?: ResourceList;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
}

export class RuntimeClassAdmission implements AdmissionPlugin {
  readonly name = RUNTIME_CLASS_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/pods']);

  constructor(private readonly classes: () => RESTStore | undefined) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    const spec = podSpec(a);
    if (spec === undefined) return;
    const rc = await this.lookup(a, spec);
    if (rc?.overhead?.podFixed !== undefined) {
      if (spec.overhead != null && !sameResources(rc.overhead.podFixed, spec.overhead)) throw overheadMismatch(a);
      spec.overhead = { ...rc.overhead.podFixed };
    }
    const sched = rc?.scheduling;
    if (sched === undefined) return;
    if (sched.nodeSelector !== undefined) {
      if (spec.nodeSelector == null) spec.nodeSelector = { ...sched.nodeSelector };
      else {
        for (const [k, v] of Object.entries(sched.nodeSelector)) {
          const mine = spec.nodeSelector[k];
          if (mine !== undefined && mine !== v) {
            throw forbid(a, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${mine}`);
          }
          spec.nodeSelector[k] = v;
        }
      }
    }
    const merged = mergeTolerations(spec.tolerations ?? [], sched.tolerations ?? []);
    if (merged.length > 0) spec.tolerations = merged;
    else delete spec.tolerations;
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    const spec = podSpec(a);
    if (spec === undefined) return;
    const rc = await this.lookup(a, spec);
    const fixed = rc?.overhead?.podFixed;
    if (fixed !== undefined) {
      if (spec.overhead == null || !sameResources(fixed, spec.overhead)) throw overheadMismatch(a);
    } else if (spec.overhead != null) {
      throw forbid(a, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }

  private async lookup(a: AdmissionAttributes, spec: PodSpec): Promise<RuntimeClassObject | undefined> {
    const name = spec.runtimeClassName;
    if (name == null) return undefined;
    const store = this.classes();
    const cached = store?.getCached('', name) as RuntimeClassObject | undefined;
    if (cached !== undefined) return cached;
    try {
      if (store !== undefined) return (await store.get('', name, {})) as RuntimeClassObject;
    } catch (err) {
      if (!isStatusError(err) || err.status.code !== 404) throw err;
    }
    throw forbid(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
  }
}

function podSpec(a: AdmissionAttributes): PodSpec | undefined {
  if (a.operation !== 'CREATE' || a.subresource !== '' || a.resource.group !== '' || a.resource.resource !== 'pods') return undefined;
  return (a.object as { spec?: PodSpec } | undefined)?.spec;
}

function forbid(a: AdmissionAttributes, reason: string): Error {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForErrors(a), reason);
}

function overheadMismatch(a: AdmissionAttributes): Error {
  return forbid(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
}

function sameResources(x: ResourceList, y: ResourceList): boolean {
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) {
    if (y[k] === undefined) return false;
    try {
      if (parseQuantity(String(x[k])).cmp(parseQuantity(String(y[k]))) !== 0) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function sameToleration(x: Toleration, y: Toleration): boolean {
  return (x.key ?? '') === (y.key ?? '') && (x.operator ?? '') === (y.operator ?? '') && (x.value ?? '') === (y.value ?? '') &&
    (x.effect ?? '') === (y.effect ?? '') && x.tolerationSeconds === y.tolerationSeconds;
}

/** Whether `ss` tolerates every taint `t` tolerates. */
function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false;
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds != null) {
    if (t.tolerationSeconds == null || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The pod's tolerations then the class's, dropping any another one covers (the first of equal ones kept). */
function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !sameToleration(t, later) && isSuperset(later, t))) return;
    merged.push({ ...t });
  });
  return merged;
}
