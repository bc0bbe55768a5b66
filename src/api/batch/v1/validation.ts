// batch/v1 Job and CronJob validation (upstream pkg/apis/batch/validation, main rules).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors, GoValue } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation.js';
import { labelSelectorFromMeta } from '../../../machinery/labels.js';
import { StatusError } from '../../../machinery/errors.js';
import { goLabelSelector, goStringMap } from '../../../machinery/go-syntax.js';
import { sameJSON, validatePodTemplateSpec } from '../../core/v1/validation.js';
import { cronScheduleError } from './cron.js';
import type { CronJob, Job, JobSpec } from './types.js';
import { deepCopy } from '../../../machinery/deep-copy.js';

const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const MAX_PARALLELISM_FOR_INDEXED = 100000;
const CRONJOB_NAME_MAX = 52;

function nonNegative(value: number | undefined, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldErrors.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/**
 * A Job spec at `path` ("spec" or "spec.jobTemplate.spec"). Jobs of a
 * CronJob's template have no selector yet (`isJob` false).
 */
export function validateJobSpec(spec: JobSpec, path: string, isJob: boolean): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.parallelism, `${path}.parallelism`));
  errs.push(...nonNegative(spec.completions, `${path}.completions`));
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds < 0) {
    errs.push(fieldErrors.invalid(`${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, IS_NEGATIVE_ERROR_MSG));
  }
  errs.push(...nonNegative(spec.backoffLimit, `${path}.backoffLimit`));
  errs.push(...nonNegative(spec.ttlSecondsAfterFinished, `${path}.ttlSecondsAfterFinished`));
  const mode = spec.completionMode ?? '';
  if (isJob || mode !== '') {
    if (!COMPLETION_MODES.includes(mode)) errs.push(fieldErrors.notSupported(`${path}.completionMode`, mode, COMPLETION_MODES));
  }
  if (mode === 'Indexed') {
    if (spec.completions === undefined || spec.completions === null) errs.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
    if ((spec.parallelism ?? 0) > MAX_PARALLELISM_FOR_INDEXED) errs.push(fieldErrors.invalid(`${path}.parallelism`, spec.parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED} when completion mode is Indexed`));
  } else if (spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null) {
    errs.push(fieldErrors.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
  }
  const replacement = spec.podReplacementPolicy;
  if (replacement !== undefined && replacement !== null) {
    if (replacement !== 'TerminatingOrFailed' && replacement !== 'Failed') errs.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed', 'TerminatingOrFailed']));
    else if (replacement === 'TerminatingOrFailed' && spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null) {
      errs.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed']));
    }
  }
  if (isJob) {
    const selector = spec.selector;
    if (selector === undefined || selector === null) errs.push(fieldErrors.required(`${path}.selector`));
    else {
      try {
        const matches = labelSelectorFromMeta(selector).matches(spec.template?.metadata?.labels ?? {});
        if (!matches) errs.push(fieldErrors.invalid(`${path}.template.metadata.labels`, goStringMap(spec.template?.metadata?.labels), '`selector` does not match template `labels`'));
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        errs.push(fieldErrors.invalid(`${path}.selector`, goLabelSelector(selector), err.message));
      }
    }
  }
  if (spec.template === undefined) errs.push(fieldErrors.required(`${path}.template`));
  else {
    errs.push(...validatePodTemplateSpec(spec.template, `${path}.template`));
    const policy = spec.template.spec?.restartPolicy ?? '';
    if (policy !== 'OnFailure' && policy !== 'Never') {
      errs.push(fieldErrors.required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
    }
  }
  return errs;
}

export function validateJob(obj: KubeObject): FieldError[] {
  return [...generatedSelectorErrors(obj as Job), ...validateJobSpec((obj as Job).spec ?? {}, 'spec', true)];
}

/**
 * validateGeneratedSelector: unless the selector is manual, the template
 * carries the job's uid and name labels (the batch.kubernetes.io ones too
 * when it has them, as jobs made since 1.27 do) and the selector matches them.
 */
function generatedSelectorErrors(job: Job): FieldError[] {
  const spec = job.spec ?? {};
  if ((spec as { manualSelector?: boolean }).manualSelector === true || spec.selector === undefined || spec.selector === null) return [];
  const errs: FieldError[] = [];
  const uid = job.metadata.uid ?? '';
  if (uid === '') errs.push(fieldErrors.required('metadata.uid'));
  const labels = spec.template?.metadata?.labels ?? {};
  const expected: Record<string, string> = { 'controller-uid': uid, 'job-name': job.metadata.name ?? '' };
  const prefixed = 'batch.kubernetes.io/controller-uid' in labels || 'batch.kubernetes.io/job-name' in labels;
  const required = prefixed ? { ...expected, 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': job.metadata.name ?? '' } : expected;
  for (const [key, value] of Object.entries(required)) {
    const path = `spec.template.metadata.labels[${key}]`;
    if (!(key in labels)) errs.push(fieldErrors.required(path, value));
    else if (labels[key] !== value) errs.push(fieldErrors.invalid(path, goStringMap(labels), `must be '${value}'`));
  }
  if (!labelSelectorFromMeta(spec.selector).matches(required)) errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  return errs;
}

/**
 * The fields a Job update may not change; the template only while the job is
 * suspended. As upstream, the new spec is validated twice (ValidateJob, then
 * ValidateJobSpecUpdate), so its errors are listed twice.
 */
export function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = (obj as Job).spec ?? {};
  const oldSpec = (old as Job).spec ?? {};
  const errs = [...validateJob(obj), ...validateJobSpec(spec, 'spec', true)];
  const elastic = spec.completionMode === 'Indexed' && spec.completions === spec.parallelism && oldSpec.completions === oldSpec.parallelism;
  if (!elastic && (spec.completions ?? null) !== (oldSpec.completions ?? null)) errs.push(fieldErrors.invalid('spec.completions', spec.completions ?? new GoValue('nil'), FIELD_IMMUTABLE_ERROR_MSG));
  if (!sameJSON(spec.selector ?? null, oldSpec.selector ?? null)) errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), FIELD_IMMUTABLE_ERROR_MSG));
  // A suspended job that never started may change its pod template's scheduling directives.
  const suspendedNeverStarted = oldSpec.suspend === true && ((old as Job).status?.['startTime'] ?? null) === null;
  const strip = (t: JobSpec['template']): unknown => {
    if (!suspendedNeverStarted || t === undefined) return t ?? null;
    const c = deepCopy(t) as { metadata?: Record<string, unknown>; spec?: Record<string, unknown> };
    for (const f of ['nodeSelector', 'tolerations', 'affinity', 'schedulingGates']) delete c.spec?.[f];
    for (const f of ['labels', 'annotations']) delete c.metadata?.[f];
    return c;
  };
  if (!sameJSON(strip(spec.template), strip(oldSpec.template))) {
    errs.push(fieldErrors.invalid('spec.template', new GoValue('core.PodTemplateSpec{}'), FIELD_IMMUTABLE_ERROR_MSG));
  }
  if ((spec.completionMode ?? '') !== (oldSpec.completionMode ?? '')) errs.push(fieldErrors.invalid('spec.completionMode', spec.completionMode ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  if (!sameJSON(spec.podFailurePolicy ?? null, oldSpec.podFailurePolicy ?? null)) errs.push(fieldErrors.invalid('spec.podFailurePolicy', new GoValue('batch.PodFailurePolicy{}'), FIELD_IMMUTABLE_ERROR_MSG));
  if ((spec.managedBy ?? null) !== (oldSpec.managedBy ?? null)) errs.push(fieldErrors.invalid('spec.managedBy', spec.managedBy ?? new GoValue('nil'), FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

export function validateJobStatus(obj: KubeObject): FieldError[] {
  const status = (obj as Job).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['active', 'succeeded', 'failed', 'terminating', 'ready']) {
    const v = status[f];
    if (typeof v === 'number') errs.push(...nonNegative(v, `status.${f}`));
  }
  return errs;
}

export function validateCronJob(obj: KubeObject): FieldError[] {
  const cj = obj as CronJob;
  const spec = cj.spec ?? {};
  const errs: FieldError[] = [];
  const name = cj.metadata.name ?? '';
  if (name.length > CRONJOB_NAME_MAX) errs.push(fieldErrors.invalid('metadata.name', name, `must be no more than ${CRONJOB_NAME_MAX} characters`));
  const schedule = spec.schedule ?? '';
  if (schedule === '') errs.push(fieldErrors.required('spec.schedule'));
  else {
    if (/^\s*(CRON_)?TZ=/.test(schedule) || schedule.includes('TZ=')) {
      errs.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    } else {
      const err = cronScheduleError(schedule);
      if (err !== undefined) errs.push(fieldErrors.invalid('spec.schedule', schedule, err));
    }
  }
  if (spec.timeZone !== undefined && spec.timeZone !== null) {
    let valid = spec.timeZone !== '' && !spec.timeZone.startsWith('/') && !spec.timeZone.includes('..');
    if (valid) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: spec.timeZone });
      } catch {
        valid = false;
      }
    }
    if (!valid) errs.push(fieldErrors.invalid('spec.timeZone', spec.timeZone, 'unknown time zone ' + spec.timeZone));
  }
  errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  const policy = spec.concurrencyPolicy ?? '';
  if (policy === '') errs.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  errs.push(...validateJobSpec(spec.jobTemplate?.spec ?? {}, 'spec.jobTemplate.spec', false));
  return errs;
}
