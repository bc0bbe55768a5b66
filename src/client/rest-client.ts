// RestClient: HTTP access to an apiary (or any Kubernetes) API server.
//
// One RestClient owns one keep-alive undici Agent; every request is JSON in,
// JSON out. A non-2xx answer rejects with a StatusError carrying the server's
// Status (errors.ts); a request that never got an answer rejects with a
// NetworkError; an aborted request rejects with the signal's reason.
//
// resource(gvr) is the dynamic client for any group/version/resource;
// .namespace(ns) scopes it. Without a namespace, list/watch/deleteCollection
// span all namespaces (or a cluster-scoped resource), and get/update/delete
// address a cluster-scoped object. The typed helpers (configMaps(ns),
// namespaces(), ...) are the same client bound to a built-in resource.

import { Agent, request } from 'undici';
import type { Status } from '../machinery/errors.js';
import type { GroupVersionResource, KubeList, KubeObject } from '../machinery/meta.js';
import { BUILTIN_RESOURCES, type BuiltinResourceName } from './builtin-resources.js';
import { type APIResourceList, serverPreferredNamespacedResources } from './discovery.js';
import { errorFromResponse, networkError } from './errors.js';
import { type ClientConfig, loadKubeconfig, type LoadKubeconfigOptions } from './kubeconfig.js';
import { Watch } from './watch.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ListOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export interface WriteOptions extends RequestOptions {
  dryRun?: 'All';
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface PatchOptions extends WriteOptions {
  /** Apply patches only: take ownership of conflicting fields. */
  force?: boolean;
  subresource?: string;
}

export interface DeleteOptions extends RequestOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: 'All';
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface HttpRequest extends RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Accept header instead of application/json (`as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`, aggregated discovery). */
  accept?: string;
}

export interface WatchRequestOptions<T> {
  /** Accept header instead of application/json. */
  accept?: string;
  /** Applied to each event's object as it is decoded (metadata-only informers keep less). */
  transform?: (object: T) => T;
}

export class RestClient {
  readonly config: ClientConfig;
  private readonly agent: Agent;
  private readonly headers: Record<string, string | string[]>;

  constructor(config: ClientConfig) {
    this.config = { ...config, server: config.server.replace(/\/+$/, '') };
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      connect: {
        ca: config.caData,
        cert: config.certData,
        key: config.keyData,
        rejectUnauthorized: config.insecureSkipTLSVerify !== true,
        ...(config.socketPath !== undefined ? { socketPath: config.socketPath } : {}),
      },
    });
    this.headers = { accept: 'application/json', 'user-agent': config.userAgent ?? 'apiary-client/0.1' };
    if (config.bearerToken) this.headers.authorization = `Bearer ${config.bearerToken}`;
    else if (config.username !== undefined) {
      const basic = Buffer.from(`${config.username}:${config.password ?? ''}`).toString('base64');
      this.headers.authorization = `Basic ${basic}`;
    }
    if (config.impersonate !== undefined) {
      this.headers['impersonate-user'] = config.impersonate.user;
      // One header per group (undici repeats a header given as an array).
      if ((config.impersonate.groups ?? []).length > 0) this.headers['impersonate-group'] = [...config.impersonate.groups!];
    }
  }

  static fromKubeconfig(path?: string, options?: LoadKubeconfigOptions): RestClient {
    return new RestClient(loadKubeconfig(path, options));
  }

  /** Closes idle connections; in-flight requests and watches are destroyed. */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  /** The dynamic client for any group/version/resource. */
  resource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
    return new ResourceClient<T>(this, gvr, undefined);
  }

  /** A built-in resource by plural name, optionally scoped to a namespace. */
  builtin<T extends KubeObject = KubeObject>(name: BuiltinResourceName, namespace?: string): ResourceClient<T> {
    const r = this.resource<T>(BUILTIN_RESOURCES[name]);
    return namespace === undefined ? r : r.namespace(namespace);
  }

  namespaces<T extends KubeObject = KubeObject>(): ResourceClient<T> {
    return this.builtin<T>('namespaces');
  }
  configMaps<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('configmaps', namespace);
  }
  secrets<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('secrets', namespace);
  }
  pods<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('pods', namespace);
  }
  services<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('services', namespace);
  }
  serviceAccounts<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('serviceaccounts', namespace);
  }
  events<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('events', namespace);
  }
  resourceQuotas<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('resourcequotas', namespace);
  }
  limitRanges<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('limitranges', namespace);
  }
  leases<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('leases', namespace);
  }
  deployments<T extends KubeObject = KubeObject>(namespace?: string): ResourceClient<T> {
    return this.builtin<T>('deployments', namespace);
  }

  /** Namespaced resources, preferred version per group (see discovery.ts). */
  serverPreferredNamespacedResources(): Promise<APIResourceList[]> {
    return serverPreferredNamespacedResources(this);
  }

  /** One request; resolves with the parsed JSON body (undefined when empty). */
  async request<R>(req: HttpRequest): Promise<R> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string | string[]> = { ...this.headers };
    if (req.accept !== undefined) headers.accept = req.accept;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = req.contentType ?? 'application/json';
    }
    let res;
    try {
      res = await request(url, { method: req.method, headers, body, dispatcher: this.agent, signal: req.signal });
    } catch (err) {
      throw this.transportError(req.method, url, err, req.signal);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      throw this.transportError(req.method, url, err, req.signal);
    }
    if (res.statusCode < 200 || res.statusCode > 299) throw errorFromResponse(res.statusCode, text);
    return (text === '' ? undefined : JSON.parse(text)) as R;
  }

  /** Starts a watch (GET with watch=true); resolves once the server accepted it. */
  async watch<T>(path: string, query: Query, signal?: AbortSignal, options: WatchRequestOptions<T> = {}): Promise<Watch<T>> {
    const url = this.url(path, { ...query, watch: true });
    const controller = new AbortController();
    const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    let res;
    try {
      // A watch may be quiet for minutes: no body timeout.
      const headers = options.accept === undefined ? this.headers : { ...this.headers, accept: options.accept };
      res = await request(url, { method: 'GET', headers, dispatcher: this.agent, signal: combined, bodyTimeout: 0 });
    } catch (err) {
      throw this.transportError('GET', url, err, combined);
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      const text = await res.body.text().catch(() => '');
      throw errorFromResponse(res.statusCode, text);
    }
    const body = res.body;
    return new Watch<T>(
      body,
      () => {
        controller.abort();
        body.destroy();
      },
      options.transform,
    );
  }

  private url(path: string, query?: Query): string {
    let url = this.config.server + path;
    if (query !== undefined) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
      const qs = params.toString();
      if (qs !== '') url += `?${qs}`;
    }
    return url;
  }

  private transportError(method: string, url: string, err: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason ?? err;
    return networkError(method, url, err);
  }
}

/** The dynamic client for one resource, optionally scoped to a namespace. */
export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    private readonly client: RestClient,
    readonly gvr: GroupVersionResource,
    readonly namespaceName: string | undefined,
  ) {}

  namespace(namespace: string): ResourceClient<T> {
    return new ResourceClient<T>(this.client, this.gvr, namespace);
  }

  /** The request path for this resource, an object of it, or a subresource. */
  path(name?: string, subresource?: string, namespace = this.namespaceName): string {
    const { group, version, resource } = this.gvr;
    let p = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    if (namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${resource}`;
    if (name !== undefined) p += `/${encodeURIComponent(name)}`;
    if (subresource !== undefined) p += `/${subresource}`;
    return p;
  }

  get(name: string, options: RequestOptions & { resourceVersion?: string } = {}): Promise<T> {
    return this.client.request<T>({ method: 'GET', path: this.path(name), query: { resourceVersion: options.resourceVersion }, signal: options.signal });
  }

  /** One page of the list; items get the list's apiVersion and kind, as the dynamic client does. */
  async list(options: ListOptions = {}): Promise<KubeList<T>> {
    const list = await this.client.request<KubeList<T>>({ method: 'GET', path: this.path(), query: listQuery(options), signal: options.signal });
    const kind = list.kind?.endsWith('List') ? list.kind.slice(0, -'List'.length) : undefined;
    for (const item of list.items ?? []) {
      if (item.apiVersion === undefined && list.apiVersion) item.apiVersion = list.apiVersion;
      if (item.kind === undefined && kind) item.kind = kind;
    }
    list.items ??= [];
    return list;
  }

  create(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.client.request<T>({ method: 'POST', path: this.path(undefined, undefined, this.nsOf(obj)), query: writeQuery(options), body: obj, signal: options.signal });
  }

  update(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.client.request<T>({ method: 'PUT', path: this.path(nameOf(obj), undefined, this.nsOf(obj)), query: writeQuery(options), body: obj, signal: options.signal });
  }

  updateStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.client.request<T>({ method: 'PUT', path: this.path(nameOf(obj), 'status', this.nsOf(obj)), query: writeQuery(options), body: obj, signal: options.signal });
  }

  patch(name: string, type: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    const query: Query = { ...writeQuery(options), force: options.force };
    return this.client.request<T>({
      method: 'PATCH',
      path: this.path(name, options.subresource),
      query,
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      signal: options.signal,
    });
  }

  /** Deletes one object; resolves with the object (if deletion is pending) or a Success Status. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    return this.client.request<T | Status>({ method: 'DELETE', path: this.path(name), body: deleteBody(options), signal: options.signal });
  }

  deleteCollection(options: DeleteOptions = {}, listOptions: ListOptions = {}): Promise<KubeList<T> | Status> {
    return this.client.request<KubeList<T> | Status>({
      method: 'DELETE',
      path: this.path(),
      query: listQuery(listOptions),
      body: deleteBody(options),
      signal: options.signal ?? listOptions.signal,
    });
  }

  watch(options: ListOptions = {}): Promise<Watch<T>> {
    return this.client.watch<T>(this.path(), listQuery(options), options.signal);
  }

  private nsOf(obj: T): string | undefined {
    return this.namespaceName ?? (obj.metadata?.namespace || undefined);
  }
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name');
  return name;
}

function listQuery(o: ListOptions): Query {
  return {
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
    limit: o.limit,
    continue: o.continue,
    timeoutSeconds: o.timeoutSeconds,
    allowWatchBookmarks: o.allowWatchBookmarks,
    sendInitialEvents: o.sendInitialEvents,
  };
}

function writeQuery(o: WriteOptions): Query {
  return { dryRun: o.dryRun, fieldManager: o.fieldManager, fieldValidation: o.fieldValidation };
}

function deleteBody(o: DeleteOptions): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.propagationPolicy !== undefined) body.propagationPolicy = o.propagationPolicy;
  if (o.preconditions !== undefined) body.preconditions = o.preconditions;
  if (o.dryRun !== undefined) body.dryRun = [o.dryRun];
  return Object.keys(body).length === 2 ? undefined : body;
}
