// The OpenAPI definitions of a custom resource version (upstream's
// pkg/controller/openapi/builder): the CRD's schema as the kind's definition
// (named by the reversed group, "com.example.stable.v1.CronTab"), with
// apiVersion, kind and metadata added and x-kubernetes-group-version-kind, and
// the list kind beside it. OpenAPI v2 cannot say what v3 can: its copy drops
// nullable, the value-validation combinators and int-or-string's type, as
// upstream's v2 conversion does.

import type { CustomResourceOpenApi } from '../registry/rest.js';
import type { JSONSchemaProps } from './types.js';
import { isObject } from './schema/structural.js';
import { deepCopy } from '../machinery/deep-copy.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

function ref(name: string, flavour: 'v2' | 'v3'): Record<string, unknown> {
  return flavour === 'v2' ? { $ref: `#/definitions/${name}` } : { allOf: [{ $ref: `#/components/schemas/${name}` }] };
}

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.';

/**
 * A copy of a schema fit for OpenAPI v2 (upstream's ToStructuralOpenAPIV2):
 * no value-validation combinators; a nullable node loses its type, items and
 * properties (and leaves its parent's required list); a node that preserves
 * unknown fields loses its items and properties, and its type when that is
 * object; an array left without items loses its type.
 */
function toV2(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV2);
  if (!isObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'nullable' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'not' || k === 'x-kubernetes-validations') continue;
    if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, sub]) => [p, toV2(sub)]));
    else if (k === 'items' || k === 'additionalProperties') out[k] = toV2(v);
    else out[k] = v;
  }
  if (s['x-kubernetes-int-or-string'] === true) delete out['type'];
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s['nullable'] === true || preserve) {
    if (s['nullable'] === true) delete out['type'];
    delete out['items'];
    delete out['properties'];
  }
  if (out['items'] === undefined && out['type'] === 'array') delete out['type'];
  if (preserve && out['type'] === 'object') delete out['type'];
  const properties = isObject(s['properties']) ? s['properties'] : {};
  if (Array.isArray(out['required'])) {
    const required = (out['required'] as unknown[]).filter((name) => !(typeof name === 'string' && isObject(properties[name]) && properties[name]['nullable'] === true));
    if (required.length === 0) delete out['required'];
    else out['required'] = required;
  }
  if (isObject(s['additionalProperties']) && s['additionalProperties']['nullable'] === true) delete out['required'];
  return out;
}

export function customResourceOpenApi(group: string, version: string, kind: string, listKind: string, schema: JSONSchemaProps): CustomResourceOpenApi {
  const base = `${reversedGroup(group)}.${version}`;
  const kindDefinition = `${base}.${kind}`;
  const listDefinition = `${base}.${listKind}`;
  return {
    kindDefinition,
    listDefinition,
    roots: [OBJECT_META, LIST_META],
    definitions(flavour) {
      const gvk = { 'x-kubernetes-group-version-kind': [{ group, kind, version }] };
      // v2 publishes a schema that keeps unknown fields at its root as a bare object: kubectl's
      // v2 validation would otherwise refuse every field besides the ones listed (upstream's buildKubeNative).
      const bare = flavour === 'v2' && (schema as Record<string, unknown>)['x-kubernetes-preserve-unknown-fields'] === true;
      const body = (flavour === 'v2' ? toV2(schema) : deepCopy(schema)) as Record<string, unknown>;
      const properties = { ...(isObject(body['properties']) ? body['properties'] : {}) };
      properties['apiVersion'] = { description: API_VERSION_DESCRIPTION, type: 'string' };
      properties['kind'] = { description: KIND_DESCRIPTION, type: 'string' };
      properties['metadata'] = { ...ref(OBJECT_META, flavour), description: "Standard object's metadata." };
      const object = bare ? { type: 'object', ...gvk } : { ...body, type: 'object', properties, ...gvk };
      const list = {
        description: `${kind}List is a list of ${kind}`,
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
          items: { description: `List of ${kind.toLowerCase()}s.`, type: 'array', items: flavour === 'v2' ? { $ref: `#/definitions/${kindDefinition}` } : { $ref: `#/components/schemas/${kindDefinition}` } },
          kind: { description: KIND_DESCRIPTION, type: 'string' },
          metadata: { ...ref(LIST_META, flavour), description: 'Standard list metadata.' },
        },
        'x-kubernetes-group-version-kind': [{ group, kind: listKind, version }],
      };
      return { [kindDefinition]: object, [listDefinition]: list };
    },
  };
}
