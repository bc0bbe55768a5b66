// admissionregistration.k8s.io/v1 MutatingWebhookConfigurations; updates
// validated with the options the old object allows.
import { defaultMutatingWebhookConfiguration } from '../../api/admissionregistration/v1/defaults.js';
import { validateMutatingWebhookConfiguration, validateMutatingWebhookConfigurationUpdate } from '../../api/admissionregistration/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { webhookConfigurationCommon } from './webhooks.js';

export const mutatingWebhookConfigurationStrategy: Strategy = {
  ...webhookConfigurationCommon,
  defaults: defaultMutatingWebhookConfiguration,
  validate: validateMutatingWebhookConfiguration,
  validateUpdate: validateMutatingWebhookConfigurationUpdate,
};
