// DefaultTolerationSeconds admission (upstream plugin/pkg/admission/
// defaulttolerationseconds), in kube-apiserver's default plugin set.
//
// Contract: on CREATE and UPDATE of a pod (not its subresources), a pod that
// does not already tolerate the NoExecute taints a node gets when it stops
// reporting (`node.kubernetes.io/not-ready`, `node.kubernetes.io/unreachable`)
// is given a toleration for each with `tolerationSeconds: 300`, so its pods
// are evicted five minutes after the node fails rather than at once. A
// toleration with an empty key (all taints) or an empty effect (all effects)
// counts as tolerating. A toleration matching the added one in key, operator,
// value and effect is replaced, as upstream's AddOrUpdateTolerationInPod does.

import type { Pod } from '../api/core/v1/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';

export const DEFAULT_TOLERATION_SECONDS_PLUGIN = 'DefaultTolerationSeconds';
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
/** kube-apiserver's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
const DEFAULT_SECONDS = 300;

type Toleration = Record<string, unknown>;

function tolerates(t: Toleration, key: string): boolean {
  const k = t.key ?? '';
  const effect = t.effect ?? '';
  return (k === key || k === '') && (effect === 'NoExecute' || effect === '');
}

/** Go's Toleration.MatchToleration: the same key, operator, value and effect. */
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === b.key && (a.operator ?? '') === b.operator && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === b.effect;
}

export class DefaultTolerationSeconds implements AdmissionPlugin {
  readonly name = DEFAULT_TOLERATION_SECONDS_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/pods']);

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    if (a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource !== '' || a.object === undefined) return;
    const spec = (a.object as Pod).spec;
    if (spec === undefined) return;
    const existing = (spec.tolerations ?? []) as Toleration[];
    for (const key of [NOT_READY_TAINT, UNREACHABLE_TAINT]) {
      if (existing.some((t) => tolerates(t, key))) continue;
      const added: Toleration = { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_SECONDS };
      const kept = (spec.tolerations ?? []).filter((t) => !sameToleration(t, added));
      spec.tolerations = [...kept, added];
    }
  }
}
