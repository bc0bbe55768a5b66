// scheduling.k8s.io/v1 priority classes (the system ones bootstrapped and
// undeletable), node.k8s.io/v1 runtime classes and certificates.k8s.io/v1
// certificate signing requests (approval and status subresources, the
// request's signature and the conditions' rules).

import type { DiffCase } from '../case.js';

const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';
const RC = '/apis/node.k8s.io/v1/runtimeclasses';
const CSR = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const AGE = '^\\d+[smhd]$';
/** An ECDSA P-256 certificate request for CN=apis-diff, PEM then base64 (made with openssl). */
const REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITk1IWUNBUUF3RkRFU01CQUdBMVVFQXd3SllYQnBjeTFrYVdabU1Ga3dFd1lIS29aSXpqMENBUVlJS29aSQp6ajBEQVFjRFFnQUVLcEJVS3ZydUhXdStVMU9oSTRRL2VxOXVyVnB4R2ZvcENkWit1aExiSExIZzFXaE0xSUVYCkZxdDFJQjkzcnoyUzJXVU9BUDRUUEx1cWcwNVQwRzEwTTZBQU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCYmYKNjRPOFFtNEYxV3NibWJJb2xlUFlqVmliQzJ0SnRWME9LdHlsUzBvVUFpQndRZ2FhdG96NEdoWEY1bmR3cVpmYwp1T0FsZzc3NDJrSjQ5UmpUQmJ1Wk13PT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';
/** The same request with one byte of its signature flipped. */
const BAD_SIGNATURE = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITk1IWUNBUUF3RkRFU01CQUdBMVVFQXd3SllYQnBjeTFrYVdabU1Ga3dFd1lIS29aSXpqMENBUVlJS29aSQp6ajBEQVFjRFFnQUVLcEJVS3ZydUhXdStVMU9oSTRRL2VxOXVyVnB4R2ZvcENkWit1aExiSExIZzFXaE0xSUVYCkZxdDFJQjkzcnoyUzJXVU9BUDRUUEx1cWcwNVQwRzEwTTZBQU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCYmYKNjRPOFFtNEYxV3NibWJJb2xlUFlqVmliQzJ0SnRWME9LdHlsUzBvVUFpQndRZ2FhdG96NEdoWEY1bmR3cVpmYwp1T0FsZzc3NDJrSjQ5UmpUQmJxWk13PT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';
/** A self-signed certificate (CN=cert), PEM then base64. */
const CERTIFICATE = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkRENDQVJtZ0F3SUJBZ0lVR2Q3M1FVZ2VPdjhlVzZoMjNITytjMXhpa01Vd0NnWUlLb1pJemowRUF3SXcKRHpFTk1Bc0dBMVVFQXd3RVkyVnlkREFlRncweU5qRXhNalV3TlRBeU5ETmFGdzB6TmpFeE1qSXdOVEF5TkROYQpNQTh4RFRBTEJnTlZCQU1NQkdObGNuUXdXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FBU2dUdGNHClZCUWs1eFpDRjQ4NmtVK0Y0QUNlb0tSOWY5MGsvUitjcGw1SHIwR3BKMHJEU3MvbkZXbkVJa0x2VnJqNXEvaC8KVUY4NEg2UnBpVVE5Sml2dW8xTXdVVEFkQmdOVkhRNEVGZ1FVbjJHaUQzRVRpMkVPbFFLeGNLZ0NqbjJvSUVvdwpId1lEVlIwakJCZ3dGb0FVbjJHaUQzRVRpMkVPbFFLeGNLZ0NqbjJvSUVvd0R3WURWUjBUQVFIL0JBVXdBd0VCCi96QUtCZ2dxaGtqT1BRUURBZ05KQURCR0FpRUFsYjkreTc1emk2ekJSN3RzUTZLT2U0M0lLdG1hR2dWRm92bUIKcHJCL2Y5WUNJUUNYV0xYd2VSWEhBOUQ3ZlBwaUhQK0JYSmhITWowbmlHb3FMM2ZlOU1wQ0ZBPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=';
const csr = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec });

export const cases: DiffCase[] = [
  {
    // Both servers run with --allow-privileged at its default (false).
    name: 'cluster policy: privileged containers without --allow-privileged',
    steps: [
      { title: 'a privileged container', method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'priv' }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } } },
      { title: 'privileged: false is fine', method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unpriv' }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: false } }] } }, select: 'spec.containers.0.securityContext' },
      {
        title: 'a privileged init container in a deployment template', method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/deployments',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'priv' }, spec: { selector: { matchLabels: { app: 'p' } }, template: { metadata: { labels: { app: 'p' } }, spec: { containers: [{ name: 'c', image: 'busybox' }], initContainers: [{ name: 'i', image: 'busybox', securityContext: { privileged: true } }] } } } },
      },
    ],
  },
  {
    name: 'scheduling: priority classes',
    steps: [
      { title: 'the system classes exist', method: 'GET', path: `${PC}/system-cluster-critical`, mask: [AGE] },
      { title: 'system-node-critical', method: 'GET', path: `${PC}/system-node-critical` },
      { title: 'a system class cannot be deleted', method: 'DELETE', path: `${PC}/system-node-critical` },
      { title: 'create: preemption policy defaulted', method: 'POST', path: PC, body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'apis-diff-high' }, value: 1000, description: 'high' } },
      { title: 'table', method: 'GET', path: `${PC}/apis-diff-high`, headers: TABLE, mask: [AGE] },
      { title: 'the value may not change', method: 'PATCH', path: `${PC}/apis-diff-high`, headers: MERGE, body: { value: 2000 } },
      { title: 'invalid: above the user maximum', method: 'POST', path: PC, body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'apis-diff-huge' }, value: 1000000001 } },
      { title: 'invalid: a system- name', method: 'POST', path: PC, body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'system-apis-diff' }, value: 10, preemptionPolicy: 'Sometimes' } },
      { title: 'delete a user class', method: 'DELETE', path: `${PC}/apis-diff-high` },
    ],
    cleanup: [{ method: 'DELETE', path: `${PC}/apis-diff-high` }],
  },
  {
    name: 'node: runtime classes',
    steps: [
      { title: 'create', method: 'POST', path: RC, body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'apis-diff-gvisor' }, handler: 'runsc', overhead: { podFixed: { cpu: '250m', memory: '64Mi' } }, scheduling: { nodeSelector: { runtime: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] } } },
      { title: 'get', method: 'GET', path: `${RC}/apis-diff-gvisor` },
      { title: 'table', method: 'GET', path: `${RC}/apis-diff-gvisor`, headers: TABLE, mask: [AGE] },
      { title: 'the handler is immutable', method: 'PATCH', path: `${RC}/apis-diff-gvisor`, headers: MERGE, body: { handler: 'kata' } },
      { title: 'invalid: handler, tolerations', method: 'POST', path: RC, body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'apis-diff-bad' }, handler: 'Not_A_Label', scheduling: { tolerations: [{ operator: 'Equal', value: 'x' }, { key: 'k', operator: 'Exists', value: 'v', effect: 'Never' }] } } },
    ],
    cleanup: [{ method: 'DELETE', path: `${RC}/apis-diff-gvisor` }],
  },
  {
    name: 'certificates: signing requests',
    steps: [
      { title: 'create', method: 'POST', path: CSR, body: csr('apis-diff-csr', { request: REQUEST, signerName: 'example.com/signer', usages: ['client auth', 'digital signature'], expirationSeconds: 86400 }) },
      { title: 'table: Pending', method: 'GET', path: `${CSR}/apis-diff-csr`, headers: TABLE, mask: [AGE] },
      { title: 'conditions cannot be set through the main resource', method: 'PATCH', path: `${CSR}/apis-diff-csr`, headers: MERGE, body: { spec: { usages: ['server auth'] }, status: { conditions: [{ type: 'Approved', status: 'True' }] } } },
      { title: 'the certificate cannot be set through /approval', method: 'PATCH', path: `${CSR}/apis-diff-csr/approval`, headers: MERGE, body: { status: { certificate: CERTIFICATE } } },
      { title: 'approval: a False Approved condition', method: 'PATCH', path: `${CSR}/apis-diff-csr/approval`, headers: MERGE, body: { status: { conditions: [{ type: 'Approved', status: 'False' }] } } },
      { title: 'approval: approve', method: 'PUT', path: `${CSR}/apis-diff-csr/approval`, body: { ...csr('apis-diff-csr', { request: REQUEST, signerName: 'example.com/signer', usages: ['client auth'] }), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } } },
      { title: 'approval: denying too is refused', method: 'PATCH', path: `${CSR}/apis-diff-csr/approval`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'add', path: '/status/conditions/-', value: { type: 'Denied', status: 'True' } }] },
      { title: 'status: conditions may not be added there', method: 'PATCH', path: `${CSR}/apis-diff-csr/status`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'add', path: '/status/conditions/-', value: { type: 'Denied', status: 'True' } }] },
      { title: 'status: an invalid certificate', method: 'PATCH', path: `${CSR}/apis-diff-csr/status`, headers: MERGE, body: { status: { certificate: 'bm90IGEgY2VydA==' } } },
      { title: 'status: issue the certificate', method: 'PATCH', path: `${CSR}/apis-diff-csr/status`, headers: MERGE, body: { status: { certificate: CERTIFICATE } } },
      { title: 'table: Approved,Issued', method: 'GET', path: `${CSR}/apis-diff-csr`, headers: TABLE, mask: [AGE] },
      { title: 'list by signer name', method: 'GET', path: `${CSR}?fieldSelector=spec.signerName%3Dexample.com%2Fnone` },
      { title: 'an unknown field label', method: 'GET', path: `${CSR}?fieldSelector=spec.username%3Dx` },
      { title: 'invalid: not a PEM request, no usages, bad signer, short expiry', method: 'POST', path: CSR, body: csr('apis-diff-bad', { request: 'bm90IGEgY3Ny', signerName: 'signer', usages: [], expirationSeconds: 60 }) },
      { title: 'invalid: a wrong signature, unknown and duplicate usages, legacy signer', method: 'POST', path: CSR, body: csr('apis-diff-bad2', { request: BAD_SIGNATURE, signerName: 'kubernetes.io/legacy-unknown', usages: ['client auth', 'client auth', 'flying'] }) },
      { title: 'invalid: a signer with a bad domain', method: 'POST', path: CSR, body: csr('apis-diff-bad3', { request: REQUEST, signerName: 'Example_COM/x', usages: ['client auth'] }) },
    ],
    cleanup: [{ method: 'DELETE', path: `${CSR}/apis-diff-csr` }],
  },
];
