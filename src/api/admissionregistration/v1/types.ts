// admissionregistration.k8s.io/v1 webhook configurations (upstream's
// k8s.io/api/admissionregistration/v1 types): MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration, cluster-scoped, each a list of webhooks.

import type { KubeObject } from '../../../machinery/meta.js';

export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.k8s.io';

export type OperationType = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*';
export type ScopeType = 'Cluster' | 'Namespaced' | '*';
export type FailurePolicyType = 'Ignore' | 'Fail';
export type MatchPolicyType = 'Exact' | 'Equivalent';
export type SideEffectClass = 'Unknown' | 'None' | 'Some' | 'NoneOnDryRun';
export type ReinvocationPolicyType = 'Never' | 'IfNeeded';

export interface RuleWithOperations {
  operations?: OperationType[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: ScopeType;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 PEM bundle. */
  caBundle?: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface ValidatingWebhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: FailurePolicyType;
  matchPolicy?: MatchPolicyType;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: SideEffectClass;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

export interface MutatingWebhook extends ValidatingWebhook {
  reinvocationPolicy?: ReinvocationPolicyType;
}

export interface ValidatingWebhookConfiguration extends KubeObject {
  webhooks?: ValidatingWebhook[];
}

export interface MutatingWebhookConfiguration extends KubeObject {
  webhooks?: MutatingWebhook[];
}
