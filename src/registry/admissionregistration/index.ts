// admissionregistration.k8s.io/v1: its catalog entries, stored under the bare
// resource name as upstream keys them (/registry/mutatingwebhookconfigurations/NAME).
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { validatingAdmissionPolicyStrategy } from './validatingadmissionpolicies.js';
import { validatingAdmissionPolicyBindingStrategy } from './validatingadmissionpolicybindings.js';
import { mutatingWebhookConfigurationStrategy } from './mutatingwebhookconfigurations.js';
import { validatingWebhookConfigurationStrategy } from './validatingwebhookconfigurations.js';

const admissionregistration = { group: 'admissionregistration.k8s.io', version: 'v1', plainKey: true, categories: ['api-extensions'] } as const;

export function admissionregistrationEntries(): CatalogEntry[] {
  const g = { ...admissionregistration, categories: [...admissionregistration.categories] };
  return [
    entry({ ...g, resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', singular: 'validatingadmissionpolicy', strategy: validatingAdmissionPolicyStrategy }),
    entry({ ...g, resource: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', singular: 'validatingadmissionpolicybinding', strategy: validatingAdmissionPolicyBindingStrategy }),
    entry({ ...g, resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', singular: 'mutatingwebhookconfiguration', strategy: mutatingWebhookConfigurationStrategy }),
    entry({ ...g, resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', singular: 'validatingwebhookconfiguration', strategy: validatingWebhookConfigurationStrategy }),
  ];
}
