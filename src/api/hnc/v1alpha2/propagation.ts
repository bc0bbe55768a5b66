// Whether a source object propagates to a destination namespace: HNC's
// ShouldPropagate (the exception annotations against the kind's mode) and the
// objects it never copies. Shared by the propagation controller (which copies)
// and admission (which refuses a source that would overwrite a local object).

import type { KubeObject } from '../../../machinery/meta.js';
import { parseLabelSelector } from '../../../machinery/labels.js';
import { ANNOTATION_ALL, ANNOTATION_NONE, ANNOTATION_SELECT, ANNOTATION_TREE_SELECT, type SynchronizationMode } from './types.js';

function annotationTrue(value: string | undefined): boolean {
  return value !== undefined && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value);
}

/**
 * True when `source` (of the kind `group`/`resource`, under `mode`) is copied
 * into a namespace with `destinationLabels` whose tree (itself and its
 * ancestors) is `destinationTree`.
 */
export function sourcePropagatesTo(
  source: Readonly<KubeObject>,
  kind: { group: string; resource: string; mode: SynchronizationMode },
  destinationLabels: Readonly<Record<string, string>>,
  destinationTree: ReadonlySet<string>,
): boolean {
  if (kind.mode !== 'Propagate' && kind.mode !== 'AllowPropagate') return false;
  const annotations = source.metadata.annotations ?? {};
  let propagate = kind.mode === 'Propagate';
  const select = annotations[ANNOTATION_SELECT];
  if (select !== undefined && select !== '') {
    propagate = true;
    try {
      if (!parseLabelSelector(select).matches(destinationLabels)) return false;
    } catch {
      return false;
    }
  }
  const treeSelect = annotations[ANNOTATION_TREE_SELECT];
  if (treeSelect !== undefined && treeSelect !== '') {
    propagate = true;
    for (const raw of treeSelect.split(',')) {
      const segment = raw.trim();
      const negated = segment.startsWith('!');
      const name = negated ? segment.slice(1) : segment;
      if (name === '' || destinationTree.has(name) === negated) return false;
    }
  }
  if (annotationTrue(annotations[ANNOTATION_NONE])) return false;
  if (annotationTrue(annotations[ANNOTATION_ALL])) propagate = true;
  if (!propagate) return false;
  if ((source.metadata.finalizers ?? []).length > 0) return false;
  if (kind.group === '' && kind.resource === 'secrets') {
    const type = (source as { type?: string }).type;
    if (type === 'kubernetes.io/service-account-token' || type === 'helm.sh/release.v1') return false;
  }
  if (kind.group === '' && kind.resource === 'configmaps' && ['kube-root-ca.crt', 'istio-ca-root-cert'].includes(source.metadata.name!)) return false;
  return true;
}
