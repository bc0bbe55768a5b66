// The resource handlers: one function per verb, each following the order of
// checks of upstream's handlers (create.go, update.go, patch.go, delete.go,
// get.go): negotiate the response type (406), the request type (415), read the
// body (413), decode options and body (400/422), then call the RESTStore and
// write its answer. Responses go through transform.ts (as=Table, …); bodies of
// create, update and patch through field-validation.ts (fieldValidation).
// Handlers never write a status code themselves except via
// responses.ts; everything they throw becomes a Status there.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { TypedDecodeError, decodeTyped } from '../api/schema/typed-decode.js';
import { definitionFor, hasProtobuf } from '../api/schema/index.js';
import { smpSchemaFor } from '../api/strategic-merge-schema.js';
import { StatusError, badRequest, invalid, methodNotSupported, requestEntityTooLarge, unsupportedMediaType } from '../machinery/errors.js';
import { applyStrategicMergePatch } from '../machinery/strategic-merge-patch.js';
import { goValue } from '../machinery/smp/go-format.js';
import { fieldErrors } from '../machinery/field-errors.js';
import { apiVersionOf, type KubeObject } from '../machinery/meta.js';
import type { UserInfo } from '../machinery/user.js';
import type { AdmissionRequestContext } from '../registry/admission.js';
import { applyJsonPatch, applyMergePatch } from '../machinery/patch.js';
import type {
  RESTStore,
  ResourceType,
  WriteOptions,
} from '../registry/rest.js';
import YAML from 'yaml';
import { decodeObject, encodeBody, YAML_PARSE_OPTIONS } from './codecs.js';
import { type JsonBody, dedupOwnerReferences, jsonBodyOf, mergeDuplicateKeys } from './body-normalization.js';
import { checkFields, setWarningHeaders } from './field-validation.js';
import {
  baseMediaType,
  negotiateInput,
  negotiateOutput,
  PROTOBUF_MEDIA_TYPE,
  SCHEMALESS_PATCH_TYPES,
  SERVED_INPUT_MEDIA_TYPES,
  SERVED_MEDIA_TYPES,
  SERVED_PATCH_TYPES,
  type NegotiatedOutput,
  APPLY_PATCH_TYPE,
} from './negotiation.js';
import type { RequestInfo } from './request-info.js';
import { writeNegotiated, writeNegotiatedSliced } from './responses.js';
import { NO_TABLE_RESTRICTIONS, RESOURCE_RESTRICTIONS, transformResponse, watchEventTransformer, type TransformContext } from './transform.js';
import { validateListOptions } from './list-options.js';
import { duplicateKeys, parseApplyBody, parsePatch } from './patch-bodies.js';
import {
  listOptionsFrom,
  managerOrUserAgent,
  setIfPresent,
  watchOptionsFrom,
  writeOptionsFrom,
} from './request-options.js';

export { listOptionsFrom, managerOrUserAgent };
import { LARGE_BODY_BYTES, largeRequestTurns, noPause, type Pause } from './large-requests.js';
import { appliedOffThread, createdFieldsOffThread, decodeOffThread, managedFieldsOffThread, patchedOffThread, patchParsesOffThread, storedValueOffThread } from './body-worker.js';
import { decodeTypedBody } from './write-body.js';
import { patchStages, type PatchStagesInput } from './patch-stages.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { createdJSON } from '../storage/object-store.js';
import { deleteOptionsFrom } from './delete-options.js';
import { serveWatch, watchStreamFormat, type WatchStreamFormat, type WatchTracker } from './watch.js';

/** kube-apiserver's --max-request-body-bytes default: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Everything a handler needs to know about one resource request. */
export interface ResourceScope {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  store: RESTStore;
  type: ResourceType;
  /** The request's namespace for namespaced resources, '' otherwise. */
  namespace: string;
  watches: WatchTracker;
  /** Whether the server serves this kind at this apiVersion (for decode error messages). */
  isKnownKind: (apiVersion: string, kind: string) => boolean;
  /** Whether the server serves a group version at all (DeleteOptions bodies may name any). */
  servesGroupVersion: (apiVersion: string) => boolean;
  /** The authenticated user, when the server authenticates. */
  user?: UserInfo;
  /**
   * Set when AllowUnsafeMalformedObjectDeletion is on: the delete option
   * ignoreStoreReadErrorWithClusterBreakingPotential is honoured, once
   * authorize (which throws 403) allows the extra verb.
   */
  unsafeDelete?: { authorize(verb: string): void };
  /** For writes: what admission reports back through (warnings, audit annotations), passed on in the store's options. */
  request?: AdmissionRequestContext;
}

/** Who asks and the request's admission context, into a write's options. */
function fromRequest(scope: ResourceScope, options: WriteOptions): void {
  if (scope.user !== undefined) options.user = scope.user;
  if (scope.request !== undefined) options.request = scope.request;
}

/** Reads the body, failing with 413 past `limit` bytes (upstream's limitedReadBody). */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) return Promise.reject(requestEntityTooLarge(limit));
  // Events rather than an async iterator: this runs on every write, and the
  // iterator's promise per chunk costs more than the rest of the read.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume(); // drain what is left; the 413 goes out once the handler throws
        reject(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onClose = (): void => {
      // Closed before the end: the client went away mid-body.
      if (!req.complete) onError(new Error('request aborted'));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Custom resources have no protobuf form: negotiation falls back to JSON for them, as upstream's. */
const UNSTRUCTURED_MEDIA_TYPES = SERVED_MEDIA_TYPES.filter((m) => m !== PROTOBUF_MEDIA_TYPE);

function servedMediaTypes(scope: ResourceScope): string[] {
  if (scope.store.unstructured === true) return UNSTRUCTURED_MEDIA_TYPES;
  // Built-in kinds described without a protobuf form (HNC's, custom resources upstream) negotiate as custom resources do.
  return definitionFor(scope.type.group, scope.type.version, scope.type.kind)?.protobuf === false ? UNSTRUCTURED_MEDIA_TYPES : SERVED_MEDIA_TYPES;
}

function output(scope: ResourceScope): NegotiatedOutput {
  return negotiateOutput(scope.req.headers.accept, scope.store.noTable === true ? NO_TABLE_RESTRICTIONS : RESOURCE_RESTRICTIONS, servedMediaTypes(scope));
}

function transformContext(scope: ResourceScope): TransformContext {
  const ctx: TransformContext = { group: scope.type.group, version: scope.type.version, kind: scope.type.kind, query: scope.query, served: servedMediaTypes(scope) };
  if (scope.store.printer !== undefined) ctx.printer = scope.store.printer;
  return ctx;
}

/** Writes `value` in the negotiated form; `json`, when given, is JSON.stringify(value), for plain JSON. */
function write(scope: ResourceScope, code: number, value: unknown, out: NegotiatedOutput, kind?: ExpectedKind, json?: string): void {
  if (out.convert === undefined) return writeNegotiated(scope.req, scope.res, code, value, out, undefined, json);
  const ctx = transformContext(scope);
  writeNegotiated(scope.req, scope.res, code, transformResponse(value, out, kind === undefined ? ctx : { ...ctx, ...kind }), out);
}

/** write() for a write request's answer: for a large body's, JSON encoded a slice at a time (responses.ts). */
async function writeAfterLarge(scope: ResourceScope, body: Buffer, code: number, value: unknown, out: NegotiatedOutput, pause: () => Promise<void>, kind?: ExpectedKind): Promise<void> {
  if (body.length < LARGE_BODY_BYTES) return write(scope, code, value, out, kind);
  const ctx = transformContext(scope);
  await writeNegotiatedSliced(scope.req, scope.res, code, transformResponse(value, out, kind === undefined ? ctx : { ...ctx, ...kind }), out, pause);
}

type ExpectedKind = { group: string; version: string; kind: string };

/** What the scale subresource reads and writes. */
const SCALE_KIND: ExpectedKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** The body's media type; protobuf only for kinds that have a protobuf form (else 415). */
function inputMediaType(scope: ResourceScope): string {
  const mediaType = negotiateInput(scope.req.headers['content-type']);
  if (mediaType === PROTOBUF_MEDIA_TYPE && !hasProtobuf(scope.type.group, scope.type.version, scope.type.kind)) {
    throw unsupportedMediaType(mediaType, SERVED_INPUT_MEDIA_TYPES.filter((m) => m !== PROTOBUF_MEDIA_TYPE));
  }
  return mediaType;
}

/** The typed decode of a create/update body (write-body.ts). */
function decodeBody(scope: ResourceScope, object: KubeObject, expected = expectedKind(scope.type)): void {
  decodeTypedBody(expected, object);
}

/**
 * Upstream converts apply's merged object to its typed object: a null element
 * of a list (or value of a map) becomes the element's zero value
 * (`tolerations: [null]` one empty toleration, which validation then judges).
 * Only that normalisation is taken here; type errors were the merge's to report.
 */
function normaliseApplied(scope: ResourceScope, merged: KubeObject): void {
  const expected = expectedKind(scope.type);
  try {
    decodeTyped(expected.group, expected.version, expected.kind, merged as unknown as Record<string, unknown>, 'unstructured');
  } catch (err) {
    if (!(err instanceof TypedDecodeError)) throw err;
  }
}

/** Drops unknown/duplicate fields of a decoded body per fieldValidation; warnings go on the response. */
function checkBodyFields(
  scope: ResourceScope,
  object: KubeObject,
  options: WriteOptions,
  body: Buffer,
  mediaType: string,
  kind?: ExpectedKind,
  json: JsonBody | undefined = jsonBodyOf(body, mediaType),
): void {
  // A YAML body's repeated keys (the last one won when it was read): go-yaml's
  // strict decode names each by its line, before any unknown field.
  if (mediaType === 'application/yaml' && options.fieldValidation !== 'Ignore') {
    const text = body.toString('utf8');
    const repeated = duplicateKeys(YAML.parseDocument(text, YAML_PARSE_OPTIONS), text);
    if (repeated.length > 0 && options.fieldValidation === 'Strict') {
      const k = kind ?? scope.type;
      throw badRequest(`${k.kind} in version ${JSON.stringify(k.version)} cannot be handled as a ${k.kind}: strict decoding error: yaml: unmarshal errors:\n  ${repeated.join('\n  ')}`);
    }
    setWarningHeaders(scope.res, repeated);
  }
  const warnings = checkFields(object, {
    group: kind?.group ?? scope.type.group,
    version: kind?.version ?? scope.type.version,
    kind: kind?.kind ?? scope.type.kind,
    directive: options.fieldValidation,
    mode: 'decode',
    ...(json === undefined ? {} : { rawJson: json.text, duplicates: json.duplicates }),
  });
  setWarningHeaders(scope.res, warnings);
}

/** The kind a body must be: the resource's, or autoscaling/v1 Scale on a /scale path. */
function expectedKind(type: ResourceType, subresource = ''): { group: string; version: string; kind: string } {
  if (subresource === 'scale') return SCALE_KIND;
  return { group: type.group, version: type.version, kind: type.kind };
}

export async function handleGet(scope: ResourceScope): Promise<void> {
  const out = output(scope);
  // The object is only encoded: the store may answer with the watch cache's shared one (and its kept JSON).
  const options: { resourceVersion?: string; subresource?: string; shared?: boolean } = { shared: true };
  setIfPresent(options, 'resourceVersion', scope.query.get('resourceVersion'));
  if (scope.info.subresource === 'scale') {
    write(scope, 200, await scope.store.getScale!(scope.namespace, scope.info.name), out, SCALE_KIND);
    return;
  }
  const object = await scope.store.get(scope.namespace, scope.info.name, options);
  write(scope, 200, object, out);
}

export async function handleList(scope: ResourceScope): Promise<void> {
  const out = output(scope);
  validateListOptions(scope.query, false);
  // The list is only encoded: the store may answer with the watch cache's shared objects (and their kept JSON).
  const list = await scope.store.list(scope.namespace, { ...listOptionsFrom(scope.query), sharedItems: true });
  write(scope, 200, list, out);
}

export async function handleWatch(scope: ResourceScope): Promise<void> {
  const out = negotiateOutput(scope.req.headers.accept, RESOURCE_RESTRICTIONS, servedMediaTypes(scope), true);
  validateListOptions(scope.query, true);
  const options = watchOptionsFrom(scope.query, scope.info.name);
  // No conversion: the stream encodes shared events (and batches) once for every watcher.
  const convert = out.convert === undefined ? undefined : watchEventTransformer(out, transformContext(scope));
  let format = watchStreamFormat(out.mediaType, convert);
  if (options.sendInitialEvents === true) format = withListBlueprint(format, scope, out.mediaType);
  await serveWatch(scope.req, scope.res, scope.store, scope.namespace, options, scope.watches, format);
}

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
const LIST_BLUEPRINT = 'kubernetes.io/initial-events-list-blueprint';

/**
 * A streaming list's closing bookmark carries, as kube-apiserver 1.32 writes
 * it, the empty list of the resource encoded in the stream's media type
 * (JSON ends with its newline), base64: client-go's watch-list client builds
 * its result from it. Only that bookmark changes; it is the watcher's own.
 */
function withListBlueprint(format: WatchStreamFormat, scope: ResourceScope, mediaType: string): WatchStreamFormat {
  let blueprint: string | undefined;
  const encodedBlueprint = (): string => {
    if (blueprint !== undefined) return blueprint;
    const emptyList = { kind: scope.type.listKind, apiVersion: apiVersionOf(scope.type), metadata: {}, items: null };
    const bytes = encodeBody(emptyList, mediaType === PROTOBUF_MEDIA_TYPE ? PROTOBUF_MEDIA_TYPE : 'application/json');
    blueprint = Buffer.from(bytes).toString('base64');
    return blueprint;
  };
  return {
    ...format,
    encode: (event) => {
      if (event.type !== 'BOOKMARK') return format.encode(event);
      const object = event.object as KubeObject;
      const annotations = object.metadata?.annotations;
      if (annotations?.[INITIAL_EVENTS_END] !== 'true') return format.encode(event);
      const metadata = { ...object.metadata, annotations: { ...annotations, [LIST_BLUEPRINT]: encodedBlueprint() } };
      return format.encode({ type: event.type, object: { ...event.object, metadata } });
    },
  };
}

/** The kinds POST subresources take (pods/binding, pods/eviction); policy/v1beta1 Eviction decodes too, as upstream. */
const SUBRESOURCE_BODY_KINDS: Record<string, { expected: ExpectedKind; accepts: (apiVersion: string, kind: string) => boolean }> = {
  binding: { expected: { group: '', version: 'v1', kind: 'Binding' }, accepts: (a, k) => a === 'v1' && k === 'Binding' },
  eviction: {
    expected: { group: 'policy', version: 'v1', kind: 'Eviction' },
    accepts: (a, k) => (a === 'policy/v1' || a === 'policy/v1beta1') && k === 'Eviction',
  },
};

/** POST of a subresource: decode its kind, let the store act, answer its Status with 201. */
async function handleCreateSubresource(scope: ResourceScope): Promise<void> {
  // Upstream's binding and eviction storages have no Table convertor: asking for a Table is a 406 before anything is read.
  const out = negotiateOutput(scope.req.headers.accept, NO_TABLE_RESTRICTIONS, servedMediaTypes(scope));
  const kinds = SUBRESOURCE_BODY_KINDS[scope.info.subresource];
  if (kinds === undefined || scope.store.createSubresource === undefined) throw methodNotSupported({ group: scope.type.group, resource: `${scope.type.resource}/${scope.info.subresource}` }, 'create');
  const mediaType = negotiateInput(scope.req.headers['content-type']);
  const body = await readBody(scope.req);
  const options = writeOptionsFrom(scope.query, 'CreateOptions');
  fromRequest(scope, options);
  const object = decodeObject(body, mediaType, kinds.expected, kinds.accepts);
  object.metadata ??= {};
  const status = await scope.store.createSubresource(scope.namespace, scope.info.name, scope.info.subresource, object, options);
  write(scope, 201, status, out);
}

/**
 * The body of a create or an update, decoded and checked as upstream's
 * handlers do (duplicate keys merged, field validation, owner references
 * deduplicated), yielding between stages for a large body.
 */
async function decodeWriteBody(scope: ResourceScope, body: Buffer, mediaType: string, options: WriteOptions, pause: Pause): Promise<KubeObject> {
  if (pause !== noPause) await pause();
  // A large JSON body of a built-in kind is decoded on a worker thread (body-worker.ts says why and what stays here).
  if (body.length >= LARGE_BODY_BYTES && mediaType === 'application/json' && scope.store.unstructured !== true) {
    const object = await decodeOffThread(body, expectedKind(scope.type), options.fieldValidation, scope.res, pause);
    if (object !== undefined) {
      if (pause !== noPause) await pause();
      return object;
    }
  }
  // The body's text is read once, for the parse and for the duplicate keys.
  const json = jsonBodyOf(body, mediaType);
  const object = decodeObject(body, mediaType, expectedKind(scope.type), scope.isKnownKind, scope.store.unstructured === true, json?.text);
  mergeDuplicateKeys(scope.store.unstructured === true, object, json);
  if (pause !== noPause) await pause();
  decodeBody(scope, object);
  checkBodyFields(scope, object, options, body, mediaType, undefined, json);
  dedupOwnerReferences(scope.res, object, false);
  if (pause !== noPause) await pause();
  return object;
}

/**
 * A large write's store stages: paused between, and their pure work on the
 * object (the created field set, the stored value's encoding) handed to the
 * worker thread (large-requests.ts).
 */
function largeWrite(options: WriteOptions, body: Buffer, pause: Pause): void {
  if (body.length < LARGE_BODY_BYTES) return;
  options.pause = pause;
  options.offload = {
    createdFieldsV1: (kind, obj, walk) => createdFieldsOffThread(kind, obj, walk, pause),
    storedValue: (obj) => storedValueOffThread(obj, pause),
    managedFieldsOfUpdate: (job, live, next, manager) => managedFieldsOffThread(job, live, next, manager, pause),
    applied: (job, live, config, manager, force) => appliedOffThread(job, live, config, manager, force, pause),
  };
}

export async function handleCreate(scope: ResourceScope): Promise<void> {
  if (scope.info.subresource !== '') return handleCreateSubresource(scope);
  const out = output(scope);
  const mediaType = inputMediaType(scope);
  const body = await readBody(scope.req);
  const options = writeOptionsFrom(scope.query, 'CreateOptions');
  options.fieldManager = managerOrUserAgent(options.fieldManager, scope.req.headers['user-agent']);
  fromRequest(scope, options);
  // A large body takes its turn and yields between stages (large-requests.ts says why).
  await largeRequestTurns.run(body.length, async (pause) => {
    const object = await decodeWriteBody(scope, body, mediaType, options, pause);
    // The body's name and namespace are checked against the URL by the store (every caller goes through it).
    options.warnings = [];
    largeWrite(options, body, pause);
    const created = await scope.store.create(scope.namespace, object, options);
    // Plain JSON: most of the answer is the JSON just stored (spliced, not stringified again; taken at once,
    // while `created` is as the store handed it back). For a large object this spares the answer's walk
    // of the object on this thread (large-requests.ts).
    const json = out.mediaType === 'application/json' && out.convert === undefined ? createdJSON(created) : undefined;
    if (pause !== noPause) await pause();
    setWarningHeaders(scope.res, options.warnings);
    if (body.length >= LARGE_BODY_BYTES && json === undefined) return writeAfterLarge(scope, body, 201, created, out, pause);
    write(scope, 201, created, out, undefined, json);
  });
}

export async function handleUpdate(scope: ResourceScope): Promise<void> {
  const out = output(scope);
  const mediaType = inputMediaType(scope);
  const body = await readBody(scope.req);
  const options: WriteOptions & { subresource?: string } = writeOptionsFrom(scope.query, 'UpdateOptions');
  options.fieldManager = managerOrUserAgent(options.fieldManager, scope.req.headers['user-agent']);
  fromRequest(scope, options);
  if (scope.info.subresource === 'scale') {
    const scale = decodeObject(body, mediaType, SCALE_KIND, scope.isKnownKind);
    checkBodyFields(scope, scale, options, body, mediaType, SCALE_KIND);
    write(scope, 200, await scope.store.updateScale!(scope.namespace, scope.info.name, () => scale, options), out, SCALE_KIND);
    return;
  }
  await largeRequestTurns.run(body.length, async (pause) => {
    const object = await decodeWriteBody(scope, body, mediaType, options, pause);
    if (scope.info.subresource !== '') options.subresource = scope.info.subresource;
    options.warnings = [];
    largeWrite(options, body, pause);
    const { object: updated, created } = await scope.store.update(scope.namespace, scope.info.name, object, options);
    if (pause !== noPause) await pause();
    setWarningHeaders(scope.res, options.warnings);
    await writeAfterLarge(scope, body, created ? 201 : 200, updated, out, pause);
  });
}

export async function handlePatch(scope: ResourceScope): Promise<void> {
  const out = output(scope);
  const patchType = baseMediaType(scope.req.headers['content-type'] ?? '');
  const scale = scope.info.subresource === 'scale';
  const target: ExpectedKind = scale ? SCALE_KIND : expectedKind(scope.type);
  const smpSchema = smpSchemaFor(target.group, target.version, target.kind);
  // Strategic merge patch needs patch metadata: kinds without a schema do not take it (415), as upstream's CRDs.
  let served = smpSchema === undefined ? SCHEMALESS_PATCH_TYPES : SERVED_PATCH_TYPES;
  if (scope.store.apply !== undefined) served = [...served, APPLY_PATCH_TYPE];
  if (!served.includes(patchType)) {
    // A built-in kind's PATCH route is go-restful's, which refuses a media type outside the route's list itself.
    if (scope.store.unstructured !== true) throw new StatusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
    throw unsupportedMediaType('', served);
  }
  const body = await readBody(scope.req);
  const options: WriteOptions & { subresource?: string; force?: boolean } = writeOptionsFrom(scope.query, 'PatchOptions', patchType);
  options.fieldManager = managerOrUserAgent(options.fieldManager, scope.req.headers['user-agent']);
  fromRequest(scope, options);
  if (scope.info.subresource !== '') options.subresource = scope.info.subresource;
  await largeRequestTurns.run(body.length, async (pause) => {
    if (pause !== noPause) await pause();
    largeWrite(options, body, pause);
    if (patchType === APPLY_PATCH_TYPE) await handleApply(scope, body, options, out, pause);
    else await handleNonApplyPatch(scope, body, options, out, patchType, target, smpSchema, pause);
  });
}

async function handleNonApplyPatch(
  scope: ResourceScope,
  body: Buffer,
  options: WriteOptions & { subresource?: string; force?: boolean },
  out: NegotiatedOutput,
  patchType: string,
  target: ExpectedKind,
  smpSchema: ReturnType<typeof smpSchemaFor>,
  pause: () => Promise<void>,
): Promise<void> {
  const scale = scope.info.subresource === 'scale';
  const text = body.toString('utf8');
  // A large patch of a built-in kind is parsed and run on the worker thread (patch-stages.ts says why);
  // here it is parsed only if its stages must run here after all.
  const offThread = body.length >= LARGE_BODY_BYTES && !scale && scope.store.unstructured !== true;
  let parsed: { patch: unknown } | undefined;
  const parsedPatch = (): unknown => (parsed ??= { patch: parsePatch(text, patchType, options.fieldValidation ?? 'Warn') }).patch;
  if (!offThread || !(await patchParsesOffThread(text, patchType, options.fieldValidation, pause))) parsedPatch();
  if (pause !== noPause) await pause();
  const expected = target;
  const name = scope.info.name;
  let warnings: string[] = [];
  // Fields the store prunes itself (custom resources), reported once from the last attempt.
  const storeWarnings: string[] = [];
  options.warnings = storeWarnings;
  // The patched object's stages, each a walk of the whole object; a large
  // patch's store pauses between them (large-requests.ts), a small one or a
  // /scale write (its store takes a plain function) runs them in one go.
  const input: Omit<PatchStagesInput, 'patch'> = {
    patchType,
    text,
    expected,
    smpSchema,
    scale,
    unstructured: scope.store.unstructured === true && scope.info.subresource !== 'scale',
    isKnownKind: scope.isKnownKind,
    fieldValidation: options.fieldValidation,
    res: scope.res,
  };
  function* stages(current: KubeObject): Generator<undefined, KubeObject, undefined> {
    const out = yield* patchStages(current, { ...input, patch: parsedPatch() });
    // Recomputed on every attempt: a conflict retry patches a newer object.
    storeWarnings.length = 0;
    warnings = out.warnings;
    return out.object;
  }
  const inOneGo = (current: KubeObject): KubeObject => {
    const run = stages(current);
    let step = run.next();
    while (step.done !== true) step = run.next();
    return step.value;
  };
  const paused = async (current: KubeObject): Promise<KubeObject> => {
    const run = stages(current);
    let step = run.next();
    while (step.done !== true) {
      if (pause !== noPause) await pause();
      step = run.next();
    }
    return step.value;
  };
  const onWorker = async (current: KubeObject): Promise<KubeObject> => {
    const out = await patchedOffThread(current, { text, patchType, expected, fieldValidation: options.fieldValidation }, scope.res, pause);
    // Run here after all: on a copy (the store left the stored object uncopied for the worker's JSON).
    if (out === undefined) return paused(deepCopy(current));
    storeWarnings.length = 0;
    warnings = out.warnings;
    return out.object;
  };
  const patched = scale
    ? await scope.store.updateScale!(scope.namespace, name, inOneGo, options)
    : body.length < LARGE_BODY_BYTES
      ? await scope.store.patch(scope.namespace, name, inOneGo, options)
      : offThread
        ? await scope.store.patch(scope.namespace, name, onWorker, { ...options, readsCurrent: true })
        : await scope.store.patch(scope.namespace, name, paused, options);
  if (pause !== noPause) await pause();
  setWarningHeaders(scope.res, [...warnings, ...storeWarnings]);
  await writeAfterLarge(scope, body, 200, patched, out, pause, scale ? SCALE_KIND : undefined);
}

/** The applied configuration: a YAML (or JSON) object; kind and apiVersion must be the URL's. */
function decodeApplyBody(scope: ResourceScope, body: Buffer, strict: boolean): { config: Record<string, unknown>; warnings: string[]; json?: true } {
  const { config, warnings, json } = parseApplyBody(body, strict);
  return json === true ? { config: checkApplyKind(scope, config), warnings, json } : { config: checkApplyKind(scope, config), warnings };
}

function checkApplyKind(scope: ResourceScope, config: Record<string, unknown>): Record<string, unknown> {
  const apiVersion = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
  const kind = typeof config['kind'] === 'string' ? config['kind'] : '';
  const target = scope.info.subresource === 'scale' ? SCALE_KIND : expectedKind(scope.type);
  const expected = target.group === '' ? target.version : `${target.group}/${target.version}`;
  if (apiVersion !== expected || kind !== target.kind) {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    throw badRequest(`invalid object type: ${group}/${version}, Kind=${kind}`);
  }
  return config;
}

async function handleApply(
  scope: ResourceScope,
  body: Buffer,
  options: WriteOptions & { subresource?: string; force?: boolean; afterMerge?: (merged: KubeObject) => void },
  out: NegotiatedOutput,
  pause: () => Promise<void>,
): Promise<void> {
  const directive = options.fieldValidation;
  const { config, warnings, json } = decodeApplyBody(scope, body, directive === 'Strict' || directive === 'Warn');
  if (pause !== noPause) await pause();
  const strictFailure = warnings.length > 0 && directive === 'Strict';
  // The merge goes to the worker as JSON: a YAML body's values (.nan, .inf) may not survive that, so its merge stays here.
  let offload = options.offload;
  if (offload !== undefined && json !== true) {
    const { applied: _applied, ...rest } = offload;
    offload = rest;
  }
  options = {
    ...options,
    ...(offload === undefined ? {} : { offload }),
    afterMerge: (merged) => {
      // Upstream decides conflicts first: the strict decode fails the request only after a clean merge.
      if (strictFailure) throw badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${warnings.join('\n  ')}`);
      if (scope.info.subresource !== 'scale') normaliseApplied(scope, merged);
    },
  };
  if (scope.info.subresource === 'scale') {
    const scale = await scope.store.applyScale!(scope.namespace, scope.info.name, config, options);
    setWarningHeaders(scope.res, warnings);
    write(scope, 200, scale, out, SCALE_KIND);
    return;
  }
  const { object, created } = await scope.store.apply!(scope.namespace, scope.info.name, config, options);
  if (pause !== noPause) await pause();
  setWarningHeaders(scope.res, warnings);
  await writeAfterLarge(scope, body, created ? 201 : 200, object, out, pause);
}

export async function handleDelete(scope: ResourceScope): Promise<void> {
  const out = output(scope);
  const { options, orphanDependents } = deleteOptionsFrom(await readBody(scope.req), scope.req.headers['content-type'], scope.query, scope.unsafeDelete !== undefined, scope.servesGroupVersion);
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) scope.unsafeDelete?.authorize('unsafe-delete-ignore-read-errors');
  if (scope.request !== undefined) options.request = scope.request;
  const { result, gone } = await scope.store.delete(scope.namespace, scope.info.name, options);
  // Upstream answers 202 only when the object stays and the client asked for orphanDependents=false.
  const code = !gone && orphanDependents === false ? 202 : 200;
  write(scope, code, result, out);
}

export async function handleDeleteCollection(scope: ResourceScope): Promise<void> {
  const out = output(scope);
  const { options } = deleteOptionsFrom(await readBody(scope.req), scope.req.headers['content-type'], scope.query, scope.unsafeDelete !== undefined, scope.servesGroupVersion);
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [
      fieldErrors.invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option'),
    ]);
  }
  if (scope.request !== undefined) options.request = scope.request;
  const list = await scope.store.deleteCollection(scope.namespace, listOptionsFrom(scope.query), options);
  write(scope, 200, list, out);
}
