// flowcontrol.apiserver.k8s.io/v1: FlowSchema and PriorityLevelConfiguration
// (k8s.io/api/flowcontrol/v1), the JSON shapes the API serves. Optional
// fields are those upstream's types mark omitempty.

import type { KubeObject } from '../../../machinery/meta.js';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';
export const FLOWCONTROL_VERSION = 'v1';

/** The annotation that says whether the configuration producer keeps an object's spec (`"true"`) or leaves it alone. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

export const NAME_ALL = '*';
export const VERB_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const NON_RESOURCE_ALL = '*';
export const NAMESPACE_EVERY = '*';

export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10_000;

export interface UserSubject {
  name: string;
}
export interface GroupSubject {
  name: string;
}
export interface ServiceAccountSubject {
  namespace: string;
  name: string;
}
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount' | string;
  user?: UserSubject;
  group?: GroupSubject;
  serviceAccount?: ServiceAccountSubject;
}
export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}
export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}
export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}
export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' | string };
  rules?: PolicyRulesWithSubjects[];
}
export interface Condition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}
export interface FlowSchema extends KubeObject {
  spec: FlowSchemaSpec;
  status?: { conditions?: Condition[] };
}

export interface QueuingConfiguration {
  queues?: number;
  handSize?: number;
  queueLengthLimit?: number;
}
export interface LimitResponse {
  type: 'Queue' | 'Reject' | string;
  queuing?: QueuingConfiguration;
}
export interface LimitedPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  limitResponse: LimitResponse;
  lendablePercent?: number;
  borrowingLimitPercent?: number;
}
export interface ExemptPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  lendablePercent?: number;
}
export interface PriorityLevelConfigurationSpec {
  type: 'Exempt' | 'Limited' | string;
  limited?: LimitedPriorityLevelConfiguration;
  exempt?: ExemptPriorityLevelConfiguration;
}
export interface PriorityLevelConfiguration extends KubeObject {
  spec: PriorityLevelConfigurationSpec;
  status?: { conditions?: Condition[] };
}
