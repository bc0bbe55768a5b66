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

/** A copy of a schema fit for OpenAPI v2 (see the module comment). */
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
  if (s['x-kubernetes-int-or-string'] === true || s['nullable'] === true) delete out['type'];
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
      const body = (flavour === 'v2' ? toV2(schema) : deepCopy(schema)) as Record<string, unknown>;
      const properties = { ...(isObject(body['properties']) ? body['properties'] : {}) };
      properties['apiVersion'] = { description: API_VERSION_DESCRIPTION, type: 'string' };
      properties['kind'] = { description: KIND_DESCRIPTION, type: 'string' };
      properties['metadata'] = { ...ref(OBJECT_META, flavour), description: "Standard object's metadata." };
      const object = { ...body, type: 'object', properties, 'x-kubernetes-group-version-kind': [{ group, kind, version }] };
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
