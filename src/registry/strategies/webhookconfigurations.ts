// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration: cluster-scoped, no status, names are DNS
// subdomains; updates validated with the options the old object allows.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import {
  defaultMutatingWebhookConfiguration,
  defaultValidatingWebhookConfiguration,
} from '../../api/admissionregistration/v1/defaults.js';
import {
  validateMutatingWebhookConfiguration,
  validateMutatingWebhookConfigurationUpdate,
  validateValidatingWebhookConfiguration,
  validateValidatingWebhookConfigurationUpdate,
} from '../../api/admissionregistration/v1/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { Strategy } from '../strategy.js';

// Generation starts at 1 and counts changes of webhooks (upstream's strategy).
const prepareForCreate = (obj: KubeObject): void => {
  obj.metadata.generation = 1;
};
const prepareForUpdate = (obj: KubeObject, old: KubeObject): void => {
  const hooks = (o: KubeObject): string => JSON.stringify((o as { webhooks?: unknown }).webhooks ?? null);
  const generation = old.metadata.generation ?? 0;
  obj.metadata.generation = hooks(obj) !== hooks(old) ? generation + 1 : generation;
};

const common = { namespaced: false, nameValidator: nameIsDNSSubdomain, allowCreateOnUpdate: false, allowUnconditionalUpdate: true, returnDeletedObject: false, prepareForCreate, prepareForUpdate } as const;

export const mutatingWebhookConfigurationStrategy: Strategy = {
  ...common,
  defaults: defaultMutatingWebhookConfiguration,
  validate: validateMutatingWebhookConfiguration,
  validateUpdate: validateMutatingWebhookConfigurationUpdate,
};

export const validatingWebhookConfigurationStrategy: Strategy = {
  ...common,
  defaults: defaultValidatingWebhookConfiguration,
  validate: validateValidatingWebhookConfiguration,
  validateUpdate: validateValidatingWebhookConfigurationUpdate,
};
