// flowcontrol.apiserver.k8s.io/v1: the bootstrap configuration as a fresh
// kube-apiserver 1.32 holds it (after its configuration producer and consumer
// ran: the Dangling condition is waited for), upstream's validation messages,
// defaults, the mandatory objects' fixed specs, and Tables.

import type { DiffCase } from '../case.js';

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const PL = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const AGE = '^\\d+[smhd]$';
const DANGLING = { path: 'status.conditions.0.type', equals: 'Dangling' };
/** The spec of a mandatory object, printed as a Go struct (%#v) by upstream: masked, the rest of the message compared. */
const GO_SPEC = 'Invalid value: [^:]*\\{.*\\}: spec of';
const fcObject = (kind: string, name: string, spec: unknown): Record<string, unknown> => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind, metadata: { name }, spec });

export const cases: DiffCase[] = [
  {
    name: 'flowcontrol: bootstrap configuration',
    steps: [
      { title: 'exempt level', method: 'GET', path: `${PL}/exempt` },
      { title: 'catch-all level', method: 'GET', path: `${PL}/catch-all` },
      { title: 'global-default level', method: 'GET', path: `${PL}/global-default` },
      { title: 'workload-low level', method: 'GET', path: `${PL}/workload-low` },
      { title: 'leader-election level', method: 'GET', path: `${PL}/leader-election` },
      { title: 'exempt schema', method: 'GET', path: `${FS}/exempt`, until: DANGLING },
      { title: 'catch-all schema', method: 'GET', path: `${FS}/catch-all`, until: DANGLING },
      { title: 'probes schema', method: 'GET', path: `${FS}/probes`, until: DANGLING },
      { title: 'system-leader-election schema', method: 'GET', path: `${FS}/system-leader-election`, until: DANGLING },
      { title: 'system-node-high schema', method: 'GET', path: `${FS}/system-node-high`, until: DANGLING },
      { title: 'kube-system-service-accounts schema', method: 'GET', path: `${FS}/kube-system-service-accounts`, until: DANGLING },
      { title: 'level table', method: 'GET', path: `${PL}/workload-high`, headers: TABLE, mask: [AGE] },
      { title: 'schema table', method: 'GET', path: `${FS}/service-accounts`, headers: TABLE, mask: [AGE] },
    ],
  },
  {
    name: 'flowcontrol: create, defaults, status and mandatory specs',
    steps: [
      { title: 'a level with defaults', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-pl', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }) },
      { title: 'a schema with defaults', method: 'POST', path: FS, body: fcObject('FlowSchema', 'apis-diff-fs', { priorityLevelConfiguration: { name: 'apis-diff-pl' }, rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'apis-diff', name: '*' } }], resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], namespaces: ['*'] }] }] }) },
      { title: 'the consumer marks it found', method: 'GET', path: `${FS}/apis-diff-fs`, until: DANGLING },
      { title: 'a schema of a missing level', method: 'POST', path: FS, body: fcObject('FlowSchema', 'apis-diff-dangling', { priorityLevelConfiguration: { name: 'apis-diff-none' }, matchingPrecedence: 5000, distinguisherMethod: { type: 'ByNamespace' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'apis-diff' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/apis-diff/*'] }] }] }) },
      { title: 'the consumer marks it dangling', method: 'GET', path: `${FS}/apis-diff-dangling`, until: DANGLING },
      { title: 'table: MissingPL True', method: 'GET', path: `${FS}/apis-diff-dangling`, headers: TABLE, mask: [AGE] },
      { title: 'status patch', method: 'PATCH', path: `${PL}/apis-diff-pl/status`, headers: MERGE, body: { status: { conditions: [{ type: 'Custom', status: 'True', reason: 'Test' }] } } },
      { title: 'status: a condition without type', method: 'PATCH', path: `${PL}/apis-diff-pl/status`, headers: MERGE, body: { status: { conditions: [{ status: 'True' }] } } },
      { title: 'spec change bumps generation', method: 'PATCH', path: `${PL}/apis-diff-pl`, headers: MERGE, body: { spec: { limited: { nominalConcurrencyShares: 7 } } } },
      { title: 'the catch-all level is fixed', method: 'PATCH', path: `${PL}/catch-all`, headers: MERGE, body: { spec: { limited: { nominalConcurrencyShares: 6 } } }, mask: [GO_SPEC] },
      { title: 'the exempt schema is fixed', method: 'PATCH', path: `${FS}/exempt`, headers: MERGE, body: { spec: { matchingPrecedence: 2 } }, mask: [GO_SPEC] },
      { title: 'the exempt level: only spec.exempt may change', method: 'PATCH', path: `${PL}/exempt`, headers: MERGE, body: { spec: { type: 'Limited' } }, mask: [GO_SPEC] },
    ],
    cleanup: [
      { method: 'DELETE', path: `${FS}/apis-diff-fs` },
      { method: 'DELETE', path: `${FS}/apis-diff-dangling` },
      { method: 'DELETE', path: `${PL}/apis-diff-pl` },
    ],
  },
  {
    name: 'flowcontrol: validation',
    steps: [
      {
        title: 'schema: precedence, names, subjects, rules',
        method: 'POST',
        path: FS,
        body: fcObject('FlowSchema', 'apis-diff-bad', {
          matchingPrecedence: 20000, priorityLevelConfiguration: { name: 'Not_A_Name' }, distinguisherMethod: { type: 'ByFoo' },
          rules: [
            { subjects: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['nope', '/a/*/b', '/with space', '//x'] }] },
            { subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'x' }, user: { name: 'u' } }, { kind: 'Robot' }, { kind: 'User' }, { kind: 'Group', group: { name: '' } }], resourceRules: [{ verbs: ['fly'], apiGroups: ['*', 'apps'], resources: ['*', 'pods'], namespaces: ['Bad_NS'] }] },
            { subjects: [{ kind: 'User', user: { name: 'u' } }] },
          ],
        }),
      },
      { title: 'schema: precedence 1 is for exempt only; no level', method: 'POST', path: FS, body: fcObject('FlowSchema', 'apis-diff-bad2', { matchingPrecedence: 1, priorityLevelConfiguration: { name: '' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'u' } }], resourceRules: [{ verbs: ['*', 'get'], apiGroups: [], resources: [], namespaces: [] }] }] }) },
      { title: 'level: shares, percents, queuing', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-bad', { type: 'Limited', limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -2, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: -1 } } } }) },
      { title: 'level: entropy', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-bits', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 1000000, handSize: 4000 } } } }) },
      { title: 'level: Exempt type for another name', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-ex', { type: 'Exempt', limited: { limitResponse: { type: 'Reject' } } }) },
      { title: 'level: unknown type and limit response', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-ty', { type: 'Sometimes' }) },
      { title: 'level: Reject with queuing, Queue without', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-rq', { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 1 } } } }) },
      { title: 'level: Limited without limited', method: 'POST', path: PL, body: fcObject('PriorityLevelConfiguration', 'apis-diff-nl', { type: 'Limited', exempt: {} }) },
    ],
  },
];
