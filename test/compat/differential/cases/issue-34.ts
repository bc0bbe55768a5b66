// The divergences issue 34 found installing popular charts, one case each at
// least: each step reproduces the item against kube-apiserver 1.32.

import type { DiffCase } from '../case.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
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
      { title: 'an unbounded string compared, unbounded lists: over', method: 'POST', path: CRDS_DRY, body: nested({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.a == self.b' }] }) },
    ],
  },
];
