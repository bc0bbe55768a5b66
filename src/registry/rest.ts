// The contract between the HTTP layer (src/server) and the registry: what a
// served resource is (ResourceType, for routing and discovery) and what can be
// done with it (RESTStore, one per resource, built by the generic store from a
// strategy). Handlers decode, negotiate and encode; stores do everything else
// and fail with StatusError only.

import type { KubeList, KubeObject, ManagedFieldsEntry } from '../machinery/meta.js';
import type { CreatedFieldsOptions } from '../machinery/apply/created.js';
import type { FieldManagerJob } from '../machinery/apply/field-manager.js';
import type { Status } from '../machinery/errors.js';
import type { Printer } from '../api/tables/printer.js';
import type { UserInfo } from '../machinery/user.js';
import type { AdmissionRequestContext } from './admission.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What discovery says of a resource, and what routing needs to find it. */
export interface ResourceType {
  group: string;
  version: string;
  /** Plural, lower case: the URL segment ("configmaps"). */
  resource: string;
  kind: string;
  listKind: string;
  singularName: string;
  namespaced: boolean;
  verbs: Verb[];
  shortNames: string[];
  categories: string[];
  /** Subresources served beside the main resource ("status", "finalize"). */
  subresources: string[];
  /**
   * The group/version/kind its objects are stored as, when not its own
   * (events.k8s.io/v1 events are stored as core v1 Events); discovery's
   * storageVersionHash is computed from it.
   */
  storageVersion?: { group: string; version: string; kind: string };
  /** Not kept in storage (bindings, componentstatuses): discovery lists no storageVersionHash, as upstream. */
  unstored?: boolean;
  /** Discovery lists `verbs` as given instead of sorted (custom resources, as upstream). */
  keepVerbOrder?: boolean;
  /**
   * POST on the object's own path creates it (the body's name counts), as the
   * custom resources handler serves it upstream (HNC's kinds: `kubectl hns`
   * POSTs to `…/hierarchyconfigurations/hierarchy`).
   */
  createOnNamedPath?: boolean;
  /** Custom resources: their OpenAPI definitions (built-in kinds have theirs in the schema registry). */
  openapi?: CustomResourceOpenApi;
}

export interface CustomResourceOpenApi {
  kindDefinition: string;
  listDefinition: string;
  /** Schema-registry definitions the definitions refer to (ObjectMeta, ListMeta). */
  roots: string[];
  definitions(flavour: 'v2' | 'v3'): Record<string, Record<string, unknown>>;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  /**
   * The caller only encodes the items and never changes them (the HTTP list
   * handler): the store may hand out the watch cache's shared, frozen objects,
   * whose JSON is kept (machinery/json-memo.ts).
   */
  sharedItems?: boolean;
}

export interface WatchOptions extends ListOptions {
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

export interface WriteOptions {
  /** dryRun=All: validate and admit, write nothing. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Where the store puts the fieldValidation=Warn messages of fields it pruned, for the response's Warning headers. */
  warnings?: string[];
  /** Who asks, when the server authenticates (reviews and RBAC escalation checks read it). */
  user?: UserInfo;
  /** The HTTP request this write serves, for admission (absent for the server's own writes). */
  request?: AdmissionRequestContext;
  /** Between the stages of a large write: lets the event loop serve other requests (server/large-requests.ts). */
  pause?: () => Promise<void>;
  /** Pure work on a large object done off the event loop (server/body-worker.ts); absent, it is done here. */
  offload?: LargeWorkOffload;
}

/** What a large write's pure work may be handed to. */
export interface LargeWorkOffload {
  /**
   * createdFieldsV1 (machinery/apply/created.ts) of `obj` under the kind's
   * apply schema: the fieldsV1, undefined when it owns nothing, false when it
   * could not be done there (the caller then does it itself).
   */
  createdFieldsV1(kind: { group: string; version: string; kind: string }, obj: KubeObject, options: CreatedFieldsOptions): Promise<Record<string, unknown> | undefined | false>;
  /** The stored value of `obj` (storage's encode, the same text), for the storage write. */
  storedValue?(obj: KubeObject): Promise<string>;
  /**
   * FieldManager.update(live, next, manager) of the field manager `job`
   * describes: the managedFields `next` gets (undefined: none), false when it
   * could not be done there (the caller then does it itself).
   */
  managedFieldsOfUpdate?(job: FieldManagerJob, live: KubeObject | null, next: KubeObject, manager: string): Promise<ManagedFieldsEntry[] | undefined | false>;
  /**
   * FieldManager.apply(live, config, manager, force) of the field manager
   * `job` describes: its result, or its ConflictsError or ApplySchemaError
   * thrown; false when it could not be done there (the caller then does it itself).
   */
  applied?(job: FieldManagerJob, live: KubeObject | null, config: Record<string, unknown>, manager: string, force: boolean): Promise<{ object: KubeObject; changed: boolean } | false>;
}

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  /**
   * upstream's unsafe deletion of a corrupt object (AllowUnsafeMalformedObjectDeletion):
   * the key goes without its value being read (corrupt-object-deleter.ts).
   */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  /** The HTTP request this delete serves, for admission (absent for the server's own deletes). */
  request?: AdmissionRequestContext;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/**
 * A running watch. The store pushes events to the sink in order; `done` is
 * called exactly once when the watch ends (timeout, stop, error already sent as
 * an ERROR event, or the server shutting down).
 */
export interface WatchSink {
  event(e: WatchEvent): void;
  /** Optional: several events at once, in order (else event() per event); the array may be shared between watchers and must not be changed. */
  events?(events: readonly WatchEvent[]): void;
  done(): void;
}

export interface Watcher {
  stop(): void;
}

export interface RESTStore {
  readonly type: ResourceType;
  /** The Table printer, when the kind has its own beyond the built-in ones (custom resources' printer columns). */
  readonly printer?: Printer;
  /** A Warning sent with every response of this resource (a deprecated custom resource version). */
  readonly warning?: string;
  /** Custom resources: bodies of any kind decode, and the store answers a kind or apiVersion mismatch (422). */
  readonly unstructured?: boolean;
  /** The kind has no Table form (upstream: its storage has no TableConvertor): an Accept asking only for a Table is a 406. */
  readonly noTable?: boolean;

  /** `subresource` names what a GET of a subresource path asks for (status: the object; scale: a Scale). */
  /** With `shared`, the caller only encodes the object (the HTTP GET handler): it may be the watch cache's frozen one. */
  get(namespace: string, name: string, options: { resourceVersion?: string; subresource?: string; shared?: boolean }): Promise<KubeObject>;
  /**
   * The object as this server's watch cache holds it now, without waiting
   * (upstream's listers, for admission and other in-process readers):
   * shared and frozen, without kind and apiVersion. Undefined when the cache
   * does not hold it, or the resource has no watch cache.
   */
  getCached(namespace: string, name: string): Readonly<KubeObject> | undefined;
  /** A namespace's objects as getCached gives them (no order promised); undefined when there is no filled watch cache. */
  listCached?(namespace: string): Readonly<KubeObject>[] | undefined;
  /** namespace '' lists across all namespaces (or a cluster-scoped resource). */
  list(namespace: string, options: ListOptions): Promise<KubeList>;
  /** Takes `object` as its own (defaults and metadata are set on it): pass a copy to keep yours. */
  create(namespace: string, object: KubeObject, options: WriteOptions): Promise<KubeObject>;
  /**
   * PUT: replaces the object (subresource '' for the main resource, 'status',
   * 'finalize', …). `created` is true when the update created it (201). Takes
   * `object` as its own, as create does.
   */
  update(
    namespace: string,
    name: string,
    object: KubeObject,
    options: WriteOptions & { subresource?: string },
  ): Promise<{ object: KubeObject; created: boolean }>;
  /**
   * PATCH: applies `patch` to the current object and updates, retrying on
   * conflicts unless the patched object pins a resourceVersion.
   */
  patch(
    namespace: string,
    name: string,
    patch: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    // readsCurrent: `patch` leaves the object it is given unchanged (it returns a new one), so the store
    // need not copy the stored object for it (a large patch's, sent to the worker thread as JSON).
    options: WriteOptions & { subresource?: string; readsCurrent?: boolean },
  ): Promise<KubeObject>;
  /**
   * Server-side apply (PATCH with application/apply-patch+yaml): merges the
   * decoded configuration into the object as `fieldManager`, creating it when
   * missing. Absent for resources without an apply schema.
   */
  apply?(
    namespace: string,
    name: string,
    config: Record<string, unknown>,
    options: WriteOptions & { subresource?: string; force?: boolean; afterMerge?: (merged: KubeObject) => void },
  ): Promise<{ object: KubeObject; created: boolean }>;
  /**
   * POST of a subresource (pods/binding, pods/eviction): `body` is the decoded
   * request object (Binding, Eviction); the answer is a Status, sent with 201.
   * Absent: the resource has no POST subresource.
   */
  createSubresource?(namespace: string, name: string, subresource: string, body: KubeObject, options: WriteOptions): Promise<Status>;
  /** GET of the scale subresource (kinds that have one): an autoscaling/v1 Scale. */
  getScale?(namespace: string, name: string): Promise<KubeObject>;
  /** PUT/PATCH of the scale subresource: `change` maps the current Scale to the wanted one. */
  updateScale?(namespace: string, name: string, change: (current: KubeObject) => KubeObject, options: WriteOptions): Promise<KubeObject>;
  /** Apply of an autoscaling/v1 Scale. */
  applyScale?(
    namespace: string,
    name: string,
    config: Record<string, unknown>,
    options: WriteOptions & { force?: boolean; afterMerge?: (merged: KubeObject) => void },
  ): Promise<KubeObject>;
  /**
   * DELETE: the deleted object (or a Success Status, as upstream answers for
   * most kinds), and whether it is gone now (false while finalizers hold it).
   */
  delete(
    namespace: string,
    name: string,
    options: DeleteOptions,
  ): Promise<{ result: KubeObject | Status; gone: boolean }>;
  deleteCollection(namespace: string, list: ListOptions, options: DeleteOptions): Promise<KubeList>;
  watch(namespace: string, options: WatchOptions, sink: WatchSink): Promise<Watcher>;
}
