// Write and delete options: dryRun, fieldValidation (Ignore, Warn, Strict,
// unknown), fieldManager, DeleteOptions (preconditions, propagation, grace
// period, orphan), from the query and from a body.

import type { DiffCase } from '../case.js';

const CM = '/api/v1/namespaces/{ns}/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/{ns}/deployments';
const cm = (name: string, data: Record<string, string> = { k: 'v' }, meta: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...meta },
  data,
});
const deployment = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] } },
    ...extra,
  },
});
const JSON_HEADERS = { 'content-type': 'application/json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };

// A deployment body with an unknown field and a duplicate field, as raw JSON (a JS object cannot hold a duplicate).
const deploymentWithStrayFields = (name: string): string =>
  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}","unknownMeta":1},"spec":{"replicas":1,"replicas":2,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"main","image":"i","bogus":true}]}},"unknownField":"x"}}`;

export const cases: DiffCase[] = [
  {
    name: 'dryRun',
    setup: [{ method: 'POST', path: CM, body: cm('existing'), capture: { rv: 'metadata.resourceVersion' } }],
    steps: [
      { title: 'create with dryRun=All', method: 'POST', path: `${CM}?dryRun=All`, body: cm('dry') },
      { title: 'nothing was stored', method: 'GET', path: `${CM}/dry` },
      { title: 'dryRun with an unknown value', method: 'POST', path: `${CM}?dryRun=Some`, body: cm('dry2') },
      { title: 'dryRun create of an invalid object is still validated', method: 'POST', path: `${CM}?dryRun=All`, body: cm('Bad_Name') },
      { title: 'dryRun create of an existing name', method: 'POST', path: `${CM}?dryRun=All`, body: cm('existing') },
      { title: 'update with dryRun', method: 'PUT', path: `${CM}/existing?dryRun=All`, body: cm('existing', { k: 'dry' }, { resourceVersion: '{rv}' }) },
      { title: 'patch with dryRun', method: 'PATCH', path: `${CM}/existing?dryRun=All`, headers: MERGE, body: { data: { k: 'dry' } } },
      { title: 'delete with dryRun', method: 'DELETE', path: `${CM}/existing?dryRun=All` },
      { title: 'the object is unchanged and still there', method: 'GET', path: `${CM}/existing` },
      { title: 'deletecollection with dryRun', method: 'DELETE', path: `${CM}?dryRun=All` },
      { title: 'still there after a dry deletecollection', method: 'GET', path: CM },
      { title: 'dryRun of a service allocates nothing visible', method: 'POST', path: '/api/v1/namespaces/{ns}/services?dryRun=All', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'dry' }, spec: { ports: [{ port: 80 }] } } },
      { title: 'dryRun of a NodePort service', method: 'POST', path: '/api/v1/namespaces/{ns}/services?dryRun=All', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'dry-np' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] } } },
      { title: 'no service was stored by the dry runs', method: 'GET', path: '/api/v1/namespaces/{ns}/services' },
    ],
  },
  {
    name: 'fieldValidation',
    setup: [{ method: 'POST', path: DEPLOY, body: deployment('existing') }],
    steps: [
      { title: 'unknown and duplicate fields, default (Warn)', method: 'POST', path: DEPLOY, headers: JSON_HEADERS, body: deploymentWithStrayFields('warn-default') },
      { title: 'fieldValidation=Warn', method: 'POST', path: `${DEPLOY}?fieldValidation=Warn`, headers: JSON_HEADERS, body: deploymentWithStrayFields('warn') },
      { title: 'fieldValidation=Ignore', method: 'POST', path: `${DEPLOY}?fieldValidation=Ignore`, headers: JSON_HEADERS, body: deploymentWithStrayFields('ignore') },
      { title: 'fieldValidation=Strict', method: 'POST', path: `${DEPLOY}?fieldValidation=Strict`, headers: JSON_HEADERS, body: deploymentWithStrayFields('strict') },
      { title: 'fieldValidation with an unknown value', method: 'POST', path: `${DEPLOY}?fieldValidation=Maybe`, body: deployment('maybe') },
      {
        title: 'Strict with only an unknown field',
        method: 'POST',
        path: `${CM}?fieldValidation=Strict`,
        body: { ...cm('strict-cm'), extra: 1 },
      },
      {
        title: 'Strict in YAML',
        method: 'POST',
        path: `${CM}?fieldValidation=Strict`,
        headers: { 'content-type': 'application/yaml' },
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict-yaml\n  bogus: 1\ndata:\n  k: v\n',
      },
      { title: 'merge patch with an unknown field, Strict', method: 'PATCH', path: `${DEPLOY}/existing?fieldValidation=Strict`, headers: MERGE, body: { spec: { nope: 1 } } },
      { title: 'merge patch with an unknown field, Warn', method: 'PATCH', path: `${DEPLOY}/existing?fieldValidation=Warn`, headers: MERGE, body: { spec: { nope: 1 } } },
      {
        title: 'strategic merge patch with an unknown field, Strict',
        method: 'PATCH',
        path: `${DEPLOY}/existing?fieldValidation=Strict`,
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: { spec: { template: { spec: { containers: [{ name: 'main', nope: 1 }] } } } },
      },
      {
        title: 'json patch adding an unknown field, Strict',
        method: 'PATCH',
        path: `${DEPLOY}/existing?fieldValidation=Strict`,
        headers: { 'content-type': 'application/json-patch+json' },
        body: [{ op: 'add', path: '/spec/nope', value: 1 }],
      },
      { title: 'update with an unknown field, Strict', method: 'PUT', path: `${DEPLOY}/existing?fieldValidation=Strict`, body: { ...deployment('existing'), extra: true } },
      { title: 'fieldManager too long', method: 'POST', path: `${CM}?fieldManager=${'m'.repeat(200)}`, body: cm('manager') },
    ],
  },
  {
    name: 'delete options',
    setup: [
      { method: 'POST', path: CM, body: cm('pre'), capture: { uid: 'metadata.uid', rv: 'metadata.resourceVersion' } },
      { method: 'POST', path: CM, body: cm('grace') },
      { method: 'POST', path: CM, body: cm('body-options') },
      { method: 'POST', path: CM, body: cm('orphan') },
      { method: 'POST', path: CM, body: cm('held', { k: 'v' }, { finalizers: ['example.com/hold'] }) },
    ],
    steps: [
      { title: 'uid precondition that does not match', method: 'DELETE', path: `${CM}/pre`, body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } } },
      {
        title: 'resourceVersion precondition that does not match',
        method: 'DELETE',
        path: `${CM}/pre`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } },
        mask: ['in record \\(\\d+\\)'],
      },
      { title: 'preconditions that match', method: 'DELETE', path: `${CM}/pre`, body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: '{uid}', resourceVersion: '{rv}' } } },
      { title: 'unknown propagationPolicy', method: 'DELETE', path: `${CM}/grace?propagationPolicy=Sometimes` },
      { title: 'orphanDependents and propagationPolicy together', method: 'DELETE', path: `${CM}/grace?orphanDependents=true&propagationPolicy=Background` },
      { title: 'negative gracePeriodSeconds', method: 'DELETE', path: `${CM}/grace?gracePeriodSeconds=-5` },
      { title: 'gracePeriodSeconds that is not a number', method: 'DELETE', path: `${CM}/grace?gracePeriodSeconds=soon` },
      { title: 'gracePeriodSeconds=0', method: 'DELETE', path: `${CM}/grace?gracePeriodSeconds=0` },
      { title: 'options in the body', method: 'DELETE', path: `${CM}/body-options`, body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' } },
      { title: 'malformed DeleteOptions body', method: 'DELETE', path: `${CM}/orphan`, headers: JSON_HEADERS, body: '{"propagationPolicy":' },
      { title: 'DeleteOptions body of the wrong kind', method: 'DELETE', path: `${CM}/orphan`, body: { apiVersion: 'v1', kind: 'ConfigMap' } },
      { title: 'DeleteOptions body of a group that has none', method: 'DELETE', path: `${CM}/orphan?dryRun=All`, body: { apiVersion: 'apps/v1', kind: 'DeleteOptions' } },
      { title: 'DeleteOptions body of meta.k8s.io/v1beta1', method: 'DELETE', path: `${CM}/orphan?dryRun=All`, body: { apiVersion: 'meta.k8s.io/v1beta1', kind: 'DeleteOptions', dryRun: ['All'] } },
      { title: 'DeleteOptions body without type fields', method: 'DELETE', path: `${CM}/orphan`, body: { dryRun: ['All'] } },
      { title: 'DeleteOptions body that is an array', method: 'DELETE', path: `${CM}/orphan`, headers: JSON_HEADERS, body: '[]' },
      { title: 'DeleteOptions body that is a string', method: 'DELETE', path: `${CM}/orphan`, headers: JSON_HEADERS, body: '"x"' },
      { title: 'DeleteOptions body of another meta kind', method: 'DELETE', path: `${CM}/orphan`, body: { apiVersion: 'meta.k8s.io/v1', kind: 'ListOptions' } },
      { title: 'orphanDependents=false', method: 'DELETE', path: `${CM}/orphan?orphanDependents=false` },
      { title: 'delete of an object with a finalizer: it stays, marked', method: 'DELETE', path: `${CM}/held` },
      { title: 'delete it again', method: 'DELETE', path: `${CM}/held` },
      { title: 'updating a terminating object may not add finalizers', method: 'PATCH', path: `${CM}/held`, headers: MERGE, body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } } },
      { title: 'removing the finalizer ends it', method: 'PATCH', path: `${CM}/held`, headers: MERGE, body: { metadata: { finalizers: null } } },
      { title: 'gone', method: 'GET', path: `${CM}/held` },
    ],
  },
];
