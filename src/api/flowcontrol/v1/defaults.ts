// Defaults of flowcontrol/v1 (upstream pkg/apis/flowcontrol/v1/defaults.go).

import type { KubeObject } from '../../../machinery/meta.js';
import type { Loose } from '../../loose.js';

export const DEFAULT_MATCHING_PRECEDENCE = 1000;
export const DEFAULT_HAND_SIZE = 8;
export const DEFAULT_QUEUES = 64;
export const DEFAULT_QUEUE_LENGTH_LIMIT = 50;
export const DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;

export function defaultFlowSchema(obj: KubeObject): void {
  const spec = (obj as Loose).spec;
  if (spec === null || typeof spec !== 'object') return;
  if (spec.matchingPrecedence === undefined || spec.matchingPrecedence === null || spec.matchingPrecedence === 0) {
    spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
  }
}

export function defaultPriorityLevelConfiguration(obj: KubeObject): void {
  const spec = (obj as Loose).spec;
  if (spec === null || typeof spec !== 'object') return;
  const exempt = spec.exempt;
  if (exempt !== null && typeof exempt === 'object') {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
  const limited = spec.limited;
  if (limited !== null && typeof limited === 'object') {
    limited.nominalConcurrencyShares ??= DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    const queuing = limited.limitResponse?.queuing;
    if (queuing !== null && typeof queuing === 'object') {
      if (!queuing.handSize) queuing.handSize = DEFAULT_HAND_SIZE;
      if (!queuing.queues) queuing.queues = DEFAULT_QUEUES;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = DEFAULT_QUEUE_LENGTH_LIMIT;
    }
  }
}
