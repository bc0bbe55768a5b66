// The one-line summaries of a HierarchicalResourceQuota's status that
// `kubectl get hrq` prints (HNC's status.requestsSummary and
// status.limitsSummary): "name: used/hard" for each hard name, sorted, the
// `limits.*` names in the second, every other name in the first.

import type { ResourceList } from '../../core/v1/types.js';

/** Empty summaries are absent (HNC's fields are omitempty). */
export interface QuotaSummaries {
  requestsSummary?: string;
  limitsSummary?: string;
}

export function quotaSummaries(hard: ResourceList | undefined, used: ResourceList | undefined): QuotaSummaries {
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of Object.keys(hard ?? {}).sort()) {
    const line = `${name}: ${String(used?.[name] ?? '0')}/${String(hard![name])}`;
    (name.split('.')[0] === 'limits' && name.includes('.') ? limits : requests).push(line);
  }
  const out: QuotaSummaries = {};
  if (requests.length > 0) out.requestsSummary = requests.join(', ');
  if (limits.length > 0) out.limitsSummary = limits.join(', ');
  return out;
}
