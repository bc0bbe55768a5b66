// TaintNodesByCondition admission (upstream plugin/pkg/admission/nodetaint),
// in kube-apiserver's default plugin set.
//
// Contract: a Node is created with the `node.kubernetes.io/not-ready:NoSchedule`
// taint (unless it already carries a taint of that key and effect), so nothing
// is scheduled onto it before the node lifecycle controller has seen it Ready
// and removed the taint. Only CREATE of nodes themselves; updates and
// subresources pass untouched.

import type { Node } from '../api/core/v1/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { NOT_READY_TAINT } from './default-toleration-seconds.js';

export const TAINT_NODES_BY_CONDITION_PLUGIN = 'TaintNodesByCondition';

export class TaintNodesByCondition implements AdmissionPlugin {
  readonly name = TAINT_NODES_BY_CONDITION_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/nodes']);

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'nodes' || a.subresource !== '') return;
    const node = a.object as Node | undefined;
    if (node === undefined) return;
    const spec = (node.spec ??= {});
    const taints = (spec.taints ?? []) as Record<string, unknown>[];
    // Go's Taint.MatchTaint: the same key and effect.
    if (taints.some((t) => t.key === NOT_READY_TAINT && t.effect === 'NoSchedule')) return;
    spec.taints = [...taints, { key: NOT_READY_TAINT, effect: 'NoSchedule' }];
  }
}
