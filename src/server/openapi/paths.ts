/**
 * OpenAPI paths and operations for served resource types, derived from their
 * ResourceType (routing facts) and the schema registry (request/response kinds).
 *
 * Contract: `resourcePaths(types, flavour)` returns the `paths` object upstream
 * publishes for those resources: the collection path (list, create,
 * deletecollection), the item path (read, replace, patch, delete), the
 * all-namespaces list for namespaced resources, and subresource paths
 * (status, finalize). Each operation carries `operationId` in upstream's
 * scheme (`patchCoreV1NamespacedConfigMap`), `tags`, `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind`, and its query parameters inline (kubectl
 * looks for `fieldValidation` among a PATCH operation's own parameters). v2
 * writes body parameters, `consumes`/`produces`; v3 writes `requestBody` and
 * per-media-type `content`.
 */
import type { ResourceType } from '../../registry/rest.js';
import { definitionFor } from '../../api/schema/index.js';
import { type Flavour, type JsonSchema, refPath } from './schemas.js';

const STATUS_DEF = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const DELETE_OPTIONS_DEF = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const PATCH_DEF = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';

const BUILTIN_OBJECT_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const BUILTIN_LIST_MEDIA = [...BUILTIN_OBJECT_MEDIA, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
/** Custom resources: no strategic merge patch and no protobuf, as upstream publishes them (kubectl apply reads this to pick a patch type). */
const CUSTOM_PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const CUSTOM_OBJECT_MEDIA = ['application/json', 'application/yaml'];
const CUSTOM_LIST_MEDIA = [...CUSTOM_OBJECT_MEDIA, 'application/json;stream=watch'];
const BUILTIN_PATCH_MEDIA = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  description: string;
  required?: boolean;
}

const P = {
  pretty: { name: 'pretty', in: 'query', type: 'string', description: "When 'true', the response is indented for reading." },
  name: { name: 'name', in: 'path', type: 'string', description: 'The name of the object.', required: true },
  namespace: { name: 'namespace', in: 'path', type: 'string', description: 'The namespace of the objects (object name and auth scope).', required: true },
  dryRun: { name: 'dryRun', in: 'query', type: 'string', description: "When present, the request is checked and admitted but nothing is stored. The only valid value is 'All'." },
  fieldManager: { name: 'fieldManager', in: 'query', type: 'string', description: 'The name of the actor making the change, recorded in managedFields.' },
  fieldValidation: {
    name: 'fieldValidation',
    in: 'query',
    type: 'string',
    description: 'What the server does with unknown or duplicate fields in the body: Ignore drops them, Warn drops them and answers with a Warning header per field (the default), Strict rejects the request.',
  },
  force: { name: 'force', in: 'query', type: 'boolean', description: 'Apply patches only: take over fields other managers own.' },
  allowWatchBookmarks: { name: 'allowWatchBookmarks', in: 'query', type: 'boolean', description: 'Watch only: the server may send BOOKMARK events.' },
  continue: { name: 'continue', in: 'query', type: 'string', description: 'The token from a previous page of the same list, to read the next page.' },
  fieldSelector: { name: 'fieldSelector', in: 'query', type: 'string', description: 'Restricts the list to objects whose fields match. Defaults to everything.' },
  labelSelector: { name: 'labelSelector', in: 'query', type: 'string', description: 'Restricts the list to objects whose labels match. Defaults to everything.' },
  limit: { name: 'limit', in: 'query', type: 'integer', description: 'The most items to return in one page; the rest is reached with the continue token.' },
  resourceVersion: { name: 'resourceVersion', in: 'query', type: 'string', description: 'Which version of the data the read may be served from.' },
  resourceVersionMatch: { name: 'resourceVersionMatch', in: 'query', type: 'string', description: 'How resourceVersion is applied to a list (Exact or NotOlderThan).' },
  sendInitialEvents: { name: 'sendInitialEvents', in: 'query', type: 'boolean', description: 'Watch only: start with synthetic ADDED events for the current state.' },
  timeoutSeconds: { name: 'timeoutSeconds', in: 'query', type: 'integer', description: 'How long a list or watch call may last.' },
  watch: { name: 'watch', in: 'query', type: 'boolean', description: 'Turn the list into a stream of add, update and delete events.' },
  gracePeriodSeconds: { name: 'gracePeriodSeconds', in: 'query', type: 'integer', description: 'Seconds before the object is deleted; zero deletes at once.' },
  orphanDependents: { name: 'orphanDependents', in: 'query', type: 'boolean', description: 'Deprecated: use propagationPolicy. Whether dependents are orphaned.' },
  propagationPolicy: { name: 'propagationPolicy', in: 'query', type: 'string', description: 'How dependents are collected: Orphan, Background or Foreground.' },
} satisfies Record<string, ParamSpec>;

const LIST_PARAMS: ParamSpec[] = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS: ParamSpec[] = [P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE_PARAMS: ParamSpec[] = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];

function parameter(p: ParamSpec, flavour: Flavour): JsonSchema {
  const out: JsonSchema = { name: p.name, in: p.in, description: p.description };
  if (p.required === true) out['required'] = true;
  if (flavour === 'v2') {
    out['type'] = p.type;
    out['uniqueItems'] = true;
  } else {
    out['schema'] = { type: p.type, uniqueItems: true };
  }
  return out;
}

/** core → Core, coordination.k8s.io → Coordination, as upstream's operation ids spell groups. */
function groupWord(group: string): string {
  const first = group === '' ? 'core' : group.split('.')[0]!;
  return first
    .split(/[-_]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

function tagOf(type: ResourceType): string {
  return `${group(type)}_${type.version}`;
}

function group(type: ResourceType): string {
  return type.group === '' ? 'core' : type.group.split('.')[0]!.replace(/-/g, '');
}

function gvkOf(type: ResourceType, kind = type.kind): JsonSchema {
  return { group: type.group, kind, version: type.version };
}

function definitionNameOf(type: ResourceType, kind: string): string | undefined {
  if (type.openapi !== undefined) return kind === type.kind ? type.openapi.kindDefinition : type.openapi.listDefinition;
  return definitionFor(type.group, type.version, kind)?.name;
}

interface OperationSpec {
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  operationId: string;
  description: string;
  params: ParamSpec[];
  /** Definition the body holds (post/put), or the Patch pseudo-definition, or DeleteOptions. */
  body?: string;
  bodyMedia?: string[];
  /** status code → definition. */
  responses: Array<[number, string]>;
  produces: string[];
  /** The kind the operation reads and writes when it is not the resource's own (scale: autoscaling/v1 Scale). */
  gvk?: { group: string; version: string; kind: string };
}

const SCALE_DEF = 'io.k8s.api.autoscaling.v1.Scale';
const SCALE_GVK = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

function response(def: string, media: string[], flavour: Flavour, code: number): JsonSchema {
  const description = code === 201 ? 'Created' : code === 202 ? 'Accepted' : 'OK';
  if (flavour === 'v2') return { description, schema: { $ref: refPath(def, flavour) } };
  const content: JsonSchema = {};
  for (const m of media) content[m] = { schema: { $ref: refPath(def, flavour) } };
  return { description, content };
}

function operation(spec: OperationSpec, type: ResourceType, flavour: Flavour): JsonSchema {
  const op: JsonSchema = { description: spec.description, operationId: spec.operationId, tags: [tagOf(type)] };
  const params = spec.params.map((p) => parameter(p, flavour));
  if (spec.body !== undefined) {
    const media = spec.bodyMedia ?? ['*/*'];
    if (flavour === 'v2') {
      params.unshift({ name: 'body', in: 'body', required: spec.action !== 'delete' && spec.action !== 'deletecollection', schema: { $ref: refPath(spec.body, flavour) } });
      op['consumes'] = media;
    } else {
      const content: JsonSchema = {};
      for (const m of media) content[m] = { schema: { $ref: refPath(spec.body, flavour) } };
      op['requestBody'] = spec.action === 'delete' || spec.action === 'deletecollection' ? { content } : { content, required: true };
    }
  }
  if (params.length > 0) op['parameters'] = params;
  if (flavour === 'v2') {
    op['produces'] = spec.produces;
    op['schemes'] = ['https'];
  }
  const responses: JsonSchema = {};
  for (const [code, def] of spec.responses) responses[String(code)] = response(def, spec.produces, flavour, code);
  responses['401'] = { description: 'Unauthorized' };
  op['responses'] = responses;
  op['x-kubernetes-action'] = spec.action;
  op['x-kubernetes-group-version-kind'] = spec.gvk === undefined ? gvkOf(type) : { group: spec.gvk.group, kind: spec.gvk.kind, version: spec.gvk.version };
  return op;
}

function pathItem(pathParams: ParamSpec[], ops: Record<string, JsonSchema>, flavour: Flavour): JsonSchema {
  return { ...ops, parameters: [...pathParams.map((p) => parameter(p, flavour)), parameter(P.pretty, flavour)] };
}

function verbs(type: ResourceType): Set<string> {
  return new Set(type.verbs as string[]);
}

/** The `paths` of the given resource types (see the module comment). */
export function resourcePaths(types: ResourceType[], flavour: Flavour): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const type of types) {
    const custom = type.openapi !== undefined;
    const patchMedia = custom ? CUSTOM_PATCH_MEDIA : BUILTIN_PATCH_MEDIA;
    const objectMedia = custom ? CUSTOM_OBJECT_MEDIA : BUILTIN_OBJECT_MEDIA;
    const listMedia = custom ? CUSTOM_LIST_MEDIA : BUILTIN_LIST_MEDIA;
    const objectDef = definitionNameOf(type, type.kind);
    const listDef = definitionNameOf(type, type.listKind);
    if (objectDef === undefined) continue;
    const has = verbs(type);
    const prefix = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
    const id = `${groupWord(type.group)}${type.version.charAt(0).toUpperCase()}${type.version.slice(1)}`;
    const scoped = type.namespaced ? `Namespaced${type.kind}` : type.kind;
    const base = type.namespaced ? `${prefix}/namespaces/{namespace}/${type.resource}` : `${prefix}/${type.resource}`;
    const baseParams = type.namespaced ? [P.namespace] : [];

    const collection: Record<string, JsonSchema> = {};
    if (has.has('list') && listDef !== undefined) {
      collection['get'] = operation(
        { action: 'list', operationId: `list${id}${scoped}`, description: `list or watch objects of kind ${type.kind}`, params: LIST_PARAMS, responses: [[200, listDef]], produces: listMedia },
        type,
        flavour,
      );
    }
    if (has.has('create')) {
      collection['post'] = operation(
        {
          action: 'post',
          operationId: `create${id}${scoped}`,
          description: `create a ${type.kind}`,
          params: WRITE_PARAMS,
          body: objectDef,
          responses: [[200, objectDef], [201, objectDef], [202, objectDef]],
          produces: objectMedia,
        },
        type,
        flavour,
      );
    }
    if (has.has('deletecollection')) {
      collection['delete'] = operation(
        {
          action: 'deletecollection',
          operationId: `delete${id}Collection${scoped}`,
          description: `delete collection of ${type.kind}`,
          params: [...DELETE_PARAMS, ...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')],
          body: DELETE_OPTIONS_DEF,
          responses: [[200, STATUS_DEF]],
          produces: objectMedia,
        },
        type,
        flavour,
      );
    }
    if (Object.keys(collection).length > 0) paths[base] = pathItem(baseParams, collection, flavour);

    const item: Record<string, JsonSchema> = {};
    const itemPath = `${base}/{name}`;
    if (has.has('get')) {
      item['get'] = operation(
        { action: 'get', operationId: `read${id}${scoped}`, description: `read the specified ${type.kind}`, params: [], responses: [[200, objectDef]], produces: objectMedia },
        type,
        flavour,
      );
    }
    if (has.has('update')) {
      item['put'] = operation(
        { action: 'put', operationId: `replace${id}${scoped}`, description: `replace the specified ${type.kind}`, params: WRITE_PARAMS, body: objectDef, responses: [[200, objectDef], [201, objectDef]], produces: objectMedia },
        type,
        flavour,
      );
    }
    if (has.has('patch')) {
      item['patch'] = operation(
        {
          action: 'patch',
          operationId: `patch${id}${scoped}`,
          description: `partially update the specified ${type.kind}`,
          params: [...WRITE_PARAMS, P.force],
          body: PATCH_DEF,
          bodyMedia: patchMedia,
          responses: [[200, objectDef], [201, objectDef]],
          produces: objectMedia,
        },
        type,
        flavour,
      );
    }
    if (has.has('delete')) {
      item['delete'] = operation(
        { action: 'delete', operationId: `delete${id}${scoped}`, description: `delete a ${type.kind}`, params: DELETE_PARAMS, body: DELETE_OPTIONS_DEF, responses: [[200, STATUS_DEF], [202, STATUS_DEF]], produces: objectMedia },
        type,
        flavour,
      );
    }
    if (Object.keys(item).length > 0) paths[itemPath] = pathItem([P.name, ...baseParams], item, flavour);

    for (const sub of type.subresources) {
      const subOps: Record<string, JsonSchema> = {};
      const title = sub.charAt(0).toUpperCase() + sub.slice(1);
      if (sub === 'status') {
        subOps['get'] = operation(
          { action: 'get', operationId: `read${id}${scoped}Status`, description: `read status of the specified ${type.kind}`, params: [], responses: [[200, objectDef]], produces: objectMedia },
          type,
          flavour,
        );
        subOps['patch'] = operation(
          { action: 'patch', operationId: `patch${id}${scoped}Status`, description: `partially update status of the specified ${type.kind}`, params: [...WRITE_PARAMS, P.force], body: PATCH_DEF, bodyMedia: patchMedia, responses: [[200, objectDef], [201, objectDef]], produces: objectMedia },
          type,
          flavour,
        );
      }
      if (sub === 'scale') {
        const common = { params: [], responses: [[200, SCALE_DEF]] as Array<[number, string]>, produces: objectMedia, gvk: SCALE_GVK };
        subOps['get'] = operation({ ...common, action: 'get', operationId: `read${id}${scoped}Scale`, description: `read scale of the specified ${type.kind}` }, type, flavour);
        subOps['put'] = operation(
          { ...common, action: 'put', operationId: `replace${id}${scoped}Scale`, description: `replace scale of the specified ${type.kind}`, params: WRITE_PARAMS, body: SCALE_DEF, responses: [[200, SCALE_DEF], [201, SCALE_DEF]] },
          type,
          flavour,
        );
        subOps['patch'] = operation(
          { ...common, action: 'patch', operationId: `patch${id}${scoped}Scale`, description: `partially update scale of the specified ${type.kind}`, params: [...WRITE_PARAMS, P.force], body: PATCH_DEF, bodyMedia: patchMedia, responses: [[200, SCALE_DEF], [201, SCALE_DEF]] },
          type,
          flavour,
        );
      }
      if (sub === 'status' || sub === 'finalize') {
        subOps['put'] = operation(
          { action: 'put', operationId: `replace${id}${scoped}${title}`, description: `replace ${sub} of the specified ${type.kind}`, params: WRITE_PARAMS, body: objectDef, responses: [[200, objectDef], [201, objectDef]], produces: objectMedia },
          type,
          flavour,
        );
      }
      if (Object.keys(subOps).length > 0) paths[`${itemPath}/${sub}`] = pathItem([P.name, ...baseParams], subOps, flavour);
    }

    if (type.namespaced && has.has('list') && listDef !== undefined) {
      paths[`${prefix}/${type.resource}`] = pathItem(
        [],
        {
          get: operation(
            { action: 'list', operationId: `list${id}${type.kind}ForAllNamespaces`, description: `list or watch objects of kind ${type.kind}`, params: LIST_PARAMS, responses: [[200, listDef]], produces: listMedia },
            type,
            flavour,
          ),
        },
        flavour,
      );
    }
  }
  return paths;
}

/** The definitions the paths of `types` name directly (kinds, lists, Status, DeleteOptions). */
export function pathDefinitionRoots(types: ResourceType[]): string[] {
  const roots = new Set<string>([STATUS_DEF, DELETE_OPTIONS_DEF]);
  for (const type of types) {
    if (type.subresources.includes('scale')) roots.add(SCALE_DEF);
    if (type.openapi !== undefined) {
      for (const root of type.openapi.roots) roots.add(root);
      continue;
    }
    for (const kind of [type.kind, type.listKind]) {
      const name = definitionNameOf(type, kind);
      if (name !== undefined) roots.add(name);
    }
  }
  return [...roots];
}
