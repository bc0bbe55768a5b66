// Priority admission (upstream plugin/pkg/admission/priority), in
// kube-apiserver's default plugin set.
//
// Contract:
// - CREATE of a pod (not its subresources) resolves its priority from its
//   PriorityClass: `spec.priorityClassName` names a class (403 `no
//   PriorityClass with name x was found` when none exists); without a name,
//   the global default class (the lowest-valued one when a race made several)
//   is written into `spec.priorityClassName`, and with no default the
//   priority is 0 and the policy PreemptLowerPriority. `spec.priority` and
//   `spec.preemptionPolicy` are set from the class; a client that sent a
//   different value gets upstream's 403 (`the integer value of priority (5)
//   must not be provided in pod spec; priority admission controller computed
//   0 from the given PriorityClass name`, and its PreemptionPolicy twin).
// - CREATE or UPDATE of a PriorityClass with `globalDefault: true` is refused
//   (403) while another class is the default.
// Classes are read from the watch cache (resourceVersion "0"), as upstream
// reads its lister.

import type { KubeObject } from '../machinery/meta.js';
import { forbidden } from '../machinery/errors.js';
import type { RESTStore } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { nameForErrors } from './resource-quota-check.js';

export const PRIORITY_PLUGIN = 'Priority';
const DEFAULT_PREEMPTION_POLICY = 'PreemptLowerPriority';

interface PriorityClassFields {
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}
type PriorityClass = KubeObject & PriorityClassFields;

export class PriorityAdmission implements AdmissionPlugin {
  readonly name = PRIORITY_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/pods', 'scheduling.k8s.io/priorityclasses']);

  /** `classes` is the priorityclasses store (absent: pods resolve to priority 0 only when they name no class). */
  constructor(private readonly classes: () => RESTStore | undefined) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== '' || a.resource.group !== '' || a.resource.resource !== 'pods') return;
    const spec = (a.object as { spec?: Record<string, unknown> } | undefined)?.spec;
    if (spec === undefined) return;
    let priority = 0;
    let policy = DEFAULT_PREEMPTION_POLICY;
    const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    if (className === '') {
      const def = defaultClass(await this.list());
      if (def !== undefined) {
        spec.priorityClassName = def.metadata.name;
        priority = def.value ?? 0;
        policy = def.preemptionPolicy ?? DEFAULT_PREEMPTION_POLICY;
      }
    } else {
      const pc = (await this.list()).find((c) => c.metadata.name === className);
      if (pc === undefined) throw this.forbid(a, `no PriorityClass with name ${className} was found`);
      priority = pc.value ?? 0;
      policy = pc.preemptionPolicy ?? DEFAULT_PREEMPTION_POLICY;
    }
    if (spec.priority != null && spec.priority !== priority) {
      throw this.forbid(a, `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (spec.preemptionPolicy != null && spec.preemptionPolicy !== policy) {
      throw this.forbid(a, `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = policy;
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    if (a.subresource !== '' || a.resource.group !== 'scheduling.k8s.io' || a.resource.resource !== 'priorityclasses') return;
    const pc = a.object as PriorityClass | undefined;
    if (pc?.globalDefault !== true) return;
    const def = defaultClass(await this.list());
    if (def === undefined) return;
    if (a.operation === 'CREATE' || def.metadata.name !== pc.metadata.name) {
      throw this.forbid(a, `PriorityClass ${def.metadata.name ?? ''} is already marked as default. Only one default can exist`);
    }
  }

  private async list(): Promise<PriorityClass[]> {
    const store = this.classes();
    if (store === undefined) return [];
    return (await store.list('', { resourceVersion: '0' })).items as PriorityClass[];
  }

  private forbid(a: AdmissionAttributes, reason: string): Error {
    return forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForErrors(a), reason);
  }
}

/** The global default class; the lowest-valued one when a race left several. */
function defaultClass(classes: readonly PriorityClass[]): PriorityClass | undefined {
  let found: PriorityClass | undefined;
  for (const c of classes) if (c.globalDefault === true && (found === undefined || (found.value ?? 0) > (c.value ?? 0))) found = c;
  return found;
}
