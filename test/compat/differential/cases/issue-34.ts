// The divergences issue 34 found installing popular charts, one case each at
// least: each step reproduces the item against kube-apiserver 1.32.

import type { DiffCase } from '../case.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const SERVICES = '/api/v1/namespaces/{ns}/services';
const CONFIGMAPS = '/api/v1/namespaces/{ns}/configmaps';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/{ns}/deployments';
const WEBHOOKS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** What `kubectl apply` (client-side) sends: the manifest with its last-applied annotation. */
const csa = (manifest: Record<string, unknown>, annotations: Record<string, string> | null): Record<string, unknown> => {
  const meta = manifest['metadata'] as Record<string, unknown>;
  const last = JSON.stringify({ ...manifest, metadata: { ...meta, annotations: annotations ?? {}, namespace: '{ns}' } });
  return { ...manifest, metadata: { ...meta, annotations: { ...(annotations ?? {}), [LAST_APPLIED]: `${last}\n` } } };
};
const service = (annotations: unknown): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', annotations },
  spec: { ports: [{ port: 80, targetPort: 8080 }], selector: { app: 'web' } },
});
/** A Deployment whose manifest spells out zero and false values its typed object omits. */
const zeroes = (): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'zeroes' },
  spec: {
    replicas: 1,
    minReadySeconds: 0,
    selector: { matchLabels: { app: 'zeroes' } },
    template: {
      metadata: { labels: { app: 'zeroes' } },
      spec: {
        hostNetwork: false,
        containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false }] }],
        volumes: [{ name: 'v', emptyDir: {} }],
      },
    },
  },
});
const CRDS_DRY = `${CRDS}?dryRun=All`;

/** A CRD (dry run) whose spec has a list `outer` (maxItems `outerMax` when given) of objects with a list `inner` of `item`. */
function nested(item: unknown, outerMax?: number, innerMax?: number): unknown {
  const inner = { type: 'array', items: item, ...(innerMax === undefined ? {} : { maxItems: innerMax }) };
  const outer = { type: 'array', items: { type: 'object', properties: { inner } }, ...(outerMax === undefined ? {} : { maxItems: outerMax }) };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'nesteds.{ns}.example.com' },
    spec: {
      group: '{ns}.example.com',
      scope: 'Namespaced',
      names: { plural: 'nesteds', singular: 'nested', kind: 'Nested' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { outer } } } } } }],
    },
  };
}

/** prometheus-operator's AlertmanagerConfig sigv4 shape: a presence rule on an object. */
const sigv4 = {
  type: 'object',
  properties: { externalId: { type: 'string' }, roleArn: { type: 'string' } },
  'x-kubernetes-validations': [{ rule: '!has(self.externalId) || has(self.roleArn)', message: 'externalId requires roleArn' }],
};
/** An item with a string `s` of maxLength `maxLength`, `name` required when `required`, and `rule`. */
const item = (maxLength: number, required: boolean, rule: string): unknown => ({
  type: 'object',
  ...(required ? { required: ['name'] } : {}),
  properties: { name: { type: 'string' }, s: { type: 'string', maxLength } },
  'x-kubernetes-validations': [{ rule }],
});

export const cases: DiffCase[] = [
  {
    name: 'issue 34 item 1: the estimated cost of a rule under unbounded lists',
    steps: [
      { title: 'a presence rule under a list in a list, neither with maxItems: accepted', method: 'POST', path: CRDS_DRY, body: nested(sigv4) },
      { title: 'the outer list bounded, the inner not', method: 'POST', path: CRDS_DRY, body: nested(sigv4, 10) },
      { title: 'both bounded', method: 'POST', path: CRDS_DRY, body: nested(sigv4, 1000, 1000) },
      { title: 'both bounded, too many together', method: 'POST', path: CRDS_DRY, body: nested(sigv4, 100000, 10000) },
      // unbounded: the rule runs as many times as its smallest object fits in a request;
      // a required property makes the object larger, so fewer fit (factors to six decimals)
      { title: 'a regexp match on a bounded string, unbounded lists: over', method: 'POST', path: CRDS_DRY, body: nested(item(300, false, "self.s.matches('^a$')")) },
      { title: 'with a required property: just over', method: 'POST', path: CRDS_DRY, body: nested(item(100, true, "self.s.matches('^a$')")) },
      { title: 'a longer string: over by more', method: 'POST', path: CRDS_DRY, body: nested(item(120, true, "self.s.matches('^a$')")) },
      { title: 'a shorter string: accepted', method: 'POST', path: CRDS_DRY, body: nested(item(80, true, "self.s.matches('^a$')")) },
      {
        title: 'an object compared with null (opentelemetry-operator): accepted',
        method: 'POST',
        path: CRDS_DRY,
        body: nested({ type: 'object', properties: { mode: { type: 'string', maxLength: 10 }, affinity: { type: 'object', properties: { a: { type: 'string' } } } }, 'x-kubernetes-validations': [{ rule: "!(self.mode == 'sidecar' && self.affinity != null) || !has(self.affinity)" }] }, 10, 10),
      },
      {
        title: 'a list compared with null: refused',
        method: 'POST',
        path: CRDS_DRY,
        body: nested({ type: 'object', properties: { l: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 5 } } }, 'x-kubernetes-validations': [{ rule: 'self.l != null' }] }, 10, 10),
      },
      { title: 'an unbounded string compared, unbounded lists: over', method: 'POST', path: CRDS_DRY, body: nested({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.a == self.b' }] }) },
    ],
  },
  {
    name: 'issue 34 item 2: server-side apply over an object whose manifest had `annotations:` null',
    setup: [{ method: 'POST', path: `${SERVICES}?fieldManager=kubectl-client-side-apply`, body: csa(service(null), null) }],
    steps: [
      { title: 'kubectl apply --server-side: the migration from client-side apply', method: 'PATCH', path: `${SERVICES}/web?fieldManager=kubectl&force=false`, headers: APPLY, body: service(null), select: 'metadata.annotations' },
      { title: 'and again, forced', method: 'PATCH', path: `${SERVICES}/web?fieldManager=kubectl&force=true`, headers: APPLY, body: service(null), select: 'spec.ports' },
      { title: 'a dry run (diff --server-side)', method: 'PATCH', path: `${SERVICES}/web?fieldManager=kubectl&force=true&dryRun=All`, headers: APPLY, body: service(null), select: 'metadata.annotations' },
    ],
  },
  {
    name: 'issue 34 item 2: null in map and list fields of an applied configuration',
    steps: [
      {
        title: 'server-side apply of a ConfigMap with null labels and data',
        method: 'PATCH',
        path: `${CONFIGMAPS}/nulls?fieldManager=m`,
        headers: APPLY,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', labels: null, annotations: null }, data: null },
      },
      { title: 'then with values', method: 'PATCH', path: `${CONFIGMAPS}/nulls?fieldManager=m`, headers: APPLY, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', labels: { a: 'b' } }, data: { k: 'v' } } },
      { title: 'then null again: the values go', method: 'PATCH', path: `${CONFIGMAPS}/nulls?fieldManager=m`, headers: APPLY, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', labels: null }, data: null } },
      {
        title: 'a Service with a null list and a null map',
        method: 'PATCH',
        path: `${SERVICES}/nulls?fieldManager=m`,
        headers: APPLY,
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nulls' }, spec: { ports: [{ port: 80 }], selector: null, externalIPs: null } },
        mask: ['10\\.\\d+\\.\\d+\\.\\d+'],
      },
      { title: 'client-side apply (create) with null maps', method: 'POST', path: `${CONFIGMAPS}?fieldManager=kubectl-client-side-apply`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa', labels: null }, data: null } },
      { title: 'a strategic merge patch with null maps', method: 'PATCH', path: `${CONFIGMAPS}/csa?fieldManager=kubectl-client-side-apply`, headers: STRATEGIC, body: { metadata: { labels: null, annotations: null }, data: null, binaryData: null } },
    ],
  },
  {
    name: 'issue 34 item 3: zero and false values after client-side apply',
    setup: [{ method: 'POST', path: `${DEPLOYMENTS}?fieldManager=kubectl-client-side-apply`, body: csa(zeroes(), null) }],
    steps: [
      { title: 'the create recorded no zero value', method: 'GET', path: `${DEPLOYMENTS}/zeroes`, select: 'metadata.managedFields.0.fieldsV1' },
      {
        title: 're-apply of the unchanged manifest: the patch kubectl sends (the zero values the live object lacks)',
        method: 'PATCH',
        path: `${DEPLOYMENTS}/zeroes?fieldManager=kubectl-client-side-apply`,
        headers: STRATEGIC,
        body: { spec: { minReadySeconds: 0, template: { spec: { $setElementOrder: { containers: [{ name: 'c' }] }, hostNetwork: false, containers: [{ name: 'c', volumeMounts: [{ mountPath: '/v', readOnly: false }] }] } } } },
        select: 'metadata.generation',
      },
      { title: 'still no zero value owned', method: 'GET', path: `${DEPLOYMENTS}/zeroes`, select: 'metadata.managedFields.0.fieldsV1' },
      { title: 'kubectl apply --server-side afterwards: no conflict', method: 'PATCH', path: `${DEPLOYMENTS}/zeroes?fieldManager=kubectl&force=false`, headers: APPLY, body: zeroes(), select: 'metadata.generation' },
      { title: 'another manager applying the zero values: no conflict either', method: 'PATCH', path: `${DEPLOYMENTS}/zeroes?fieldManager=other&force=false`, headers: APPLY, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'zeroes' }, spec: { minReadySeconds: 0 } }, select: 'metadata.generation' },
    ],
  },
  {
    name: 'issue 34 chart pass: a StatefulSet whose volume mount names a volumeClaimTemplate (bitnami postgresql)',
    steps: [
      {
        title: 'created: the template is not validated as a pod spec',
        method: 'POST',
        path: '/apis/apps/v1/namespaces/{ns}/statefulsets',
        body: {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'db' },
          spec: {
            serviceName: 'db',
            selector: { matchLabels: { app: 'db' } },
            template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'postgres', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } },
            volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
          },
        },
        select: 'spec.template',
      },
      {
        title: 'an httpGet probe and lifecycle hook get path / and scheme HTTP (flux, argo-cd)',
        method: 'POST',
        path: '/apis/apps/v1/namespaces/{ns}/deployments',
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'probed' },
          spec: {
            selector: { matchLabels: { app: 'probed' } },
            template: {
              metadata: { labels: { app: 'probed' } },
              spec: { containers: [{ name: 'c', image: 'nginx', livenessProbe: { httpGet: { port: 8080 } }, readinessProbe: { httpGet: { path: '/ready', port: 'http' } }, lifecycle: { preStop: { httpGet: { port: 80 } } } }] },
            },
          },
        },
        select: 'spec.template.spec.containers',
      },
      {
        title: 'bad template labels are still refused',
        method: 'POST',
        path: '/apis/apps/v1/namespaces/{ns}/statefulsets?dryRun=All',
        body: {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'bad' },
          spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db', 'a/b/c': 'x' } }, spec: { containers: [{ name: 'c', image: 'postgres' }] } } },
        },
      },
    ],
  },
  {
    name: 'issue 34 item 4: a webhook whose service cannot be called',
    setup: [
      { method: 'POST', path: SERVICES, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'no-pods' }, spec: { ports: [{ port: 443, targetPort: 9443 }], selector: { app: 'none' } } } },
      {
        method: 'POST',
        path: WEBHOOKS,
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: '{ns}-unreachable' },
          webhooks: [
            hookTo('absent.example.com', 'absent', '/validate', 'cm-absent'),
            hookTo('nopods.example.com', 'no-pods', undefined, 'cm-nopods'),
          ],
        },
      },
      { method: 'POST', path: `${CONFIGMAPS}?dryRun=All`, body: labelled('probe', 'cm-absent'), until: { path: 'code', equals: 500 } },
    ],
    steps: [
      { title: 'the service does not exist', method: 'POST', path: CONFIGMAPS, body: labelled('one', 'cm-absent') },
      // upstream dials the service's cluster IP, which nothing routes here (it times out); apiary
      // resolves the Endpoints, which are empty: the same words up to the dial error
      { title: 'the service has no pods', method: 'POST', path: CONFIGMAPS, body: labelled('two', 'cm-nopods') },
    ],
    cleanup: [{ method: 'DELETE', path: `${WEBHOOKS}/{ns}-unreachable` }],
  },
];

const WIDGETS = '/apis/{ns}.example.com/v1/namespaces/{ns}/widgets';
const widgets = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  tags: { type: 'array', items: { type: 'string' } },
                  ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
                  nullableMap: { type: 'object', nullable: true, additionalProperties: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    ],
  },
};
const widget = (name: string, spec: Record<string, unknown> | null, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: '{ns}.example.com/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  spec,
});

cases.push({
  name: 'issue 34: null in map and list fields of a custom resource',
  setup: [
    { method: 'POST', path: CRDS, body: widgets },
    { method: 'GET', path: `${CRDS}/widgets.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    { title: 'server-side apply with null maps and lists', method: 'PATCH', path: `${WIDGETS}/ssa?fieldManager=m`, headers: APPLY, body: widget('ssa', { labels: null, tags: null, ports: null, nullableMap: null }, { labels: null, annotations: null }), select: 'spec' },
    { title: 'then with values', method: 'PATCH', path: `${WIDGETS}/ssa?fieldManager=m`, headers: APPLY, body: widget('ssa', { labels: { a: 'b' }, tags: ['t'], ports: [{ name: 'p' }], nullableMap: { k: 'v' } }), select: 'spec' },
    { title: 'then null again', method: 'PATCH', path: `${WIDGETS}/ssa?fieldManager=m`, headers: APPLY, body: widget('ssa', { labels: null, tags: null, ports: null, nullableMap: null }), select: 'spec' },
    { title: 'a null spec', method: 'PATCH', path: `${WIDGETS}/ssa?fieldManager=m`, headers: APPLY, body: widget('ssa', null), select: 'spec' },
    { title: 'client-side apply (create) with null maps and lists', method: 'POST', path: `${WIDGETS}?fieldManager=kubectl-client-side-apply`, body: widget('csa', { labels: null, tags: null, nullableMap: null }, { labels: null }), select: 'metadata.labels' },
    { title: 'and a merge patch with values and nulls', method: 'PATCH', path: `${WIDGETS}/csa?fieldManager=kubectl-client-side-apply`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { labels: { a: 'b' }, tags: null, nullableMap: null } }, select: 'metadata.labels' },
  ],
  cleanup: [{ method: 'DELETE', path: `${CRDS}/widgets.{ns}.example.com` }],
});

/** A webhook on configmap creation in the case's namespace with label `hook` = `value`, at a service of the case. */
function hookTo(name: string, service: string, path: string | undefined, value: string): unknown {
  return {
    name,
    clientConfig: { service: { namespace: '{ns}', name: service, ...(path === undefined ? {} : { path }) } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': '{ns}' } },
    objectSelector: { matchLabels: { hook: value } },
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 2,
  };
}

function labelled(name: string, hook: string): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { hook } } };
}

// Issue 34's bad input, more of it: nulls in nested maps and lists of a built-in kind (server-side
// apply, create, update, strategic merge patch), and in a custom resource's nested fields, list
// items and map values, and an apply that empties a map it owned (upstream keeps that map as null).
const nullPod = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name }, annotations: null }, spec: { containers: [{ name: 'c', image: 'i', env: null, ports: null, resources: { limits: null } }], ...spec } },
  },
});
cases.push({
  name: 'issue 34 bad input: nulls in nested maps and lists of a built-in kind',
  steps: [
    { title: 'server-side apply of a Deployment with nulls in its pod template', method: 'PATCH', path: `${DEPLOYMENTS}/ssa?fieldManager=m`, headers: APPLY, body: nullPod('ssa', { nodeSelector: null, tolerations: null, volumes: null }), select: 'spec.template' },
    { title: 'then values there', method: 'PATCH', path: `${DEPLOYMENTS}/ssa?fieldManager=m`, headers: APPLY, body: nullPod('ssa', { nodeSelector: { a: 'b' }, tolerations: [{ key: 'k', operator: 'Exists' }] }), select: 'spec.template' },
    { title: 'then nulls again', method: 'PATCH', path: `${DEPLOYMENTS}/ssa?fieldManager=m`, headers: APPLY, body: nullPod('ssa', { nodeSelector: null, tolerations: null }), select: 'spec.template' },
    { title: 'the fields the applier owns', method: 'GET', path: `${DEPLOYMENTS}/ssa`, select: 'metadata.managedFields.0.fieldsV1' },
    { title: 'create with the same nulls', method: 'POST', path: `${DEPLOYMENTS}?fieldManager=kubectl-client-side-apply`, body: nullPod('csa', { nodeSelector: null, tolerations: null }), select: 'spec.template' },
    { title: 'a strategic merge patch with nulls in the template', method: 'PATCH', path: `${DEPLOYMENTS}/csa?fieldManager=kubectl-client-side-apply`, headers: STRATEGIC, body: { spec: { template: { spec: { nodeSelector: null, volumes: null, containers: [{ name: 'c', env: null }] } } } }, select: 'spec.template' },
    { title: 'an update with nulls', method: 'PUT', path: `${DEPLOYMENTS}/csa`, body: nullPod('csa', { nodeSelector: null, imagePullSecrets: null }), select: 'spec.template' },
    { title: 'a null list item is a zero container', method: 'PATCH', path: `${DEPLOYMENTS}/ssa?fieldManager=m`, headers: APPLY, body: nullPod('ssa', { containers: [{ name: 'c', image: 'i' }, null] }) },
    { title: 'a null list item on create', method: 'POST', path: DEPLOYMENTS, body: nullPod('zero', { containers: [{ name: 'c', image: 'i' }, null] }) },
    { title: 'a null string in a list on create', method: 'POST', path: DEPLOYMENTS, body: nullPod('zero', { containers: [{ name: 'c', image: 'i', args: ['a', null] }] }), select: 'spec.template.spec.containers' },
  ],
});

const NESTED = '/apis/{ns}.example.com/v1/namespaces/{ns}/nesteds';
const nesteds = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'nesteds.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Namespaced',
    names: { plural: 'nesteds', singular: 'nested', kind: 'Nested' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  tags: { type: 'array', items: { type: 'string' } },
                  items: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, opts: { type: 'object', additionalProperties: { type: 'string' } }, list: { type: 'array', items: { type: 'string' } } } },
                  },
                  defaulted: { type: 'object', default: { x: 'y' }, additionalProperties: { type: 'string' } },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        },
      },
    ],
  },
};
const nestedCR = (name: string, spec: unknown): Record<string, unknown> => ({ apiVersion: '{ns}.example.com/v1', kind: 'Nested', metadata: { name }, spec });
cases.push({
  name: 'issue 34 bad input: nulls in nested fields of a custom resource',
  setup: [
    { method: 'POST', path: CRDS, body: nesteds },
    { method: 'GET', path: `${CRDS}/nesteds.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    // One null per step: upstream's validator walks a Go map, so the order of several errors is not fixed.
    { title: 'server-side apply: a null map inside a list item', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { items: [{ name: 'p', opts: null }] }) },
    { title: 'server-side apply: a null list inside a list item', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { items: [{ name: 'p', list: null }] }) },
    { title: 'server-side apply: a null map value', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { labels: { a: null } }) },
    { title: 'server-side apply: a null list item', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { tags: [null] }) },
    { title: 'server-side apply: null where a default is', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { defaulted: null }) },
    { title: 'server-side apply: nulls under preserve-unknown-fields', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { free: { k: null, l: [null] } }), select: 'spec' },
    { title: 'then values everywhere', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { labels: { a: 'b' }, tags: ['t'], items: [{ name: 'p', opts: { o: 'v' } }] }), select: 'spec' },
    { title: 'then an empty map where values were (the apply empties it)', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', { labels: {}, tags: ['t'], items: [{ name: 'p' }] }) },
    { title: 'then an empty spec', method: 'PATCH', path: `${NESTED}/a?fieldManager=m`, headers: APPLY, body: nestedCR('a', {}) },
    { title: 'the object after them', method: 'GET', path: `${NESTED}/a`, select: 'spec' },
    { title: 'create: nulls in a list item and a default', method: 'POST', path: NESTED, body: nestedCR('b', { items: [{ name: 'p', opts: null }], defaulted: null, free: { k: null } }), select: 'spec' },
    { title: 'create: a null list item', method: 'POST', path: NESTED, body: nestedCR('c', { tags: [null] }) },
    { title: 'merge patch: nulls remove, inside lists they stay', method: 'PATCH', path: `${NESTED}/b`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { defaulted: null, items: [{ name: 'q', opts: null }] } }, select: 'spec' },
  ],
  cleanup: [{ method: 'DELETE', path: `${CRDS}/nesteds.{ns}.example.com` }],
});
