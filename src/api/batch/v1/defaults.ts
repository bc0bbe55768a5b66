// batch/v1 defaults (upstream pkg/apis/batch/v1/defaults.go).
import type { KubeObject } from '../../../machinery/meta.js';
import { defaultPodSpec } from '../../core/v1/defaults.js';
import type { CronJob, JobSpec } from './types.js';

const MAX_INT32 = 2147483647;

/** SetDefaults_Job's spec part, shared with a CronJob's job template. */
export function defaultJobSpec(spec: JobSpec): void {
  const unset = (v: unknown): boolean => v === undefined || v === null;
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset(spec.parallelism)) spec.parallelism = 1;
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : MAX_INT32;
  if ((spec.completionMode ?? '') === '') spec.completionMode = 'NonIndexed';
  if (unset(spec.suspend)) spec.suspend = false;
  if ((spec.podReplacementPolicy ?? '') === '') spec.podReplacementPolicy = spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null ? 'Failed' : 'TerminatingOrFailed';
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const c of rule.onPodConditions ?? []) if ((c.status ?? '') === '') c.status = 'True';
  }
  if (spec.template?.spec !== undefined) defaultPodSpec(spec.template.spec);
}

export function defaultJob(obj: KubeObject): void {
  obj['spec'] ??= {};
  const spec = obj['spec'] as JobSpec;
  defaultJobSpec(spec);
  // SetDefaults_Job (not the job spec of a CronJob's template): defaulted on decode, so the
  // creating manager owns it (the strategy then generates the selector when it is false).
  if (spec.manualSelector === undefined || spec.manualSelector === null) spec.manualSelector = false;
}

/** SetDefaults_CronJob: Allow, not suspended, 3 successful and 1 failed job kept. */
export function defaultCronJob(obj: KubeObject): void {
  const cj = obj as CronJob;
  cj.spec ??= {};
  const spec = cj.spec;
  if ((spec.concurrencyPolicy ?? '') === '') spec.concurrencyPolicy = 'Allow';
  if (spec.suspend === undefined || spec.suspend === null) spec.suspend = false;
  if (spec.successfulJobsHistoryLimit === undefined || spec.successfulJobsHistoryLimit === null) spec.successfulJobsHistoryLimit = 3;
  if (spec.failedJobsHistoryLimit === undefined || spec.failedJobsHistoryLimit === null) spec.failedJobsHistoryLimit = 1;
  // The job template's own spec gets the pod template's defaults only (the job
  // defaults apply when the controller creates the Job).
  const template = spec.jobTemplate?.spec?.template?.spec;
  if (template !== undefined) defaultPodSpec(template);
}
