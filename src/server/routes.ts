// Routing: one entry point for every request. Wraps the request in the panic
// recovery filter (anything thrown becomes a Status, unexpected errors a 500
// InternalError), parses its RequestInfo, serves the non-resource paths
// (health, version, metrics, discovery) and dispatches resource requests to the
// verb handlers.
//
// Which paths exist mirrors kube-apiserver's route table: a group/version we do
// not serve is Go's plain-text "404 page not found" (no web service claims it);
// inside a served group/version an unknown resource or path is go-restful's
// JSON 404 Status, and a known path with a method it lacks is a 405 Status.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { badRequest, forbidden, methodNotSupported } from '../machinery/errors.js';
import type { RESTStore, ResourceType } from '../registry/rest.js';
import { definitionFor } from '../api/schema/index.js';
import {
  DISCOVERY_RESTRICTIONS,
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  servesGroupVersion,
  isConnectSubresource,
  subresourceVerbs,
} from './discovery.js';
import {
  handleCreate,
  handleDelete,
  handleDeleteCollection,
  handleGet,
  handleList,
  handlePatch,
  handleUpdate,
  handleWatch,
  type ResourceScope,
} from './handlers.js';
import { healthEndpointOf, healthPaths, serveHealth } from './health.js';
import { reportedVerb, type ServerMetrics } from './metrics.js';
import { DOCUMENT_MEDIA_TYPES, negotiateOutput, routeAccepts, SERVED_MEDIA_TYPES, SERVED_STREAM_MEDIA_TYPES } from './negotiation.js';
import { createOpenApiService, type OpenApiService } from './openapi/service.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { serveConnect } from './connect.js';
import { KubeletClient } from './proxy/kubelet.js';
import { routeError, routeNotAcceptable, toStatusError, writeError, writeNegotiated, writeObject, writeText } from './responses.js';

/** What go-restful routes of resources produce (upstream's media types, then its stream types). */
const RESOURCE_PRODUCES_WITH_STREAMS = [...SERVED_MEDIA_TYPES, ...SERVED_STREAM_MEDIA_TYPES];
/** /version is a go-restful route producing JSON alone. */
const VERSION_PRODUCES = ['application/json'];
import type { WatchTracker } from './watch.js';
import { setWarningHeaders } from './field-validation.js';
import { auditAnnotationsOf } from './audit.js';
import type { AdmissionRequestContext } from '../registry/admission.js';
import type { UserInfo } from '../machinery/user.js';
import { namespacesStoreFor } from './namespace-visibility.js';
import { attributesFor, authorizeIdentified, identifyRequest, requestUser, runSecurityFilters, type SecurityFilters } from './security.js';
import type { FlowControlFilter } from './flowcontrol/filter.js';
import type { Aggregator } from './aggregator/index.js';
import { mergeOpenApiV2 } from './aggregator/openapi-v2.js';

/** What routing needs of the registry (src/registry/index.ts's Registry satisfies it). */
export interface RegistryView {
  stores: RESTStore[];
  storeFor(group: string, resource: string, version?: string): RESTStore | undefined;
  /** Changes when the served stores do (custom resources come and go); absent: they never change. */
  generation?(): number;
}

export interface ApiContext {
  registry: RegistryView;
  watches: WatchTracker;
  metrics: ServerMetrics;
  logger: Logger;
  /** host:port clients reach us at, for /api's serverAddressByClientCIDRs. */
  serverAddress(): string;
  /** False before the server listens and once it begins to stop (the readyz "shutdown" check). */
  isReady(): boolean;
  /** False while the embedder waits for the system namespaces (absent: never waits). */
  systemNamespacesReady?(): boolean;
  /** Resolves when the storage backend answers (the "etcd" health checks); absent: always healthy. */
  storageHealth?(): Promise<void>;
  version: Record<string, string>;
  /** Authentication, impersonation and authorization (absent: every request is allowed, as anonymous). */
  security?: SecurityFilters;
  /** AllowUnsafeMalformedObjectDeletion: the delete option ignoreStoreReadErrorWithClusterBreakingPotential is honoured. */
  allowUnsafeMalformedObjectDeletion?: boolean;
  /** API Priority and Fairness, after authentication and impersonation (absent: --enable-priority-and-fairness=false). */
  flowControl?: FlowControlFilter;
  /** Requests served outside the resource routes (TokenRequest, OIDC discovery); true when answered. */
  extraRoutes?: (req: IncomingMessage, res: ServerResponse, info: RequestInfo) => Promise<boolean>;
  /** The aggregation layer: remote APIServices' group/versions are proxied, their groups added to discovery. */
  aggregator?: Aggregator;
  /** How pods/log, exec, attach, port-forward and nodes/proxy reach kubelets (--kubelet-* flags); default: no client certificate, no CA. */
  kubelet?: KubeletClient;
}

const DEFAULT_KUBELET_CLIENT = new KubeletClient();

type Handler = (scope: ResourceScope) => Promise<void>;

const VERB_HANDLERS: Record<string, Handler> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

export function createApiHandler(ctx: ApiContext): (req: IncomingMessage, res: ServerResponse) => void {
  // The OpenAPI documents are built on first use, from the types served now,
  // and again after the served types change (a CRD established or deleted).
  let openapi: OpenApiService | undefined;
  let openapiGeneration = -1;
  const openApiService = (): OpenApiService => {
    const generation = ctx.registry.generation?.() ?? 0;
    if (openapi === undefined || generation !== openapiGeneration) {
      const aggregator = ctx.aggregator;
      openapi = createOpenApiService(
        ctx.registry.stores.map((s) => s.type),
        ctx.version['gitVersion'] ?? 'unversioned',
        aggregator === undefined ? undefined : () => aggregator.openApiV3Paths(),
        aggregator === undefined ? undefined : { specs: () => aggregator.openApiV2Specs(), merge: mergeOpenApiV2 },
      );
      openapiGeneration = generation;
    }
    return openapi;
  };
  return (req, res) => {
    const started = process.hrtime.bigint();
    let info: RequestInfo | undefined;
    // Recorded once the answer is out, or, when the client left first, once the
    // handler is done: as upstream's, a request goes on without its client and
    // is counted with the code it got, not the 200 a response starts with.
    let handled = false;
    let clientLeft = false;
    const record = (): void => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const verb = info?.verb ?? req.method?.toLowerCase() ?? '';
      const resource = info?.isResourceRequest ? info.resource : '';
      const code = res.statusCode;
      const method = req.method ?? 'GET';
      ctx.metrics.observeRequest(info?.isResourceRequest ? reportedVerb(verb, method) : method, resource, code, seconds);
      // One line per request at debug only (kube-apiserver logs them from -v=3 on).
      if (!ctx.logger.isLevelEnabled('debug')) return;
      ctx.logger.debug(
        {
          verb,
          resource,
          subresource: info?.subresource || undefined,
          namespace: info?.namespace || undefined,
          name: info?.name || undefined,
          path: info?.path,
          code,
          latencyMs: Math.round(seconds * 1e6) / 1e3,
          userAgent: req.headers['user-agent'],
        },
        'request',
      );
    };
    res.on('close', () => {
      if (handled || res.headersSent) record();
      else clientLeft = true;
    });
    // Panic recovery: nothing thrown below escapes as an unhandled rejection.
    const run = async (): Promise<void> => {
      info = parseRequestInfo(req.method ?? 'GET', req.url ?? '/');
      const security = ctx.security;
      if (security !== undefined && ctx.flowControl === undefined) {
        const allowed = runSecurityFilters(security, req, res, info);
        if (!(allowed instanceof Promise ? await allowed : allowed)) return;
      } else if (security !== undefined) {
        // Priority and fairness sits between impersonation and authorization, as upstream's.
        const identified = identifyRequest(security, req, res, info);
        if (!(identified instanceof Promise ? await identified : identified)) return;
      }
      const requestInfo = info;
      const serve = async (): Promise<void> => {
        if (security !== undefined && ctx.flowControl !== undefined && !authorizeIdentified(security, req, res, requestInfo)) return;
        // An extension server's group/version goes to it, after authentication and authorization (as upstream's aggregator).
        const aggregator = ctx.aggregator;
        if (aggregator !== undefined && (requestInfo.path.startsWith('/apis/') || requestInfo.path.startsWith('/openapi/v3/apis/')) && (await aggregator.serve(req, res, requestInfo.path, security !== undefined ? requestUser(req) : undefined))) return;
        if (ctx.extraRoutes !== undefined && (await ctx.extraRoutes(req, res, requestInfo))) return;
        if (requestInfo.isResourceRequest) await serveResource(ctx, req, res, requestInfo);
        else if (openApiService().handles(requestInfo.path)) openApiService().serve(req, res, requestInfo.path);
        else await serveNonResource(ctx, req, res, requestInfo);
      };
      if (ctx.flowControl !== undefined) await ctx.flowControl.handle(req, res, info, ctx.security !== undefined ? requestUser(req) : undefined, serve);
      else await serve();
    };
    run()
      .catch((err: unknown) => {
        const status = toStatusError(err);
        if (status.code >= 500) ctx.logger.error({ err, path: req.url }, 'request failed');
        if (res.headersSent) res.end();
        else writeError(req, res, status);
      })
      .finally(() => {
        handled = true;
        if (clientLeft) record();
      });
  };
}

async function serveNonResource(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, info: RequestInfo): Promise<void> {
  const path = info.path.length > 1 ? info.path.replace(/\/+$/, '') : info.path;
  const types = ctx.registry.stores.map((s) => s.type);
  const method = req.method ?? 'GET';
  const segments = path.split('/').filter((s) => s !== '');

  const health = healthEndpointOf(path);
  if (health !== undefined) {
    await serveHealth(req, res, health, info.query, {
      storage: ctx.storageHealth ?? (async () => {}),
      // The server listens only once every watch cache has its resource (server.ts awaits registry.ready).
      cachesSynced: () => true,
      serving: () => ctx.isReady(),
      systemNamespaces: () => ctx.systemNamespacesReady?.() ?? true,
    });
    return;
  }
  if (path === '/metrics') {
    const { contentType, body } = await ctx.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.writeHead(200);
    res.end(body);
    return;
  }
  if (path === '/version') {
    if (!routeAccepts(req.headers.accept, VERSION_PRODUCES)) throw routeNotAcceptable(VERSION_PRODUCES);
    return void writeObject(req, res, 200, ctx.version);
  }
  if (path === '/') {
    const paths = ['/api', '/api/v1', '/apis', ...healthPaths(), '/metrics', '/openapi/v2', '/openapi/v3', '/openapi/v3/', '/version'];
    for (const t of types) if (t.group !== '') paths.push(`/apis/${t.group}`, `/apis/${t.group}/${t.version}`);
    return void writeObject(req, res, 200, { paths: [...new Set(paths)].sort() });
  }

  if (segments[0] === 'api' && segments.length <= 2) {
    if (segments.length === 1) return discovery(req, res, method, types, 'api', () => apiVersions(types, ctx.serverAddress()), true);
    const list = apiResourceList(types, '', segments[1]!);
    if (list !== undefined) return discovery(req, res, method, types, undefined, () => list, true);
  }
  if (segments[0] === 'apis' && segments.length <= 3) {
    const aggregator = ctx.aggregator;
    if (segments.length === 1) {
      const legacy = (): Record<string, unknown> => {
        const list = apiGroupList(types);
        if (aggregator !== undefined) (list['groups'] as unknown[]).push(...aggregator.remoteGroups(types));
        return list;
      };
      return discovery(req, res, method, types, 'apis', legacy, false, aggregator === undefined ? undefined : () => aggregator.aggregatedItems(types));
    }
    if (segments.length === 2) {
      const group = apiGroup(types, segments[1]!) ?? aggregator?.remoteGroup(segments[1]!, types);
      if (group !== undefined) return discovery(req, res, method, types, undefined, () => group, false);
    } else {
      const list = apiResourceList(types, segments[1]!, segments[2]!);
      if (list !== undefined) return discovery(req, res, method, types, undefined, () => list, true);
    }
  }
  // Below a group upstream has a web service for (the core API, a group served in
  // some version), an unserved version is go-restful's JSON 404.
  const groupServed = (segments[0] === 'api' && segments.length >= 2) || (segments[0] === 'apis' && segments.length >= 3 && servesBuiltInGroup(types, segments[1]!));
  if (groupServed) throw routeError(404);
  writeText(req, res, 404, '404 page not found\n');
}

/** Writes a discovery document; /api and /apis also answer aggregated discovery when Accept asks for it. */
function discovery(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  types: ResourceType[],
  aggregatedRoot: 'api' | 'apis' | undefined,
  legacy: () => Record<string, unknown>,
  goRestful: boolean,
  /** More aggregated discovery items (the extension servers' groups). */
  extraItems?: () => Record<string, unknown>[],
): void {
  if (method !== 'GET' && method !== 'HEAD') throw routeError(405);
  // /api, /api/v1 and /apis/{group}/{version} are go-restful routes (Accept checked first); /apis and /apis/{group} are not.
  if (goRestful && !routeAccepts(req.headers.accept, SERVED_MEDIA_TYPES)) throw routeNotAcceptable(SERVED_MEDIA_TYPES);
  const output = negotiateOutput(req.headers.accept, aggregatedRoot === undefined ? undefined : DISCOVERY_RESTRICTIONS, DOCUMENT_MEDIA_TYPES);
  if (output.convert !== undefined && aggregatedRoot !== undefined) {
    const version = output.convert.version;
    const contentType = output.mediaType === 'application/json' ? aggregatedContentType(version) : output.mediaType;
    res.setHeader('Vary', 'Accept');
    const document = aggregatedDiscovery(types, aggregatedRoot, version);
    if (extraItems !== undefined) (document['items'] as unknown[]).push(...extraItems());
    // An ETag that changes with the served types (CRDs come and go), and 304 for a client that has it, as upstream.
    const etag = `"${createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase()}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'public');
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304);
      res.end();
      return;
    }
    writeNegotiated(req, res, 200, document, output, contentType);
    return;
  }
  writeNegotiated(req, res, 200, legacy(), output);
}

/** routesFor's answers per resource type, by what of the path decides them (read only). */
const routesByType = new WeakMap<ResourceType, Map<string, ReadonlyMap<string, string>>>();

/** The verbs a path answers, by HTTP method, given what the resource supports: made once per type and shape of path. */
function routesFor(type: ResourceType, info: RequestInfo, hasNamespace: boolean): ReadonlyMap<string, string> {
  const legacyWatch = isLegacyWatch(info);
  const key = `${info.subresource}/${legacyWatch ? 1 : 0}${info.name === '' ? 1 : 0}${info.verb === 'watch' ? 1 : 0}${hasNamespace ? 1 : 0}`;
  let byShape = routesByType.get(type);
  if (byShape === undefined) routesByType.set(type, (byShape = new Map()));
  let routes = byShape.get(key);
  if (routes === undefined) {
    // Subresource names come from the path: only those the type has are kept (the others all answer nothing).
    routes = buildRoutes(type, info, hasNamespace, legacyWatch);
    if (info.subresource === '' || type.subresources.includes(info.subresource)) byShape.set(key, routes);
  }
  return routes;
}

function buildRoutes(type: ResourceType, info: RequestInfo, hasNamespace: boolean, legacyWatch: boolean): Map<string, string> {
  const routes = new Map<string, string>();
  const has = (verb: string): boolean => (type.verbs as string[]).includes(verb);
  if (info.subresource !== '') {
    if (!type.subresources.includes(info.subresource) || legacyWatch || isConnectSubresource(info.subresource)) return routes;
    const verbs = subresourceVerbs(info.subresource);
    if (verbs.includes('get')) routes.set('GET', 'get');
    if (verbs.includes('create')) routes.set('POST', 'create');
    if (verbs.includes('update')) routes.set('PUT', 'update');
    if (verbs.includes('patch')) routes.set('PATCH', 'patch');
    return routes;
  }
  if (legacyWatch) {
    if (has('watch')) routes.set('GET', 'watch');
    return routes;
  }
  if (info.name === '') {
    if (has('list') || has('watch')) routes.set('GET', info.verb === 'watch' ? 'watch' : 'list');
    if (hasNamespace && has('create')) routes.set('POST', 'create');
    if (hasNamespace && has('deletecollection')) routes.set('DELETE', 'deletecollection');
    return routes;
  }
  if (!hasNamespace) return routes;
  if (type.createOnNamedPath === true && has('create')) routes.set('POST', 'create');
  if (has('get')) routes.set('GET', 'get');
  if (has('update')) routes.set('PUT', 'update');
  if (has('patch')) routes.set('PATCH', 'patch');
  if (has('delete')) routes.set('DELETE', 'delete');
  return routes;
}

/**
 * Whether the request's group has a web service upstream: the core API
 * (/api/<any version>) and every named group we serve in some version.
 */
function servesGroup(types: ResourceType[], info: RequestInfo): boolean {
  return info.apiPrefix === 'api' || servesBuiltInGroup(types, info.apiGroup);
}

/**
 * A built-in group served in some version. Custom resource groups are not
 * go-restful web services upstream (the apiextensions handler serves them): an
 * unserved version there stays the plain 404.
 */
function servesBuiltInGroup(types: ResourceType[], group: string): boolean {
  return types.some((t) => t.group === group && definitionFor(t.group, t.version, t.kind) !== undefined);
}

/** /namespaces/{ns}/namespaces/…: the namespace segment was a scope, not the namespace's own name. */
function isUnderNamespace(info: RequestInfo): boolean {
  const afterVersion = info.apiGroup === '' ? 2 : 3;
  const segments = info.path.split('/').filter((s) => s !== '');
  return segments[afterVersion] === 'namespaces' && segments[afterVersion + 2] === 'namespaces';
}

function isLegacyWatch(info: RequestInfo): boolean {
  // Most paths hold no watch segment at all.
  if (!info.path.includes('/watch')) return false;
  const afterVersion = info.apiGroup === '' ? 2 : 3;
  return info.path.split('/').filter((s) => s !== '')[afterVersion] === 'watch';
}

async function serveResource(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, info: RequestInfo): Promise<void> {
  const types = (): ResourceType[] => ctx.registry.stores.map((s) => s.type);
  const coreShape = info.apiPrefix === 'api' ? info.apiGroup === '' : info.apiGroup !== '';
  const found = ctx.registry.storeFor(info.apiGroup, info.resource, info.apiVersion);
  // A list or watch of namespaces authorized through --namespace-list-filtering sees the visible ones only.
  const store = found === undefined ? undefined : namespacesStoreFor(req, found);
  // The store found answers "is this group/version served" without a scan of every type, most of the time.
  const served = store?.type.version === info.apiVersion || servesGroupVersion(types(), info.apiGroup, info.apiVersion);
  if (!coreShape || (!served && !servesGroup(types(), info))) {
    writeText(req, res, 404, '404 page not found\n');
    return;
  }
  // A version of a group we serve that we do not serve (apps/v1beta1): go-restful's JSON 404, as upstream.
  if (!served) throw routeError(404);
  // proxy subresources take a path after them (pods/{name}/proxy/{path}).
  const proxyPath = info.subresource === 'proxy' && store?.type.subresources.includes('proxy') === true;
  if (store === undefined || store.type.version !== info.apiVersion || (info.parts.length > 3 && !proxyPath)) throw routeError(404);
  const type = store.type;

  // Which namespace the path carries for this resource, and whether the path's shape fits its scope.
  let namespace = '';
  let hasNamespace: boolean;
  if (type.namespaced) {
    namespace = info.namespace;
    hasNamespace = namespace !== '';
  } else {
    // A cluster-scoped resource under /namespaces/{ns}/ has no route, namespaces included
    // (/namespaces/{name} itself parses as the namespace and its name).
    if (info.namespace !== '' && (info.resource !== 'namespaces' || isUnderNamespace(info))) throw routeError(404);
    hasNamespace = true;
  }

  if (info.subresource !== '' && hasNamespace && type.subresources.includes(info.subresource) && isConnectSubresource(info.subresource)) {
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const verbs = subresourceVerbs(info.subresource);
    const verb = CONNECT_VERBS[method];
    if (verb === undefined || !verbs.includes(verb)) throw routeError(405);
    const connect = { storeFor: (group: string, resource: string) => ctx.registry.storeFor(group, resource), kubelet: ctx.kubelet ?? DEFAULT_KUBELET_CLIENT };
    // The proxy subresources' path after `proxy`, a trailing slash kept.
    const rest = info.parts.slice(3).join('/');
    const trailing = info.path.endsWith('/') ? '/' : '';
    const subpath = rest === '' ? trailing : `/${rest}${trailing}`;
    await serveConnect(connect, store, { namespace, name: info.name, subresource: info.subresource, proxyPath: subpath, query: info.query }, req, res);
    return;
  }
  const routes = routesFor(type, info, hasNamespace);
  if (routes.size === 0) throw routeError(404);
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const verb = routes.get(method);
  if (verb === undefined) throw routeError(405);
  // go-restful's Accept check: a collection GET (list, watch) and the legacy watch paths also produce the stream types.
  const streams = (verb === 'list' || verb === 'watch') && (info.name === '' || isLegacyWatch(info));
  const produces = streams ? RESOURCE_PRODUCES_WITH_STREAMS : SERVED_MEDIA_TYPES;
  if (!routeAccepts(req.headers.accept, produces)) throw routeNotAcceptable(produces);
  if (verb === 'watch' && !(type.verbs as string[]).includes('watch')) throw methodNotSupported(type, 'watch');
  if (verb === 'list' && !(type.verbs as string[]).includes('list')) throw methodNotSupported(type, 'list');
  info.verb = verb;
  // The store's key function refuses a name that cannot be a path segment (upstream's NamespaceKeyFunc).
  if (info.name !== '' && verb !== 'watch' && verb !== 'list') {
    const problems = pathSegmentNameProblems(info.name);
    if (problems.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(info.name)}: ${problems.join(';')}`);
  }
  if (store.warning !== undefined) setWarningHeaders(res, [store.warning]);

  const scope: ResourceScope = {
    req,
    res,
    info,
    query: info.query,
    store,
    type,
    namespace,
    watches: ctx.watches,
    isKnownKind: (apiVersion, kind) =>
      types().some((t) => (t.group === '' ? t.version : `${t.group}/${t.version}`) === apiVersion && t.kind === kind),
    servesGroupVersion: (apiVersion) => types().some((t) => (t.group === '' ? t.version : `${t.group}/${t.version}`) === apiVersion),
  };
  const user = ctx.security !== undefined ? requestUser(req) : undefined;
  if (user !== undefined) scope.user = user;
  if (ctx.allowUnsafeMalformedObjectDeletion === true) {
    const security = ctx.security;
    // The extra verb upstream checks before an unsafe delete (delete.go's authorizeUnsafeDelete).
    scope.unsafeDelete = {
      authorize: (verb) => {
        if (security === undefined || user === undefined) return;
        const attributes = { ...attributesFor(user, info), verb };
        const decision = security.authorizer.authorize(attributes);
        if (!decision.allowed) {
          throw forbidden({ group: info.apiGroup, resource: info.resource }, info.name, `not permitted to do ${JSON.stringify(verb)}, reason: ${decision.reason}`);
        }
      },
    };
  }
  if (!WRITE_VERBS.has(verb)) {
    await VERB_HANDLERS[verb]!(scope);
    return;
  }
  // Writes carry the request's context, which admission (webhooks) reads and reports through.
  const request = new WriteContext(res);
  if (user !== undefined) request.user = user;
  const manager = scope.query.get('fieldManager');
  if (manager !== null && manager !== '') request.fieldManager = manager;
  scope.request = request;
  await VERB_HANDLERS[verb]!(scope);
}

/**
 * A write's admission context. A class, not an object literal: a literal with
 * a getter gets a hidden class of its own each time it is made (the getter is
 * a new closure), and hidden classes live in the old generation, so each
 * write's response, request and everything they reach outlived the young
 * collections and died only in full ones (about 3 KB promoted per create;
 * bench/README.md, "What the create path on SQLite spends").
 */
class WriteContext implements AdmissionRequestContext {
  user?: UserInfo;
  fieldManager?: string;
  constructor(private readonly res: ServerResponse) {}

  readonly addWarning = (text: string): void => setWarningHeaders(this.res, [text]);

  /** Made on first use: most writes get none, and a WeakMap entry per request is not free. */
  get auditAnnotations(): Record<string, string> {
    return auditAnnotationsOf(this.res);
  }
}

/** path.IsValidPathSegmentName: not "." or "..", no "/" or "%". */
function pathSegmentNameProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const problems: string[] = [];
  for (const c of ['/', '%']) if (name.includes(c)) problems.push(`may not contain '${c}'`);
  return problems;
}

/** The verb a connect subresource answers per HTTP method (upstream's connect routes; proxy takes them all). */
const CONNECT_VERBS: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
