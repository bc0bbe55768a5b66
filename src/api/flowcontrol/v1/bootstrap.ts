// The configuration every kube-apiserver 1.32 keeps in place (upstream's
// k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap): the mandatory objects
// (exempt and catch-all), restored whenever changed or deleted, and the
// suggested ones, created when missing and kept current while their
// `apf.kubernetes.io/autoupdate-spec` annotation says "true". Data only.

import type {
  FlowSchema,
  FlowSchemaSpec,
  NonResourcePolicyRule,
  PriorityLevelConfiguration,
  PriorityLevelConfigurationSpec,
  ResourcePolicyRule,
  Subject,
} from './types.js';
import { AUTO_UPDATE_ANNOTATION } from './types.js';

const group = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const user = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemSA = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

const ALL_RESOURCES: ResourcePolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
const ALL_NON_RESOURCES: NonResourcePolicyRule = { verbs: ['*'], nonResourceURLs: ['*'] };

function rule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): ResourcePolicyRule {
  return clusterScope ? { verbs, apiGroups, resources, clusterScope, namespaces } : { verbs, apiGroups, resources, namespaces };
}

function fs(name: string, pl: string, matchingPrecedence: number, distinguisher: '' | 'ByUser' | 'ByNamespace', subjects: Subject[], resourceRules?: ResourcePolicyRule[], nonResourceRules?: NonResourcePolicyRule[]): FlowSchema {
  const spec: FlowSchemaSpec = { priorityLevelConfiguration: { name: pl }, matchingPrecedence };
  if (distinguisher !== '') spec.distinguisherMethod = { type: distinguisher };
  const r: FlowSchemaSpec['rules'] = [{ subjects }];
  if (resourceRules !== undefined) r[0]!.resourceRules = resourceRules;
  if (nonResourceRules !== undefined) r[0]!.nonResourceRules = nonResourceRules;
  spec.rules = r;
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec };
}

function fsAll(name: string, pl: string, matchingPrecedence: number, distinguisher: '' | 'ByUser' | 'ByNamespace', subjects: Subject[]): FlowSchema {
  return fs(name, pl, matchingPrecedence, distinguisher, subjects, [ALL_RESOURCES], [ALL_NON_RESOURCES]);
}

function pl(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec };
}

function queued(shares: number, lendablePercent: number, queues: number, handSize: number, queueLengthLimit: number): PriorityLevelConfigurationSpec {
  return { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } } };
}

export const MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  pl('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
  pl('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  fsAll('exempt', 'exempt', 1, '', group('system:masters')),
  fsAll('catch-all', 'catch-all', 10000, 'ByUser', group('system:unauthenticated', 'system:authenticated')),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  pl('system', queued(30, 33, 64, 6, 50)),
  pl('node-high', queued(40, 25, 64, 6, 50)),
  pl('leader-election', queued(10, 0, 16, 4, 50)),
  pl('workload-high', queued(40, 50, 128, 6, 50)),
  pl('workload-low', queued(100, 90, 128, 6, 50)),
  pl('global-default', queued(20, 50, 128, 6, 50)),
];

const GET_CREATE_UPDATE = ['get', 'create', 'update'];

export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  fsAll('system-nodes', 'system', 500, 'ByUser', group('system:nodes')),
  fs('system-node-high', 'node-high', 400, 'ByUser', group('system:nodes'), [
    rule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
    rule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false),
  ]),
  fs('probes', 'exempt', 2, '', group('system:unauthenticated', 'system:authenticated'), undefined, [
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] },
  ]),
  fs('system-leader-election', 'leader-election', 100, 'ByUser', [...user('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemSA('*')], [
    rule(GET_CREATE_UPDATE, ['coordination.k8s.io'], ['leases'], ['*'], false),
  ]),
  fs('workload-leader-election', 'leader-election', 200, 'ByUser', kubeSystemSA('*'), [
    rule(GET_CREATE_UPDATE, [''], ['endpoints', 'configmaps'], ['*'], false),
    rule(GET_CREATE_UPDATE, ['coordination.k8s.io'], ['leases'], ['*'], false),
  ]),
  fs('endpoint-controller', 'workload-high', 150, 'ByUser', [...user('system:kube-controller-manager'), ...kubeSystemSA('endpoint-controller', 'endpointslicemirroring-controller')], [
    rule(GET_CREATE_UPDATE, [''], ['endpoints'], ['*'], false),
  ]),
  fsAll('kube-controller-manager', 'workload-high', 800, 'ByNamespace', user('system:kube-controller-manager')),
  fsAll('kube-scheduler', 'workload-high', 800, 'ByNamespace', user('system:kube-scheduler')),
  fsAll('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', kubeSystemSA('*')),
  fsAll('service-accounts', 'workload-low', 9000, 'ByUser', group('system:serviceaccounts')),
  fsAll('global-default', 'global-default', 9900, 'ByUser', group('system:unauthenticated', 'system:authenticated')),
];

export function mandatoryFlowSchema(name: string): FlowSchema | undefined {
  return MANDATORY_FLOW_SCHEMAS.find((o) => o.metadata.name === name);
}
export function mandatoryPriorityLevel(name: string): PriorityLevelConfiguration | undefined {
  return MANDATORY_PRIORITY_LEVELS.find((o) => o.metadata.name === name);
}
