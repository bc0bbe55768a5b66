// Issue 33's small remaining APIs, each against kube-apiserver 1.32: the 406
// for a Table asked of a kind with no Table form (the reviews, pods/binding,
// pods/eviction), CSR patches that change metadata on every subresource,
// /api/v1's bindings and componentstatuses, and the connect subresources
// (listed in discovery; answered up to where upstream would reach a kubelet).

import type { DiffCase } from '../case.js';

const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const TABLE_OR_JSON = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const CSR = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
/** An ECDSA P-256 certificate request for CN=apis-diff, PEM then base64 (the one cluster-policy.ts uses). */
const REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITk1IWUNBUUF3RkRFU01CQUdBMVVFQXd3SllYQnBjeTFrYVdabU1Ga3dFd1lIS29aSXpqMENBUVlJS29aSQp6ajBEQVFjRFFnQUVLcEJVS3ZydUhXdStVMU9oSTRRL2VxOXVyVnB4R2ZvcENkWit1aExiSExIZzFXaE0xSUVYCkZxdDFJQjkzcnoyUzJXVU9BUDRUUEx1cWcwNVQwRzEwTTZBQU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCYmYKNjRPOFFtNEYxV3NibWJJb2xlUFlqVmliQzJ0SnRWME9LdHlsUzBvVUFpQndRZ2FhdG96NEdoWEY1bmR3cVpmYwp1T0FsZzc3NDJrSjQ5UmpUQmJ1Wk13PT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';
const ssar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: '{ns}' } } };
const pod = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

export const cases: DiffCase[] = [
  {
    name: 'issue 33: a Table of a kind without one is a 406',
    setup: [{ method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: pod('p') }],
    steps: [
      { title: 'SelfSubjectAccessReview as a Table', method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', headers: TABLE, body: ssar },
      { title: 'SelfSubjectAccessReview as a Table or JSON: JSON', method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', headers: TABLE_OR_JSON, body: ssar, select: 'status' },
      {
        title: 'SubjectAccessReview as a Table',
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        headers: TABLE,
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'u', resourceAttributes: { verb: 'get', resource: 'pods' } } },
      },
      {
        title: 'LocalSubjectAccessReview as a Table',
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/namespaces/{ns}/localsubjectaccessreviews',
        headers: TABLE,
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: '{ns}' }, spec: { user: 'u', resourceAttributes: { verb: 'get', resource: 'pods', namespace: '{ns}' } } },
      },
      { title: 'SelfSubjectRulesReview as a Table', method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', headers: TABLE, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: '{ns}' } } },
      { title: 'SelfSubjectReview as a Table', method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: TABLE, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
      { title: 'TokenReview as a Table', method: 'POST', path: '/apis/authentication.k8s.io/v1/tokenreviews', headers: TABLE, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'x' } } },
      {
        title: 'pods/binding as a Table',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods/p/binding',
        headers: TABLE,
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } },
      },
      { title: 'the pod was not bound', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p', select: 'spec' },
      { title: 'pods/eviction as a Table', method: 'POST', path: '/api/v1/namespaces/{ns}/pods/p/eviction', headers: TABLE, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } } },
      { title: 'the pod was not evicted', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p', select: 'metadata.name' },
    ],
  },
  {
    name: 'issue 33: CSR merge patches keep metadata on every subresource',
    steps: [
      { title: 'create', method: 'POST', path: CSR, body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'issue33-csr' }, spec: { request: REQUEST, signerName: 'example.com/signer', usages: ['client auth'] } } },
      { title: 'annotation on the main resource', method: 'PATCH', path: `${CSR}/issue33-csr`, headers: MERGE, body: { metadata: { annotations: { main: 'yes' } } }, select: 'metadata.annotations' },
      { title: 'annotation on /approval', method: 'PATCH', path: `${CSR}/issue33-csr/approval`, headers: MERGE, body: { metadata: { annotations: { approval: 'yes' } } }, select: 'metadata.annotations' },
      { title: 'annotation on /status', method: 'PATCH', path: `${CSR}/issue33-csr/status`, headers: MERGE, body: { metadata: { annotations: { status: 'yes' } } }, select: 'metadata.annotations' },
      { title: 'label on /status', method: 'PATCH', path: `${CSR}/issue33-csr/status`, headers: MERGE, body: { metadata: { labels: { l: 'v' } } }, select: 'metadata.labels' },
      { title: 'all kept', method: 'GET', path: `${CSR}/issue33-csr`, select: 'metadata.annotations' },
    ],
    cleanup: [{ method: 'DELETE', path: `${CSR}/issue33-csr` }],
  },
  {
    name: 'issue 33: /api/v1 discovery lists bindings, componentstatuses and the kubelet-facing subresources',
    steps: [
      ...['bindings', 'componentstatuses', 'pods/log', 'pods/exec', 'pods/attach', 'pods/portforward', 'pods/proxy', 'nodes/proxy', 'services/proxy'].map((name) => ({
        title: `/api/v1 lists ${name}`,
        method: 'GET' as const,
        path: '/api/v1',
        select: `resources[name=${name}]`,
      })),
      ...['bindings', 'componentstatuses', 'pods', 'nodes', 'services'].map((name) => ({
        title: `aggregated discovery of ${name}`,
        method: 'GET' as const,
        path: '/api',
        headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
        select: `items[0].versions[version=v1].resources[resource=${name}]`,
      })),
    ],
  },
  {
    name: 'issue 33: POST bindings binds a pod as pods/binding does',
    setup: [
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: pod('p') },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: pod('q') },
    ],
    steps: [
      {
        title: 'bind p to n1',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/bindings',
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p', annotations: { bound: 'by-bindings' } }, target: { kind: 'Node', name: 'n1' } },
      },
      { title: 'p has its node, the annotation and PodScheduled', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p', select: 'spec.nodeName' },
      { title: 'the annotation', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p', select: 'metadata.annotations' },
      { title: 'PodScheduled', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p', select: 'status.conditions[type=PodScheduled].status' },
      { title: 'binding again is a conflict', method: 'POST', path: '/api/v1/namespaces/{ns}/bindings', body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n2' } } },
      { title: 'a missing pod', method: 'POST', path: '/api/v1/namespaces/{ns}/bindings', body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'nope' }, target: { kind: 'Node', name: 'n1' } } },
      { title: 'no target name', method: 'POST', path: '/api/v1/namespaces/{ns}/bindings', body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'q' }, target: { kind: 'Node' } } },
      { title: 'another namespace in the body', method: 'POST', path: '/api/v1/namespaces/{ns}/bindings', body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'q', namespace: 'other' }, target: { kind: 'Node', name: 'n1' } } },
      { title: 'q is still unbound', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/q', select: 'spec' },
      { title: 'GET of bindings is not served', method: 'GET', path: '/api/v1/namespaces/{ns}/bindings' },
    ],
  },
  {
    name: 'issue 33: componentstatuses answer for the store',
    steps: [
      { title: 'get etcd-0', method: 'GET', path: '/api/v1/componentstatuses/etcd-0' },
      { title: 'list: the store entry', method: 'GET', path: '/api/v1/componentstatuses', select: 'items[metadata.name=etcd-0]' },
      { title: 'an unknown component', method: 'GET', path: '/api/v1/componentstatuses/nope' },
      { title: 'get etcd-0 as a Table (kubectl get cs)', method: 'GET', path: '/api/v1/componentstatuses/etcd-0', headers: TABLE },
      { title: 'create is not served', method: 'POST', path: '/api/v1/componentstatuses', body: { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } } },
    ],
  },
  {
    name: 'issue 33: connect subresources with no kubelet to reach',
    setup: [{ method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: pod('p') }],
    steps: [
      { title: 'log of an unscheduled pod', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p/log' },
      { title: 'log of a missing pod', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/nope/log' },
      { title: 'exec in an unscheduled pod', method: 'POST', path: '/api/v1/namespaces/{ns}/pods/p/exec?command=ls&stdout=true' },
      { title: 'attach to a missing pod', method: 'POST', path: '/api/v1/namespaces/{ns}/pods/nope/attach?stdout=true' },
      { title: 'portforward to an unscheduled pod', method: 'POST', path: '/api/v1/namespaces/{ns}/pods/p/portforward?ports=80' },
      { title: 'proxy to an unscheduled pod', method: 'GET', path: '/api/v1/namespaces/{ns}/pods/p/proxy/' },
      { title: 'proxy to a missing node', method: 'GET', path: '/api/v1/nodes/nope/proxy/' },
      { title: 'proxy to a missing service', method: 'GET', path: '/api/v1/namespaces/{ns}/services/nope/proxy/' },
    ],
  },
];
