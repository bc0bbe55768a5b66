// Server-side apply of custom resources: the merge follows the CRD's
// structural schema (a map-list with keys and a key default, a set, an atomic
// list and map, preserve-unknown-fields, an embedded resource), create on
// apply, an unchanged re-apply, field removal, a conflict and a forced apply,
// an undeclared field, /status apply and a /scale patch, and managedFields
// of a plain create. The CRD is named after the case's namespace.
// A second case: the /scale subresource of a kind whose replicas live at
// .spec.size (conflicts as the Scale sees them, merge patches through /scale).

import type { DiffCase, DiffRequest } from '../case.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const gadgets = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer' },
                  color: { type: 'string' },
                  size: { 'x-kubernetes-int-or-string': true },
                  tags: { type: 'array', items: { type: 'string' } },
                  set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name', 'protocol'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' } } },
                  },
                  atomicMap: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

const G = '/apis/{ns}.example.com/v1/namespaces/{ns}/gadgets';
const gadget = (name: string, body: Record<string, unknown>): unknown => ({ apiVersion: '{ns}.example.com/v1', kind: 'Gadget', metadata: { name }, ...body });
const fullSpec = {
  replicas: 2,
  color: 'red',
  size: '10%',
  tags: ['a', 'b'],
  set: ['p', 'q'],
  ports: [{ name: 'http', port: 80 }, { name: 'dns', protocol: 'UDP', port: 53 }],
  atomicMap: { k: 'v' },
  free: { deep: { x: 1 }, list: [1, 2] },
  embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e', labels: { l: 'v' } }, data: { a: 'b' } },
};
const { color: _color, atomicMap: _atomicMap, ...smallerSpec } = fullSpec;

const sizers = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sizers.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Namespaced',
    names: { plural: 'sizers', singular: 'sizer', kind: 'Sizer' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.count', labelSelectorPath: '.status.sel' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { count: { type: 'integer' }, sel: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};
const SIZERS = '/apis/{ns}.example.com/v1/namespaces/{ns}/sizers';

function scaleApply(title: string, name: string, replicas: number, query = ''): DiffRequest {
  return {
    title,
    method: 'PATCH',
    path: `${SIZERS}/${name}/scale?fieldManager=hpa${query}`,
    headers: APPLY,
    body: `apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: ${name}\nspec:\n  replicas: ${replicas}\n`,
  };
}

function apply(title: string, name: string, manager: string, body: Record<string, unknown>, query = ''): DiffRequest {
  return { title, method: 'PATCH', path: `${G}/${name}?fieldManager=${manager}${query}`, headers: APPLY, body: gadget(name, body) };
}

export const cases: DiffCase[] = [
  {
    name: 'crd-ssa: server-side apply of custom resources',
    setup: [
      { method: 'POST', path: CRDS, body: gadgets },
      { method: 'GET', path: `${CRDS}/gadgets.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
    ],
    steps: [
      apply('apply creates the object', 'g', 'one', { metadata: { name: 'g', labels: { a: 'b' } }, spec: fullSpec }),
      apply('an unchanged re-apply', 'g', 'one', { metadata: { name: 'g', labels: { a: 'b' } }, spec: fullSpec }),
      apply('removing fields and a map-list item', 'g', 'one', { metadata: { name: 'g', labels: { a: 'b' } }, spec: { ...smallerSpec, ports: [{ name: 'http', port: 80 }] } }),
      apply('a conflict with the other manager', 'g', 'two', { spec: { replicas: 5, ports: [{ name: 'extra', port: 8080 }] } }),
      apply('forced: the map-list items merge', 'g', 'two', { spec: { replicas: 5, ports: [{ name: 'extra', port: 8080 }] } }, '&force=true'),
      apply('a field the schema does not declare', 'g', 'one', { spec: { bogus: 1 } }),
      apply('an undeclared field inside a map-list item', 'g', 'one', { spec: { ports: [{ name: 'x', bogus: 1 }] } }),
      apply('a set with a duplicate', 'g', 'one', { spec: { set: ['p', 'p'] } }),
      apply('a map-list with a duplicate key', 'g', 'one', { spec: { ports: [{ name: 'x' }, { name: 'x', protocol: 'TCP' }] } }),
      { title: 'apply without a fieldManager', method: 'PATCH', path: `${G}/g`, headers: APPLY, body: gadget('g', { spec: { color: 'x' } }) },
      { title: 'a plain create records an Update entry', method: 'POST', path: `${G}?fieldManager=maker`, body: gadget('h', { metadata: { name: 'h', labels: { a: 'b' } }, spec: { color: 'red', ports: [{ name: 'a', port: 1 }], free: { x: { y: 1 } } } }) },
      { title: 'apply to /status', method: 'PATCH', path: `${G}/h/status?fieldManager=ctl`, headers: APPLY, body: gadget('h', { status: { phase: 'Ready', replicas: 1 } }) },
      { title: 'a /scale patch', method: 'PATCH', path: `${G}/h/scale`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { replicas: 4 } } },
      { title: 'the object after /scale', method: 'GET', path: `${G}/h` },
      { title: 'a merge patch adds an Update entry', method: 'PATCH', path: `${G}/h?fieldManager=patcher`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { color: 'blue' } } },
    ],
    cleanup: [{ method: 'DELETE', path: `${CRDS}/gadgets.{ns}.example.com` }],
  },
  {
    name: 'crd-ssa: apply and patch through /scale of a custom resource',
    setup: [
      { method: 'POST', path: CRDS, body: sizers },
      { method: 'GET', path: `${CRDS}/sizers.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
      { method: 'POST', path: `${SIZERS}?fieldManager=maker`, body: { apiVersion: '{ns}.example.com/v1', kind: 'Sizer', metadata: { name: 'a' }, spec: { size: 1, color: 'red' } } },
    ],
    steps: [
      { title: 'the Scale of a replicas path other than spec.replicas', method: 'GET', path: `${SIZERS}/a/scale` },
      scaleApply('apply conflicts with the creator, on the Scale\'s path and version', 'a', 3),
      scaleApply('apply to /scale of a missing object', 'nope', 3),
      { title: 'apply to /scale with a body of the main kind', method: 'PATCH', path: `${SIZERS}/a/scale?fieldManager=hpa`, headers: APPLY, body: 'apiVersion: {ns}.example.com/v1\nkind: Sizer\nmetadata:\n  name: a\nspec:\n  size: 3\n' },
      { title: 'a merge patch through /scale', method: 'PATCH', path: `${SIZERS}/a/scale?fieldManager=keda`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { replicas: 4 } } },
      { title: 'the object after it', method: 'GET', path: `${SIZERS}/a` },
      scaleApply('apply conflicts with the /scale patcher', 'a', 5),
      // Upstream 1.32 answers 500 here (its CR scale field manager cannot convert to autoscaling/v1); apiary applies.
      scaleApply('a forced apply to /scale', 'a', 5, '&force=true'),
    ],
    cleanup: [{ method: 'DELETE', path: `${CRDS}/sizers.{ns}.example.com` }],
  },
];
