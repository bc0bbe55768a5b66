// Differential cases for admission webhooks (issue 22): one real HTTPS webhook
// on 127.0.0.1 (started when the cases load, certificates from src/auth/pki)
// that both apiary and the reference kube-apiserver call. Every configuration
// is limited to the case's own namespace by its namespaceSelector (the
// reference is shared), and removed in cleanup. Each case first waits, with a
// dry-run probe, until the server's configuration watch has the webhook.

import type { DiffCase, DiffRequest } from '../case.js';
import { addLabel, startWebhookServer, type Review } from '../../../helpers/webhook-server.js';

const hook = await startWebhookServer();
hook.unref();

hook.on('/mutate', (review: Review) => addLabel(review, 'mutated', 'yes'));
hook.on('/validate', (review: Review, res) => {
  const name: string = review.request.object?.metadata?.name ?? review.request.oldObject?.metadata?.name ?? '';
  if (name.startsWith('e500')) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end('boom\n');
    return 'handled';
  }
  if (name.startsWith('uid')) return { allowed: true, uid: 'not-the-uid' };
  if (name.startsWith('deny')) return { allowed: false, status: { code: 403, message: 'names starting with deny are refused' }, warnings: ['seen by the validating webhook'] };
  if (name.startsWith('bare')) return { allowed: false, status: { code: 200 } };
  return { allowed: true, warnings: ['seen by the validating webhook'] };
});
hook.on('/faulty-patch', (review: Review) => {
  const name: string = review.request.object?.metadata?.name ?? '';
  if (name.startsWith('undecodable')) return { allowed: true, rawPatch: Buffer.from('{"op":').toString('base64'), patchType: 'JSONPatch' };
  if (name.startsWith('unappliable')) return { allowed: true, patch: [{ op: 'replace', path: '/metadata/nothere/x', value: 1 }] };
  if (name.startsWith('notype')) return { allowed: true, rawPatch: Buffer.from('[]').toString('base64') };
  return { allowed: true };
});

const REG = '/apis/admissionregistration.k8s.io/v1';
const inCase = { matchLabels: { 'kubernetes.io/metadata.name': '{ns}' } };

function webhook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: hook.url(path), caBundle: hook.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    namespaceSelector: inCase,
    ...extra,
  };
}

function configuration(kind: 'mutating' | 'validating', name: string, hooks: Record<string, unknown>[]): DiffRequest {
  const Kind = kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  return { method: 'POST', path: `${REG}/${kind}webhookconfigurations`, body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: Kind, metadata: { name }, webhooks: hooks } };
}

const cm = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

/** Repeats a dry-run create until the webhook's answer shows (the server's informer has the configuration). */
function waitFor(name: string, path: string, equals: unknown): DiffRequest {
  return { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps?dryRun=All', body: cm(name), until: { path, equals } };
}

const deleteOf = (kind: 'mutating' | 'validating', name: string): DiffRequest => ({ method: 'DELETE', path: `${REG}/${kind}webhookconfigurations/${name}` });

export const cases: DiffCase[] = [
  {
    name: 'webhooks: configuration validation and defaults',
    steps: [
      {
        title: 'every webhook field checked',
        method: 'POST',
        path: `${REG}/validatingwebhookconfigurations`,
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: '{ns}-invalid' },
          webhooks: [
            { name: 'short', clientConfig: { url: 'http://example.com/x?q=1' }, timeoutSeconds: 31,
              rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods'] }],
              matchConditions: [{ name: 'c', expression: 'object.metadata.name' }] },
            { name: 'a.b.c', clientConfig: { url: 'https://u:p@example.com/#frag' }, sideEffects: 'Some', admissionReviewVersions: ['v2', 'v2'], failurePolicy: 'Maybe', matchPolicy: 'Close',
              namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }, { key: 'b', operator: 'Exists', values: ['x'] }, { key: 'c', operator: 'Near' }] } },
            { name: 'a.b.c', clientConfig: { service: { namespace: '', name: '', path: 'a//B', port: 0 } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
              rules: [{ operations: ['PATCH'], apiGroups: [], apiVersions: ['*', 'v1', ''], resources: ['pods/*', 'pods/status', '*/*'], scope: 'Everywhere' }] },
          ],
        },
      },
      {
        title: 'mutating: reinvocationPolicy, url and service both',
        method: 'POST',
        path: `${REG}/mutatingwebhookconfigurations`,
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: '{ns}-invalid' },
          webhooks: [{ name: 'm.example.com', clientConfig: { url: 'https://x.example.com', service: { namespace: 'a', name: 'b' } }, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Sometimes' }],
        },
      },
      {
        title: 'defaults filled',
        method: 'POST',
        path: `${REG}/mutatingwebhookconfigurations`,
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: '{ns}-defaults' },
          webhooks: [
            { name: 'a.example.com', clientConfig: { url: 'https://127.0.0.1:1/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'],
              rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], namespaceSelector: inCase },
            { name: 'b.example.com', clientConfig: { service: { namespace: 'default', name: 'svc' } }, sideEffects: 'NoneOnDryRun', admissionReviewVersions: ['v1beta1'], namespaceSelector: inCase },
          ],
        },
      },
      // Only the WEBHOOKS cell: the AGE cell rounds differently on the two servers across a second boundary,
      // and column descriptions are apiary's own words (test/admission/webhooks.test.ts checks kubectl's columns).
      { title: 'as a Table: the WEBHOOKS cell', method: 'GET', path: `${REG}/mutatingwebhookconfigurations/{ns}-defaults`, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, select: 'rows[0].cells[1]' },
      {
        title: 'an update bumps the generation',
        method: 'PATCH',
        path: `${REG}/mutatingwebhookconfigurations/{ns}-defaults`,
        headers: { 'Content-Type': 'application/json-patch+json' },
        body: [{ op: 'replace', path: '/webhooks/0/timeoutSeconds', value: 5 }],
      },
    ],
    cleanup: [deleteOf('mutating', '{ns}-defaults')],
  },
  {
    name: 'webhooks: a mutating webhook adds a label',
    setup: [configuration('mutating', '{ns}-mutate', [webhook('mutate.example.com', '/mutate')]), waitFor('probe', 'metadata.labels.mutated', 'yes')],
    steps: [
      { title: 'create is mutated', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('one') },
      { title: 'stored mutated', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/one' },
      { title: 'update is mutated', method: 'PUT', path: '/api/v1/namespaces/{ns}/configmaps/one', body: cm('one') },
    ],
    cleanup: [deleteOf('mutating', '{ns}-mutate')],
  },
  {
    name: 'webhooks: a validating webhook denies, warns, fails',
    setup: [configuration('validating', '{ns}-validate', [webhook('validate.example.com', '/validate')]), waitFor('deny-probe', 'code', 403)],
    steps: [
      { title: 'denied with the webhook message and its warning', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('deny-me') },
      { title: 'nothing stored', method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/deny-me' },
      { title: 'denied without explanation, code raised to 400', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('bare') },
      { title: 'allowed, with a warning', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('fine') },
      { title: 'the webhook answers 500', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('e500') },
      { title: 'a response with the wrong uid (the uid is generated)', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('uid'), mask: ['response\\.uid="[^"]*"'] },
    ],
    cleanup: [deleteOf('validating', '{ns}-validate')],
  },
  {
    name: 'webhooks: bad patches and a dead webhook',
    setup: [
      configuration('mutating', '{ns}-patches', [webhook('patch.example.com', '/faulty-patch'), webhook('dead.example.com', '/x', { clientConfig: { url: 'https://127.0.0.1:1/dead', caBundle: hook.caBundle }, failurePolicy: 'Ignore' })]),
      waitFor('undecodable-probe', 'code', 500),
    ],
    steps: [
      { title: 'a patch that is no JSON', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('undecodable') },
      { title: 'a patch that does not apply', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('unappliable') },
      { title: 'a patch without patchType', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('notype') },
      { title: 'a dead webhook with failurePolicy Ignore is skipped', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('fine') },
      { title: 'a dead webhook with failurePolicy Fail fails the request', method: 'PATCH', path: `${REG}/mutatingwebhookconfigurations/{ns}-patches`,
        headers: { 'Content-Type': 'application/json-patch+json' }, body: [{ op: 'replace', path: '/webhooks/1/failurePolicy', value: 'Fail' }] },
    ],
    cleanup: [deleteOf('mutating', '{ns}-patches')],
  },
  {
    name: 'webhooks: a dead webhook with failurePolicy Fail',
    setup: [
      configuration('mutating', '{ns}-dead', [webhook('dead.example.com', '/x', { clientConfig: { url: 'https://127.0.0.1:1/dead', caBundle: hook.caBundle } })]),
      waitFor('probe', 'code', 500),
    ],
    steps: [{ title: 'connection refused', method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: cm('refused') }],
    cleanup: [deleteOf('mutating', '{ns}-dead')],
  },
];
