// admissionregistration.k8s.io/v1 ValidatingWebhookConfigurations; updates
// validated with the options the old object allows.
import { defaultValidatingWebhookConfiguration } from '../../api/admissionregistration/v1/defaults.js';
import { validateValidatingWebhookConfiguration, validateValidatingWebhookConfigurationUpdate } from '../../api/admissionregistration/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { webhookConfigurationCommon } from './webhooks.js';

export const validatingWebhookConfigurationStrategy: Strategy = {
  ...webhookConfigurationCommon,
  defaults: defaultValidatingWebhookConfiguration,
  validate: validateValidatingWebhookConfiguration,
  validateUpdate: validateValidatingWebhookConfigurationUpdate,
};
