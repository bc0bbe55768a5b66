// Jobs (upstream pkg/registry/batch/job/strategy.go): generation 1 on create
// and bumped by spec changes, status reset on create and kept on spec writes.
// A Job without manualSelector gets a selector on its uid and the matching
// template labels; its own labels default to them. A DELETE without a policy
// orphans the pods (batch/v1's pre-GC default).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultJob } from '../../api/batch/v1/defaults.js';
import { validateJob, validateJobStatus, validateJobUpdate } from '../../api/batch/v1/validation.js';
import type { Job } from '../../api/batch/v1/types.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, specKeepingStatusSubresource } from '../strategy-helpers.js';
import { jobWarnings } from '../../api/core/v1/pod-warnings.js';

const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const JOB_NAME = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID = 'controller-uid';
const LEGACY_JOB_NAME = 'job-name';

/** Upstream's generateSelector: labels the pods carry and the selector that finds them (labels already set are kept). */
function generateSelector(job: Job): void {
  const spec = (job.spec ??= {});
  const template = (spec.template ??= {});
  const metadata = (template.metadata ??= {});
  const labels = (metadata.labels ??= {});
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  labels[LEGACY_JOB_NAME] ??= name;
  labels[JOB_NAME] ??= name;
  labels[LEGACY_CONTROLLER_UID] ??= uid;
  labels[CONTROLLER_UID] ??= uid;
  const selector = (spec.selector ??= {});
  const matchLabels = (selector.matchLabels ??= {});
  if (matchLabels[CONTROLLER_UID] === undefined && matchLabels[LEGACY_CONTROLLER_UID] === undefined) matchLabels[CONTROLLER_UID] = uid;
}

export const jobStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultJob,
  prepareForCreate(obj) {
    const job = obj as Job;
    job.status = {};
    job.metadata.generation = 1;
    job.spec ??= {};
    if (job.spec.manualSelector !== true) {
      generateSelector(job);
      job.spec.manualSelector = false;
    }
    const templateLabels = job.spec.template?.metadata?.labels;
    if (templateLabels !== undefined && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...templateLabels };
  },
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  ...jobWarnings,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  // batch/v1 keeps its pre-GC default: a DELETE without a policy orphans the pods.
  defaultGarbageCollectionPolicy: 'OrphanDependents',
  fields: { 'status.successful': (obj) => String((obj.status as { succeeded?: number } | undefined)?.succeeded ?? 0) },
  fieldLabels: ['metadata.name', 'metadata.namespace', 'status.successful'],
  subresources: { status: specKeepingStatusSubresource((obj) => validateJobStatus(obj)) },
};
