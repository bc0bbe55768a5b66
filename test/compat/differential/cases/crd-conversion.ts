// Differential cases for CRD webhook conversion: one real HTTPS conversion
// webhook on 127.0.0.1 (certificates from src/auth/pki through the test
// helper) that both apiary and the reference kube-apiserver call. The CRD's
// v1 (storage) holds spec.fullName, v2 splits it into firstName/lastName.
// Objects whose name starts with fail-, rename- or uid- make the webhook
// answer a Failure, a renamed object or a wrong uid; they are created at the
// storage version (no conversion) and deleted there again before the case
// ends, so nothing left behind needs the webhook (namespace deletion lists
// through the preferred version, v2). Single-object reads only while they
// exist: kube-apiserver's v2 watch cache cannot hold them.

import type { DiffCase } from '../case.js';
import { startWebhookServer, type Review } from '../../../helpers/webhook-server.js';
import { convertName } from '../../../helpers/name-conversion.js';

const hook = await startWebhookServer();
hook.unref();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- objects built field by field


hook.on('/convert', (review: Review, res) => {
  const objects = review.request.objects as Json[];
  const name: string = objects[0]?.metadata?.name ?? '';
  let response: Json = { uid: review.request.uid, convertedObjects: objects.map((o) => convertName(o, review.request.desiredAPIVersion)), result: { status: 'Success' } };
  if (name.startsWith('fail-')) response = { uid: review.request.uid, result: { status: 'Failure', message: 'this object cannot be converted' } };
  if (name.startsWith('uid-')) response = { ...response, uid: 'not-the-uid' };
  if (name.startsWith('rename-')) response.convertedObjects[0].metadata.name = 'renamed';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
  return 'handled';
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const V1 = '/apis/{ns}.example.com/v1/namespaces/{ns}/gadgets';
const V2 = '/apis/{ns}.example.com/v2/namespaces/{ns}/gadgets';

function gadgets(conversion: Json): Json {
  const status = { type: 'object', properties: { phase: { type: 'string' } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.{ns}.example.com' },
    spec: {
      group: '{ns}.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      conversion,
      versions: [
        { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { fullName: { type: 'string' } } }, status } } } },
        {
          name: 'v2',
          served: true,
          storage: false,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { firstName: { type: 'string' }, lastName: { type: 'string' } } }, status } } },
        },
      ],
    },
  };
}

const webhookConversion = { strategy: 'Webhook', webhook: { clientConfig: { url: hook.url('/convert'), caBundle: hook.caBundle }, conversionReviewVersions: ['v1'] } };
const atV1 = (name: string): Json => ({ apiVersion: '{ns}.example.com/v1', kind: 'Gadget', metadata: { name }, spec: { fullName: 'A B' } });

export const cases: DiffCase[] = [
  {
    name: 'crd conversion: spec.conversion validation',
    steps: [
      { title: 'Webhook without settings', method: 'POST', path: `${CRDS}?dryRun=All`, body: gadgets({ strategy: 'Webhook' }) },
      {
        title: 'url and service both, an http url with a query, review versions this server does not speak',
        method: 'POST',
        path: `${CRDS}?dryRun=All`,
        body: gadgets({ strategy: 'Webhook', webhook: { clientConfig: { url: 'http://example.com/x?y=1', service: { namespace: 'a', name: 'b' } }, conversionReviewVersions: ['v9', 'v9'] } }),
      },
      { title: 'a service reference: name, namespace, path, port', method: 'POST', path: `${CRDS}?dryRun=All`, body: gadgets({ strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: '', name: '', path: 'no-slash', port: 0 } }, conversionReviewVersions: ['v1'] } }) },
      { title: 'webhook settings under None', method: 'POST', path: `${CRDS}?dryRun=All`, body: gadgets({ strategy: 'None', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v1'] } }) },
      { title: 'a valid Webhook conversion, the service port defaulted', method: 'POST', path: `${CRDS}?dryRun=All`, body: gadgets({ strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'a', name: 'b' } }, conversionReviewVersions: ['v1beta1', 'v1'] } }) },
    ],
  },
  {
    name: 'crd conversion: a webhook converts between v1 (storage) and v2',
    setup: [
      { method: 'POST', path: CRDS, body: gadgets(webhookConversion) },
      { method: 'GET', path: `${CRDS}/gadgets.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
      { method: 'GET', path: V2, until: { path: 'kind', equals: 'GadgetList' } },
    ],
    steps: [
      { title: 'create at v2: answered at v2', method: 'POST', path: V2, body: { apiVersion: '{ns}.example.com/v2', kind: 'Gadget', metadata: { name: 'ada', labels: { team: 'math' } }, spec: { firstName: 'Ada', lastName: 'Lovelace' } } },
      { title: 'read at v1: stored as v1', method: 'GET', path: `${V1}/ada` },
      { title: 'read at v2', method: 'GET', path: `${V2}/ada` },
      { title: 'list at v2', method: 'GET', path: V2 },
      { title: '/status at v2', method: 'PATCH', path: `${V2}/ada/status`, body: { status: { phase: 'Ready' } }, headers: { 'Content-Type': 'application/merge-patch+json' } },
      { title: 'a merge patch at v2', method: 'PATCH', path: `${V2}/ada`, body: { spec: { lastName: 'King' } }, headers: { 'Content-Type': 'application/merge-patch+json' } },
      { title: 'read at v1 after the patch', method: 'GET', path: `${V1}/ada` },
      { title: 'setup of failing objects at v1 (no conversion)', method: 'POST', path: V1, body: atV1('fail-1') },
      { method: 'POST', path: V1, body: atV1('uid-1') },
      { method: 'POST', path: V1, body: atV1('rename-1') },
      { title: 'a Failure result on read', method: 'GET', path: `${V2}/fail-1` },
      { title: 'a wrong uid on read', method: 'GET', path: `${V2}/uid-1`, mask: ['expected response\\.uid="[0-9a-f-]+"'] },
      { title: 'a renamed object on read', method: 'GET', path: `${V2}/rename-1` },
      { title: 'a Failure result on create', method: 'POST', path: V2, body: { apiVersion: '{ns}.example.com/v2', kind: 'Gadget', metadata: { name: 'fail-2' }, spec: { firstName: 'No' } } },
      { title: 'delete the failing objects at v1', method: 'DELETE', path: `${V1}/fail-1` },
      { method: 'DELETE', path: `${V1}/uid-1` },
      { method: 'DELETE', path: `${V1}/rename-1` },
    ],
    cleanup: [{ method: 'DELETE', path: `${CRDS}/gadgets.{ns}.example.com` }],
  },
];
