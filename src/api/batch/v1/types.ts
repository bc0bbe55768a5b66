// batch/v1 Job and CronJob: the fields apiary defaults and validates, wire names exact.
import type { KubeObject } from '../../../machinery/meta.js';
import type { PodTemplateSpec } from '../../core/v1/types.js';
import type { LabelSelector } from '../../apps/v1/types.js';

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  podFailurePolicy?: { rules?: { action?: string; onPodConditions?: { type?: string; status?: string }[] }[] };
  successPolicy?: unknown;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  selector?: LabelSelector;
  manualSelector?: boolean;
  template?: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  completionMode?: string;
  suspend?: boolean;
  podReplacementPolicy?: string;
  managedBy?: string;
}

export interface Job extends KubeObject {
  spec?: JobSpec;
  status?: Record<string, unknown>;
}

export interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  suspend?: boolean;
  jobTemplate?: { metadata?: KubeObject['metadata']; spec?: JobSpec };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

export interface CronJob extends KubeObject {
  spec?: CronJobSpec;
  status?: Record<string, unknown>;
}
