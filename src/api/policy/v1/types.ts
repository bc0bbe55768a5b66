// policy/v1 PodDisruptionBudget and Eviction: wire names exact.
import type { KubeObject } from '../../../machinery/meta.js';
import type { LabelSelector } from '../../apps/v1/types.js';

export interface PodDisruptionBudgetSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelector;
  unhealthyPodEvictionPolicy?: string;
}

export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  conditions?: { type?: string; status?: string }[];
}

export interface PodDisruptionBudget extends KubeObject {
  spec?: PodDisruptionBudgetSpec;
  status?: PodDisruptionBudgetStatus;
}

export interface Eviction extends KubeObject {
  deleteOptions?: { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: string[]; propagationPolicy?: string };
}
