// The schema-registry definitions of hnc.x-k8s.io/v1alpha2 (see
// src/api/schema/README.md for the format). HNC's types are not in the
// k8s.io modules tools/schemagen reflects over, so they are described here, in
// the generator's shape, from HNC's Go structs (api/v1alpha2/*.go): JSON names,
// omitempty, and server-side apply as HNC's CRDs give it (lists without a
// listType are atomic, maps granular). HNC's kinds have no protobuf form (a
// kube-apiserver serves them as custom resources: JSON only).
import type { FieldSchema, JsonType } from '../../schema/index.js';

/** A definition as types.generated.json stores it (name is the key). */
export interface HncRawDefinition {
  type: JsonType;
  fields: FieldSchema[];
  gvk?: Array<{ group: string; version: string; kind: string }>;
  protobuf: boolean;
  goType: string;
}

const GROUP = 'hnc.x-k8s.io';
const VERSION = 'v1alpha2';
const PREFIX = 'io.x-k8s.hnc.v1alpha2.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const GO_PACKAGE = 'sigs.k8s.io/hierarchical-namespaces/api/v1alpha2';

const str = (name: string, goType = 'string', required = false): FieldSchema =>
  required ? { name, type: 'string', goType, required: true } : { name, type: 'string', goType, omitempty: true };
const bool = (name: string): FieldSchema => ({ name, type: 'boolean', goType: 'bool', omitempty: true });
const int = (name: string): FieldSchema => ({ name, type: 'integer', goType: '*int', pointer: true, omitempty: true });
const obj = (name: string, ref: string, goType: string): FieldSchema => ({ name, type: 'object', ref, goType, omitempty: true });
const list = (name: string, ref: string, goType: string): FieldSchema => ({
  name,
  type: 'array',
  items: { type: 'object', ref },
  goType,
  omitempty: true,
  apply: { elementRelationship: 'atomic' },
});
const strings = (name: string): FieldSchema => ({
  name,
  type: 'array',
  items: { type: 'string' },
  goType: '[]string',
  omitempty: true,
  apply: { elementRelationship: 'atomic' },
});
const resourceList = (name: string): FieldSchema => ({
  name,
  type: 'map',
  values: { type: 'string', ref: QUANTITY },
  goType: 'v1.ResourceList',
  omitempty: true,
  apply: { elementRelationship: 'separable' },
});
const typeMeta: FieldSchema[] = [
  { name: 'kind', type: 'string', goType: 'string', omitempty: true },
  { name: 'apiVersion', type: 'string', goType: 'string', omitempty: true },
];

function struct(name: string, fields: FieldSchema[]): [string, HncRawDefinition] {
  return [PREFIX + name, { type: 'object', fields, protobuf: false, goType: `${GO_PACKAGE}.${name}` }];
}

/** A top-level kind and its List. */
function kind(name: string): [string, HncRawDefinition][] {
  const gvk = (k: string) => [{ group: GROUP, version: VERSION, kind: k }];
  return [
    [
      PREFIX + name,
      {
        type: 'object',
        fields: [
          ...typeMeta,
          obj('metadata', `${META}ObjectMeta`, 'v1.ObjectMeta'),
          obj('spec', `${PREFIX}${name}Spec`, `v1alpha2.${name}Spec`),
          obj('status', `${PREFIX}${name}Status`, `v1alpha2.${name}Status`),
        ],
        gvk: gvk(name),
        protobuf: false,
        goType: `${GO_PACKAGE}.${name}`,
      },
    ],
    [
      `${PREFIX}${name}List`,
      {
        type: 'object',
        fields: [
          ...typeMeta,
          obj('metadata', `${META}ListMeta`, 'v1.ListMeta'),
          { name: 'items', type: 'array', items: { type: 'object', ref: PREFIX + name }, goType: `[]v1alpha2.${name}`, required: true },
        ],
        gvk: gvk(`${name}List`),
        protobuf: false,
        goType: `${GO_PACKAGE}.${name}List`,
      },
    ],
  ];
}

const condition = (name: string) => list(name, `${META}Condition`, '[]v1.Condition');
const kvps = (name: string) => list(name, `${PREFIX}MetaKVP`, '[]v1alpha2.MetaKVP');

export const hncDefinitions: Record<string, HncRawDefinition> = Object.fromEntries([
  struct('MetaKVP', [str('key', 'string', true), str('value', 'string', true)]),
  ...kind('HierarchyConfiguration'),
  struct('HierarchyConfigurationSpec', [str('parent'), bool('allowCascadingDeletion'), kvps('labels'), kvps('annotations')]),
  struct('HierarchyConfigurationStatus', [strings('children'), condition('conditions')]),
  ...kind('SubnamespaceAnchor'),
  struct('SubnamespaceAnchorSpec', [kvps('labels'), kvps('annotations')]),
  struct('SubnamespaceAnchorStatus', [str('status', 'v1alpha2.SubnamespaceAnchorState')]),
  ...kind('HNCConfiguration'),
  struct('HNCConfigurationSpec', [list('resources', `${PREFIX}ResourceSpec`, '[]v1alpha2.ResourceSpec')]),
  struct('HNCConfigurationStatus', [list('resources', `${PREFIX}ResourceStatus`, '[]v1alpha2.ResourceStatus'), condition('conditions')]),
  struct('ResourceSpec', [str('group'), str('resource', 'string', true), str('mode', 'v1alpha2.SynchronizationMode')]),
  struct('ResourceStatus', [
    str('group', 'string', true),
    str('version', 'string', true),
    str('resource', 'string', true),
    str('mode', 'v1alpha2.SynchronizationMode'),
    int('numPropagatedObjects'),
    int('numSourceObjects'),
  ]),
  ...kind('HierarchicalResourceQuota'),
  struct('HierarchicalResourceQuotaSpec', [resourceList('hard')]),
  struct('HierarchicalResourceQuotaStatus', [resourceList('hard'), resourceList('used'), str('requestsSummary'), str('limitsSummary')]),
]);

/** `group/version/Kind` → definition name, as the generated file's `kinds`. */
export const hncKinds: Record<string, string> = {
  [`${GROUP}/${VERSION}/DeleteOptions`]: `${META}DeleteOptions`,
  [`${GROUP}/${VERSION}/WatchEvent`]: `${META}WatchEvent`,
  ...Object.fromEntries(
    ['HierarchyConfiguration', 'SubnamespaceAnchor', 'HNCConfiguration', 'HierarchicalResourceQuota'].flatMap((k) => [
      [`${GROUP}/${VERSION}/${k}`, PREFIX + k],
      [`${GROUP}/${VERSION}/${k}List`, `${PREFIX}${k}List`],
    ]),
  ),
};
