// Differential cases for ValidatingAdmissionPolicy and PodSecurity (issue 22).
// Policies and bindings are cluster-scoped: their names carry the case's
// namespace, and every binding selects only namespaces labelled with the case's
// own label, so nothing else on the shared reference is touched. Both servers
// read policies from informers: setup repeats a dry-run request until the
// binding acts (`until`), before the compared steps.

import type { DiffCase, DiffRequest } from '../case.js';

const AR = '/apis/admissionregistration.k8s.io/v1';
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };
const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const labelNs = (labels: Record<string, string>): DiffRequest => ({
  method: 'PATCH',
  path: '/api/v1/namespaces/{ns}',
  headers: mergePatch,
  body: { metadata: { labels } },
});
const configMap = (name: string, keys: number): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'v'])),
});

const maxKeysPolicy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: '{ns}-max-keys' },
  spec: {
    // the policy itself selects only the case's namespace: a policy that cannot be configured denies every
    // request it matches, bindings or not, and the reference is shared
    matchConstraints: {
      namespaceSelector: { matchLabels: { 'vap-diff': '{ns}' } },
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
    },
    variables: [{ name: 'keys', expression: 'has(object.data) ? size(object.data) : 0' }],
    validations: [
      { expression: 'variables.keys <= 2', message: 'a ConfigMap may hold at most 2 keys' },
      { expression: "!object.metadata.name.startsWith('forbidden')", messageExpression: "'name ' + object.metadata.name + ' is not allowed'", reason: 'Forbidden' },
    ],
    auditAnnotations: [{ key: 'keys', valueExpression: "string(variables.keys)" }],
  },
};
const binding = (name: string, actions: string[]): Record<string, unknown> => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName: '{ns}-max-keys', validationActions: actions, matchResources: { namespaceSelector: { matchLabels: { 'vap-diff': '{ns}' } } } },
});

const restrictedPod = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

export const cases: DiffCase[] = [
  {
    name: 'vap: validation of policies and bindings',
    steps: [
      { title: 'empty spec', method: 'POST', path: `${AR}/validatingadmissionpolicies`, body: { metadata: { name: '{ns}-empty' }, spec: {} } },
      {
        title: 'expressions that do not compile or have the wrong type',
        method: 'POST',
        path: `${AR}/validatingadmissionpolicies`,
        body: {
          metadata: { name: '{ns}-bad' },
          spec: {
            matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
            variables: [{ name: 'x', expression: 'object.foo +' }],
            validations: [
              { expression: '1 + ' },
              { expression: "'abc'" },
              { expression: 'params.x == 1' },
              { expression: 'true', messageExpression: '1', reason: 'Bad' },
              { expression: 'variables.y == 1' },
              { expression: 'object.spec', message: ' ' },
            ],
            matchConditions: [{ name: 'a', expression: 'object.metadata' }, { name: 'a', expression: 'true' }],
            auditAnnotations: [{ key: 'a b', valueExpression: '1' }],
            failurePolicy: 'Sometimes',
          },
        },
      },
      {
        title: 'rules, selectors and paramKind',
        method: 'POST',
        path: `${AR}/validatingadmissionpolicies`,
        body: {
          metadata: { name: '{ns}-rules' },
          spec: {
            paramKind: { apiVersion: 'a/b/c', kind: 'bad_kind' },
            matchConstraints: {
              matchPolicy: 'Sometimes',
              namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
              resourceRules: [
                { apiGroups: ['*', 'apps'], apiVersions: [], operations: ['*', 'CREATE', 'PATCH'], resources: ['*', 'pods'], scope: 'Everywhere' },
                { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/*', 'pods/status'], resourceNames: ['a', 'a'] },
              ],
            },
            validations: [{ expression: 'true' }],
          },
        },
      },
      {
        title: 'binding: missing policy, paramRef without name or selector, Deny with Warn',
        method: 'POST',
        path: `${AR}/validatingadmissionpolicybindings`,
        body: { metadata: { name: '{ns}-bad' }, spec: { paramRef: {}, validationActions: ['Deny', 'Warn', 'Foo', 'Deny'] } },
      },
      {
        title: 'binding: name and selector together, unknown parameterNotFoundAction, no actions',
        method: 'POST',
        path: `${AR}/validatingadmissionpolicybindings`,
        body: { metadata: { name: '{ns}-bad2' }, spec: { policyName: 'x', paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Maybe' }, validationActions: [] } },
      },
    ],
  },
  {
    name: 'vap: defaults, status and tables',
    setup: [
      { method: 'POST', path: `${AR}/validatingadmissionpolicies`, body: {
        ...maxKeysPolicy,
        metadata: { name: '{ns}-typed' },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: { resourceRules: [{ apiGroups: ['', 'apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps', 'deployments'] }] },
          validations: [
            { expression: 'object.metadata.name.size() < 100' },
            { expression: 'object.spec.replicas < 5', messageExpression: "'x' + string(object.data)" },
            { expression: 'object.foo == 1' },
          ],
        },
      } },
      { method: 'POST', path: `${AR}/validatingadmissionpolicybindings`, body: {
        metadata: { name: '{ns}-typed' },
        spec: { policyName: '{ns}-typed', validationActions: ['Audit', 'Warn'], paramRef: { name: 'p', namespace: 'default', parameterNotFoundAction: 'Allow' }, matchResources: { namespaceSelector: { matchLabels: { never: '{ns}' } } } },
      } },
    ],
    steps: [
      // status (typeChecking) is written by kube-controller-manager upstream, which the test's own reference may not run:
      // the kubectl test compares it with kube-apiserver's recorded text
      { title: 'defaults', method: 'GET', path: `${AR}/validatingadmissionpolicies/{ns}-typed`, select: 'spec' },
      { title: 'binding defaults', method: 'GET', path: `${AR}/validatingadmissionpolicybindings/{ns}-typed` },
      { title: 'policy table (age masked)', method: 'GET', path: `${AR}/validatingadmissionpolicies/{ns}-typed`, headers: table, mask: ['^\\d+[smh]$'], select: 'rows[0].cells' },
      { title: 'binding table (age masked)', method: 'GET', path: `${AR}/validatingadmissionpolicybindings/{ns}-typed`, headers: table, mask: ['^\\d+[smh]$'] },
      { title: 'a spec change bumps the generation', method: 'PATCH', path: `${AR}/validatingadmissionpolicies/{ns}-typed`, headers: mergePatch, body: { spec: { failurePolicy: 'Ignore' } }, select: 'metadata.generation' },
      { title: 'status is validated', method: 'PATCH', path: `${AR}/validatingadmissionpolicies/{ns}-typed/status`, headers: mergePatch, body: { status: { typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] } } } },
    ],
    cleanup: [
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicybindings/{ns}-typed` },
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicies/{ns}-typed` },
    ],
  },
  {
    name: 'vap: Deny refuses a ConfigMap with too many keys in a selected namespace',
    setup: [
      labelNs({ 'vap-diff': '{ns}' }),
      { method: 'POST', path: `${AR}/validatingadmissionpolicies`, body: maxKeysPolicy },
      { method: 'POST', path: `${AR}/validatingadmissionpolicybindings`, body: binding('{ns}-deny', ['Deny']) },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps?dryRun=All', body: configMap('probe', 3), until: { path: 'code', equals: 422 } },
    ],
    steps: [
      { title: 'three keys: denied with the message', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMap('big', 3) },
      { title: 'nothing was stored', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/big' },
      { title: 'two keys pass', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMap('small', 2) },
      { title: 'an update to three keys is denied', method: 'PATCH', path: '/api/v1/namespaces/{ns}/configmaps/small', headers: mergePatch, body: { data: { k9: 'v' } } },
      { title: 'messageExpression and reason Forbidden: 403', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMap('forbidden-name', 1) },
      { title: 'generateName: the generated name is in the message (masked)', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { ...configMap('', 3), metadata: { generateName: 'gen-' } }, mask: ['gen-[a-z0-9]{5}'] },
    ],
    cleanup: [
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicybindings/{ns}-deny` },
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicies/{ns}-max-keys` },
    ],
  },
  {
    name: 'vap: Warn admits with a Warning header',
    setup: [
      labelNs({ 'vap-diff': '{ns}' }),
      { method: 'POST', path: `${AR}/validatingadmissionpolicies`, body: maxKeysPolicy },
      // Deny first, until it denies; then Warn, until it admits: the Warn binding is in effect on both
      { method: 'POST', path: `${AR}/validatingadmissionpolicybindings`, body: binding('{ns}-warn', ['Deny']) },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps?dryRun=All', body: configMap('probe', 3), until: { path: 'code', equals: 422 } },
      { method: 'PATCH', path: `${AR}/validatingadmissionpolicybindings/{ns}-warn`, headers: mergePatch, body: { spec: { validationActions: ['Warn', 'Audit'] } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps?dryRun=All', body: configMap('probe', 3), until: { path: 'metadata.name', equals: 'probe' } },
    ],
    steps: [
      { title: 'three keys: created, warned', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMap('big', 3) },
      { title: 'both validations fail: two warnings', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMap('forbidden-big', 3) },
    ],
    cleanup: [
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicybindings/{ns}-warn` },
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicies/{ns}-max-keys` },
    ],
  },
  {
    name: 'vap: configuration errors (unknown paramKind, missing param with Deny)',
    setup: [
      labelNs({ 'vap-diff': '{ns}' }),
      { method: 'POST', path: `${AR}/validatingadmissionpolicies`, body: {
        metadata: { name: '{ns}-unknown-kind' },
        spec: { paramKind: { apiVersion: 'nope.example.com/v1', kind: 'Nope' }, matchConstraints: maxKeysPolicy.spec.matchConstraints, validations: [{ expression: 'true' }] },
      } },
      { method: 'POST', path: `${AR}/validatingadmissionpolicybindings`, body: {
        metadata: { name: '{ns}-unknown-kind' },
        spec: { policyName: '{ns}-unknown-kind', validationActions: ['Deny'], paramRef: { name: 'p', parameterNotFoundAction: 'Allow' }, matchResources: { namespaceSelector: { matchLabels: { 'vap-diff': '{ns}' } } } },
      } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps?dryRun=All', body: configMap('probe', 1), until: { path: 'code', equals: 422 } },
    ],
    steps: [{ title: 'every matching request fails as the policy cannot be configured', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMap('c', 1) }],
    cleanup: [
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicybindings/{ns}-unknown-kind` },
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicies/{ns}-unknown-kind` },
    ],
  },
  {
    name: 'vap: a missing param with parameterNotFoundAction Deny',
    setup: [
      labelNs({ 'vap-diff': '{ns}' }),
      { method: 'POST', path: `${AR}/validatingadmissionpolicies`, body: {
        metadata: { name: '{ns}-param' },
        spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: { namespaceSelector: { matchLabels: { 'vap-diff': '{ns}' } }, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] }, validations: [{ expression: 'size(object.data) <= int(params.data.max)' }] },
      } },
      { method: 'POST', path: `${AR}/validatingadmissionpolicybindings`, body: {
        metadata: { name: '{ns}-param' },
        spec: { policyName: '{ns}-param', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' }, matchResources: { namespaceSelector: { matchLabels: { 'vap-diff': '{ns}' } } } },
      } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/secrets?dryRun=All', body: { metadata: { name: 'probe' }, data: { a: 'YQ==' } }, until: { path: 'code', equals: 422 } },
    ],
    steps: [
      { title: 'no param: denied', method: 'POST', path: '/api/v1/namespaces/{ns}/secrets', body: { metadata: { name: 's' }, data: { a: 'YQ==', b: 'Yg==' } } },
      { title: 'the param in the request\'s namespace', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: { metadata: { name: 'limits' }, data: { max: '1' } } },
    ],
    cleanup: [
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicybindings/{ns}-param` },
      { method: 'DELETE', path: `${AR}/validatingadmissionpolicies/{ns}-param` },
    ],
  },
  {
    name: 'pod security: enforce and namespace labels',
    setup: [
      labelNs({ 'pod-security.kubernetes.io/enforce': 'restricted' }),
      // the reference reads namespaces from an informer: wait until it refuses
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods?dryRun=All', body: restrictedPod('probe'), until: { path: 'code', equals: 403 } },
    ],
    steps: [
      { title: 'restricted refuses a default pod', method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: restrictedPod('p') },
      { title: 'dry run is refused the same way', method: 'POST', path: '/api/v1/namespaces/{ns}/pods?dryRun=All', body: restrictedPod('p') },
      {
        title: 'baseline violations are listed before restricted ones',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'bad' },
          spec: {
            hostPID: true,
            securityContext: { seLinuxOptions: { type: 'spc_t', user: 'u' }, runAsUser: 0 },
            volumes: [{ name: 'h', hostPath: { path: '/tmp' } }, { name: 'g', nfs: { server: 'x', path: '/' } }, { name: 'e', emptyDir: {} }],
            initContainers: [{ name: 'i', image: 'busybox', securityContext: { procMount: 'Default', capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] } } }],
            containers: [
              { name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }], securityContext: { seccompProfile: { type: 'Unconfined' }, runAsNonRoot: false } },
              { name: 'd', image: 'nginx', ports: [{ containerPort: 81, hostPort: 81 }] },
            ],
          },
        },
      },
      { title: 'a bad level is refused', method: 'PATCH', path: '/api/v1/namespaces/{ns}', headers: mergePatch, body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'foo' } } } },
      { title: 'a bad version is refused', method: 'PATCH', path: '/api/v1/namespaces/{ns}', headers: mergePatch, body: { metadata: { labels: { 'pod-security.kubernetes.io/warn-version': 'v2' } } } },
    ],
  },
  {
    name: 'pod security: warn, and warnings about existing pods',
    setup: [
      labelNs({ 'pod-security.kubernetes.io/enforce': 'restricted' }),
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods?dryRun=All', body: restrictedPod('probe'), until: { path: 'code', equals: 403 } },
      labelNs({ 'pod-security.kubernetes.io/enforce': 'privileged', 'pod-security.kubernetes.io/warn': 'restricted' }),
      // admitted again: the reference's informer has the second labels too
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods?dryRun=All', body: restrictedPod('probe'), until: { path: 'metadata.name', equals: 'probe' } },
    ],
    steps: [
      { title: 'admitted with the warning', method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: restrictedPod('p') },
      {
        title: 'raising enforce warns about the existing pod',
        method: 'PATCH',
        path: '/api/v1/namespaces/{ns}',
        headers: mergePatch,
        body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.30' } } },
      },
    ],
  },
  {
    name: 'pod security: a pinned version judges with that version\'s checks',
    setup: [
      labelNs({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.21' }),
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods?dryRun=All', body: restrictedPod('probe'), until: { path: 'code', equals: 403 } },
    ],
    steps: [{ title: 'refused without the capabilities check (1.22)', method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: restrictedPod('q') }],
  },
  {
    name: 'pod security: a Deployment is warned about its template, never refused',
    setup: [labelNs({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'restricted' })],
    steps: [
      { title: 'restricted template in an enforce=restricted namespace', method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/deployments?dryRun=All', body: {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { hostPID: true, containers: [{ name: 'c', image: 'nginx' }] } } },
      } },
    ],
  },
];
