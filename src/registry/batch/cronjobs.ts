// CronJobs (upstream pkg/registry/batch/cronjob/strategy.go): generation 1 on
// create and bumped by spec changes, status reset on create and kept on spec writes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultCronJob } from '../../api/batch/v1/defaults.js';
import { validateCronJob } from '../../api/batch/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, resetStatusAndGeneration, specKeepingStatusSubresource } from '../strategy-helpers.js';
import { cronJobWarnings } from '../../api/core/v1/pod-warnings.js';

export const cronJobStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultCronJob,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateCronJob,
  validateUpdate: (obj) => validateCronJob(obj),
  ...cronJobWarnings,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: specKeepingStatusSubresource() },
};
