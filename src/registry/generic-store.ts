// The generic REST store: every verb of RESTStore for one resource, from its
// ResourceType, its Strategy and an ObjectStore (upstream's registry/generic
// Store with rest.BeforeCreate/BeforeUpdate/BeforeDelete).
//
// Write path, as upstream: type and namespace checks → prune unknown fields
// → defaults → system fields (uid, creationTimestamp, generateName) →
// strategy prepare → mutating admission → validation (ObjectMeta + strategy)
// → validating admission → guarded write. A rejected request writes nothing.
//
// Deletion: an object with metadata.finalizers (or a strategy hold, or a
// graceful period) gets deletionTimestamp and stays; an update that leaves such
// an object with no finalizers deletes it.

import type { KubeList, KubeObject, GroupResource, ManagedFieldsEntry } from '../machinery/meta.js';
import { apiVersionOf } from '../machinery/meta.js';
import {
  StatusError,
  badRequest,
  conflict,
  internalError,
  invalid,
  isAlreadyExists,
  notFound,
  staleResourceVersion,
  type Status,
} from '../machinery/errors.js';
import { type FieldError, fieldErrors, GoValue } from '../machinery/field-errors.js';
import { parseLabelSelector } from '../machinery/labels.js';
import { DEFAULT_FIELD_LABELS, parseFieldSelector, unknownFieldSelectorError, unsupportedFieldError } from '../machinery/fields.js';
import { validateKubeFinalizerNames, validateObjectMeta, validateObjectMetaUpdate } from '../machinery/validation.js';
import { fillZeroValues } from '../api/schema/zero-values.js';
import { definitionFor } from '../api/schema/index.js';
import { type Clock, formatTimestamp, generateName, newUid, systemClock } from '../machinery/names.js';
import type { ObjectStore, Predicate, StoreWatchEvent } from '../storage/object-store.js';
import {
  type AdmissionAttributes,
  type AdmissionOperation,
  type AdmissionPlugin,
  runMutatingAdmission,
  runValidatingAdmission,
} from './admission.js';
import type {
  DeleteOptions,
  ListOptions,
  RESTStore,
  ResourceType,
  WatchEvent,
  WatchOptions,
  WatchSink,
  Watcher,
  WriteOptions,
} from './rest.js';
import type { Strategy } from './strategy.js';
import { deletionFinalizers } from './gc-finalizers.js';
import { FieldManager, managedFieldsLast, managerKey, parseManagerKey } from '../machinery/apply/field-manager.js';
import { ConflictsError } from '../machinery/apply/updater.js';
import { conflictsStatusError } from '../machinery/apply/conflicts.js';
import { ApplySchemaError } from '../machinery/apply/typed.js';
import { fieldElement } from '../machinery/apply/path.js';
import type { TypeNode } from '../machinery/apply/schema.js';
import type { Printer } from '../api/tables/printer.js';
import { deepCopy } from '../machinery/deep-copy.js';

export interface GenericStoreOptions {
  type: ResourceType;
  strategy: Strategy;
  storage: ObjectStore;
  clock?: Clock;
  uid?: () => string;
  admission?: readonly AdmissionPlugin[];
  /** Drops fields the schema does not know, in place; returns their paths. */
  prune?: (obj: KubeObject) => string[];
  /**
   * This store's pruning is the only one a body gets (the handler's field check
   * does not know the kind): Strict errors of create and update then read as
   * the decoder's ("X in version "v" cannot be handled as a X: …"). Implied by unstructured.
   */
  pruneIsDecoding?: boolean;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (default 60 s, as upstream). */
  bookmarkIntervalMs?: number;
  /**
   * The kind's server-side apply schema: with it every write records
   * metadata.managedFields and apply is served; without it neither.
   */
  applySchema?: TypeNode;
  /** Paths nobody owns through each (sub)resource ('' = main), upstream's reset fields. */
  resetFields?: Record<string, string[][]>;
  /**
   * Which other apiVersions' managedFields entries hold for this kind as they
   * are (FieldManagerOptions.convertsFrom). Default: the kind's other versions
   * in its own group that the schema registry describes; entries of another
   * group (core/v1 Events written through events.k8s.io/v1) go on the next write.
   */
  managedFieldsConvertFrom?: (apiVersion: string) => boolean;
  /** The kind's own Table printer (see RESTStore.printer). */
  printer?: Printer;
  /** See RESTStore.warning. */
  warning?: string;
  /**
   * Objects are unstructured, as custom resources are served: list items keep
   * kind and apiVersion, and a body of another kind or apiVersion is a 422
   * (upstream's customResourceValidator) rather than a decoding 400.
   */
  unstructured?: boolean;
  /** Unstructured: apiVersions of the kind's other served versions (a body of one is a 400, as upstream decodes it). */
  otherServedApiVersions?: string[];
}

export interface ApplyOptions extends WriteOptions {
  subresource?: string;
  force?: boolean;
  /** Runs once the configuration merged without conflicts, before anything is written (the strict decode of the body, upstream checks it there). */
  afterMerge?: () => void;
}

/** What admission needs of a write's options (DeleteOptions carries the same two). */
type AdmissionCall = Pick<WriteOptions, 'dryRun' | 'request'>;

export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;

const GENERATE_NAME_ATTEMPTS = 8;

/** How many deletes one deletecollection keeps in flight. */
const DELETE_COLLECTION_WORKERS = 32;

export class GenericStore implements RESTStore {
  readonly type: ResourceType;
  readonly printer?: Printer;
  readonly warning?: string;
  readonly unstructured: boolean;
  private readonly otherServedApiVersions: readonly string[];
  private readonly pruneIsDecoding: boolean;
  protected readonly strategy: Strategy;
  protected readonly storage: ObjectStore;
  private readonly clock: Clock;
  private readonly newUid: () => string;
  private readonly admission: readonly AdmissionPlugin[];
  private readonly prune: ((obj: KubeObject) => string[]) | undefined;
  private readonly gr: GroupResource;
  private readonly apiVersion: string;
  private readonly bookmarkIntervalMs: number;
  private readonly sharedEvents = new WeakMap<StoreWatchEvent, WatchEvent>();
  private lastShared: [StoreWatchEvent, WatchEvent] | undefined;
  private lastSharedBatch: [readonly StoreWatchEvent[], readonly WatchEvent[]] | undefined;
  private readonly applySchema: TypeNode | undefined;
  private readonly resetFields: Record<string, string[][]>;
  private readonly managedFieldsConvertFrom: (apiVersion: string) => boolean;
  private readonly fieldManagers = new Map<string, FieldManager>();

  constructor(options: GenericStoreOptions) {
    this.type = options.type;
    this.strategy = options.strategy;
    this.storage = options.storage;
    this.clock = options.clock ?? systemClock;
    this.newUid = options.uid ?? newUid;
    const storeKey = `${this.type.group}/${this.type.resource}`;
    this.admission = (options.admission ?? []).filter((p) => p.resources === undefined || p.resources.has(storeKey));
    this.prune = options.prune;
    this.gr = { group: this.type.group, resource: this.type.resource };
    this.apiVersion = apiVersionOf(this.type);
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS;
    this.applySchema = options.applySchema;
    this.resetFields = options.resetFields ?? {};
    this.managedFieldsConvertFrom = options.managedFieldsConvertFrom ?? ((apiVersion) => this.sameKindOtherVersion(apiVersion));
    if (options.printer !== undefined) this.printer = options.printer;
    if (options.warning !== undefined) this.warning = options.warning;
    this.unstructured = options.unstructured === true;
    this.otherServedApiVersions = options.otherServedApiVersions ?? [];
    this.pruneIsDecoding = this.unstructured || options.pruneIsDecoding === true;
  }

  /** The field manager of a (sub)resource, or undefined when the kind has no apply schema. */
  private fieldManager(subresource: string): FieldManager | undefined {
    if (this.applySchema === undefined) return undefined;
    let fm = this.fieldManagers.get(subresource);
    if (fm === undefined) {
      fm = new FieldManager({
        root: this.applySchema,
        apiVersion: this.apiVersion,
        subresource,
        resetFields: this.resetFields[subresource] ?? [],
        clock: this.clock,
        recordTimes: subresource !== 'scale',
        convertsFrom: this.managedFieldsConvertFrom,
      });
      this.fieldManagers.set(subresource, fm);
    }
    return fm;
  }

  /** Whether apiVersion is another version of this kind in its group that the schema registry describes. */
  private sameKindOtherVersion(apiVersion: string): boolean {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    if (group !== this.type.group) return false;
    return definitionFor(group, apiVersion.slice(slash + 1), this.type.kind) !== undefined;
  }

  /** Records a non-apply write in next.metadata.managedFields (live null: a create). */
  private trackUpdate(live: KubeObject | null, next: KubeObject, subresource: string, manager: string | undefined): void {
    const fm = this.fieldManager(subresource);
    if (fm === undefined) return;
    if (this.strategy.tracksManagedFields === false) {
      delete next.metadata.managedFields;
      return;
    }
    try {
      fm.update(live, next, manager ?? '');
    } catch {
      // As upstream's UpdateNoErrors: a failure to track never fails the write; the entries go.
      delete next.metadata.managedFields;
    }
  }

  // ---- reads ---------------------------------------------------------------

  async get(namespace: string, name: string, options: { resourceVersion?: string }): Promise<KubeObject> {
    const obj = await this.storage.get(this.ns(namespace), name, options);
    return this.withTypeMeta(obj);
  }

  getCached(namespace: string, name: string): Readonly<KubeObject> | undefined {
    return this.storage.getCached?.(this.ns(namespace), name);
  }

  listCached(namespace: string): Readonly<KubeObject>[] | undefined {
    return this.storage.listCached?.(this.ns(namespace));
  }

  async list(namespace: string, options: ListOptions): Promise<KubeList> {
    const { predicate, everything } = this.predicate(options);
    const res = await this.storage.list(this.ns(namespace), {
      ...pick(options),
      ...(predicate ? { predicate } : {}),
      predicateIsEverything: everything,
    });
    // Unstructured lists always carry continue (empty on the last page), as upstream encodes them.
    const metadata: KubeList['metadata'] = this.unstructured ? { continue: res.continue ?? '', resourceVersion: res.resourceVersion } : { resourceVersion: res.resourceVersion };
    if (res.continue !== undefined) metadata.continue = res.continue;
    if (res.remainingItemCount !== undefined) metadata.remainingItemCount = res.remainingItemCount;
    // Typed lists carry no kind/apiVersion on their items, as upstream encodes them; unstructured ones do.
    const items = res.items.map((o) => {
      if (this.unstructured) return this.withTypeMeta(o);
      const { kind: _k, apiVersion: _a, ...rest } = o;
      return rest as KubeObject;
    });
    return { apiVersion: this.apiVersion, kind: this.type.listKind, metadata, items };
  }

  /**
   * A watch: the store's events with this kind's TypeMeta. With
   * allowWatchBookmarks, a BOOKMARK carrying the newest resourceVersion seen
   * goes out every bookmarkIntervalMs, after the initial events of a streaming
   * list (annotated k8s.io/initial-events-end), and when timeoutSeconds ends
   * the watch cleanly. An event the storage shares between watchers maps to one
   * shared WatchEvent (so the HTTP layer encodes it once).
   */
  async watch(namespace: string, options: WatchOptions, sink: WatchSink): Promise<Watcher> {
    const { predicate } = this.predicate(options);
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    let ticker: NodeJS.Timeout | undefined;
    let lastRV = options.resourceVersion ?? '';
    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      handle?.stop();
      sink.done();
    };
    const bookmarks = options.allowWatchBookmarks === true;
    const bookmark = (rv: string, initialEnd: boolean): void => {
      // As upstream encodes an empty object of the kind: creationTimestamp is null, not absent.
      const metadata = { resourceVersion: rv, creationTimestamp: null } as unknown as KubeObject['metadata'];
      if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
      sink.event({ type: 'BOOKMARK', object: { kind: this.type.kind, apiVersion: this.apiVersion, metadata } });
    };
    let handle: { stop(): void } | undefined;
    const storeOptions: Parameters<ObjectStore['watch']>[1] = {};
    if (options.resourceVersion !== undefined) storeOptions.resourceVersion = options.resourceVersion;
    if (predicate) storeOptions.predicate = predicate;
    if (options.sendInitialEvents !== undefined) storeOptions.sendInitialEvents = options.sendInitialEvents;
    handle = await this.storage.watch(this.ns(namespace), storeOptions, {
      onEvent: (e) => {
        if (finished) return;
        lastRV = e.object.metadata.resourceVersion ?? lastRV;
        sink.event(this.sharedWatchEvent(e));
      },
      // Batches pass through when the sink takes them (the HTTP stream does).
      ...(sink.events === undefined
        ? {}
        : {
            onEvents: (events: readonly StoreWatchEvent[]) => {
              if (finished || events.length === 0) return;
              lastRV = events[events.length - 1]!.object.metadata.resourceVersion ?? lastRV;
              sink.events!(this.sharedWatchEvents(events));
            },
          }),
      onInitialEventsEnd: (rv) => {
        lastRV = rv;
        if (!finished && options.sendInitialEvents === true && bookmarks) bookmark(rv, true);
      },
      onProgress: (rv) => {
        lastRV = rv;
      },
      onError: (err) => {
        if (finished) return;
        sink.event({ type: 'ERROR', object: err.status });
        finish();
      },
      onClose: finish,
    });
    if (finished) handle.stop();
    if (bookmarks && !finished) {
      ticker = setInterval(() => {
        if (!finished && lastRV !== '' && lastRV !== '0') bookmark(lastRV, false);
      }, this.bookmarkIntervalMs);
      ticker.unref?.();
    }
    if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0 && !finished) {
      timer = setTimeout(() => {
        // A clean end tells a bookmarking client where to resume.
        if (!finished && bookmarks && lastRV !== '' && lastRV !== '0') bookmark(lastRV, false);
        finish();
      }, options.timeoutSeconds * 1000);
      timer.unref?.();
    }
    return { stop: finish };
  }

  /** The WatchEvents for a batch of store events; one array per shared batch (every watcher asks in a row). */
  private sharedWatchEvents(events: readonly StoreWatchEvent[]): readonly WatchEvent[] {
    if (this.lastSharedBatch?.[0] === events) return this.lastSharedBatch[1];
    const out = events.map((e) => this.sharedWatchEvent(e));
    this.lastSharedBatch = [events, out];
    return out;
  }

  /** The WatchEvent for a store event; one object per shared store event. */
  private sharedWatchEvent(e: StoreWatchEvent): WatchEvent {
    // Every watcher asks for the same event in a row: check the last one first.
    if (this.lastShared?.[0] === e) return this.lastShared[1];
    let out = this.sharedEvents.get(e);
    if (out === undefined) {
      out = { type: e.type, object: this.withTypeMeta(e.object) };
      this.sharedEvents.set(e, out);
    }
    this.lastShared = [e, out];
    return out;
  }

  // ---- create --------------------------------------------------------------

  async create(namespace: string, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    // The object is ours (RESTStore.create): the handler decoded it for this request alone.
    obj.metadata ??= {};
    this.checkTypeMeta(obj);
    this.ensureNamespace(obj, namespace);
    if (obj.metadata.resourceVersion !== undefined && obj.metadata.resourceVersion !== '') {
      throw internalError(new Error('resourceVersion should not be set on objects to be created'));
    }
    delete obj.metadata.resourceVersion;
    this.pruneBody(obj, options, 'decode');
    this.strategy.defaults?.(obj);
    this.fillZeroValues(obj);
    await options.pause?.();
    const meta = obj.metadata;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    meta.uid = this.newUid();
    meta.creationTimestamp = formatTimestamp(this.clock());
    const generated = (meta.name === undefined || meta.name === '') && (meta.generateName ?? '') !== '';
    if (generated) meta.name = generateName(meta.generateName!);
    this.trackUpdate(null, obj, '', options.fieldManager);
    this.strategy.prepareForCreate?.(obj, options.user);
    managedFieldsLast(obj);
    await options.pause?.();

    await this.admit('CREATE', obj, undefined, '', options);
    this.validateCreate(obj);
    await options.pause?.();
    await this.validateAdmission('CREATE', obj, undefined, '', options);
    this.fillZeroValues(obj, true);
    await options.pause?.();

    const ns = this.ns(meta.namespace ?? '');
    for (let attempt = 1; ; attempt++) {
      if (options.dryRun === true) {
        // Existence still answers AlreadyExists, as the real write would.
        const exists = await this.exists(ns, meta.name!);
        if (exists) throw await this.whileDeleting(ns, meta.name!, this.alreadyExists(meta.name!));
        return obj;
      }
      try {
        const created = await this.storage.create(ns, meta.name!, obj, this.ttl());
        return this.withTypeMeta(created);
      } catch (err) {
        if (generated && isAlreadyExists(err) && attempt < GENERATE_NAME_ATTEMPTS) {
          meta.name = generateName(meta.generateName!);
          this.strategy.prepareForCreate?.(obj, options.user);
          continue;
        }
        if (isAlreadyExists(err)) throw await this.whileDeleting(ns, meta.name!, err as StatusError);
        throw err;
      }
    }
  }

  // ---- update and patch ----------------------------------------------------

  async update(
    namespace: string,
    name: string,
    body: KubeObject,
    options: WriteOptions & { subresource?: string },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const subresource = options.subresource ?? '';
    this.checkSubresource(subresource);
    // The body is ours (RESTStore.update); each attempt below works on a copy, since a conflict retries.
    body.metadata ??= {};
    this.checkTypeMeta(body);
    this.checkNameAndNamespace(body, namespace, name);
    this.pruneBody(body, options, 'decode');
    const ns = this.ns(namespace);
    const wantedRV = body.metadata.resourceVersion ?? '';
    const dryRun = options.dryRun === true;
    let old = null as KubeObject | null;

    const res = await this.storage.guaranteedUpdate(
      ns,
      name,
      async (current) => {
        old = current;
        const next = deepCopy(body);
        if (current === null) {
          if (subresource !== '' || !this.strategy.allowCreateOnUpdate || wantedRV !== '') throw this.notFound(name);
          return this.prepareCreateOnUpdate(next, options, options.fieldManager);
        }
        if (wantedRV === '') {
          if (!this.strategy.allowUnconditionalUpdate) {
            // Upstream names the resource here (qualifiedKindFromObject falls back to it) and
            // prints the uint64 resourceVersion as Go's %#v does.
            throw invalid(this.strategy.invalidGroup ?? this.gr.group, this.type.resource, name, [
              fieldErrors.invalid('metadata.resourceVersion', new GoValue('0x0'), 'must be specified for an update'),
            ]);
          }
        } else if (wantedRV !== current.metadata.resourceVersion) {
          throw staleResourceVersion(this.gr, name);
        }
        return this.prepareUpdate(next, current, subresource, options, { manager: options.fieldManager, warnings: options.warnings });
      },
      { ...this.ttl(), dryRun },
    );
    const wrote = res.object;
    if (!res.created && old !== null && !dryRun) {
      const deleted = await this.deleteIfFinalized(ns, name, wrote, old);
      if (deleted) return { object: this.withTypeMeta(deleted), created: false };
    }
    return { object: this.withTypeMeta(wrote), created: res.created };
  }

  async patch(
    namespace: string,
    name: string,
    patch: (current: KubeObject) => KubeObject,
    // trackAs (a custom resource's /scale write, on the main resource), by the stored object: 'none'
    // keeps its managedFields as they are; 'scale' records the write as the scale subresource's.
    options: WriteOptions & { subresource?: string; trackAs?: (current: KubeObject) => 'none' | 'scale' },
  ): Promise<KubeObject> {
    const subresource = options.subresource ?? '';
    this.checkSubresource(subresource);
    const ns = this.ns(namespace);
    const dryRun = options.dryRun === true;
    let old = null as KubeObject | null;
    const res = await this.storage.guaranteedUpdate(
      ns,
      name,
      async (current) => {
        if (current === null) throw this.notFound(name);
        old = current;
        const next = patch(this.withTypeMeta(deepCopy(current)));
        next.metadata ??= {};
        this.checkTypeMeta(next);
        this.checkNameAndNamespace(next, namespace, name);
        this.pruneBody(next, options, 'patch');
        const pinned = next.metadata.resourceVersion ?? '';
        // A patch that sets a resourceVersion pins it: no silent retry past it.
        if (pinned !== '' && pinned !== current.metadata.resourceVersion) throw staleResourceVersion(this.gr, name);
        let fields: { manager: string | undefined; tracked?: boolean; trackedEntries?: ManagedFieldsEntry[] | undefined; warnings?: string[] | undefined } = {
          manager: options.fieldManager,
          warnings: options.warnings,
        };
        const trackAs = options.trackAs?.(current);
        if (trackAs === 'none') fields = { ...fields, tracked: true, trackedEntries: current.metadata.managedFields };
        else if (trackAs === 'scale') {
          this.trackUpdate(current, next, 'scale', options.fieldManager);
          fields = { ...fields, tracked: true, trackedEntries: next.metadata.managedFields };
        }
        return this.prepareUpdate(next, current, subresource, options, fields);
      },
      { ...this.ttl(), dryRun },
    );
    if (old !== null && !dryRun) {
      const deleted = await this.deleteIfFinalized(ns, name, res.object, old);
      if (deleted) return this.withTypeMeta(deleted);
    }
    return this.withTypeMeta(res.object);
  }

  /**
   * Server-side apply (PATCH application/apply-patch+yaml): merges `config`
   * into the stored object by schema, as `options.fieldManager`, creating it
   * when missing (main resource only). A `metadata.resourceVersion` in the
   * configuration is a precondition. Conflicts with other managers are a 409
   * unless `force`.
   */
  async apply(namespace: string, name: string, config: Record<string, unknown>, options: ApplyOptions): Promise<{ object: KubeObject; created: boolean }> {
    const subresource = options.subresource ?? '';
    this.checkSubresource(subresource);
    const fm = this.fieldManager(subresource);
    if (fm === undefined) throw new StatusError(415, 'UnsupportedMediaType', 'apply is not supported for this resource');
    const meta = (config['metadata'] ?? {}) as KubeObject['metadata'];
    if (typeof meta !== 'object' || meta === null) throw badRequest('metadata must be an object');
    if (meta.managedFields !== undefined && meta.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
    const objName = meta.name ?? '';
    if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    if (this.strategy.namespaced) {
      const objNs = meta.namespace ?? '';
      if (objNs !== '' && objNs !== namespace) {
        throw badRequest(`the namespace of the object (${objNs}) does not match the namespace on the request (${namespace})`);
      }
    }
    const manager = options.fieldManager ?? '';
    const force = options.force === true;
    const wantedRV = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
    const ns = this.ns(namespace);
    const dryRun = options.dryRun === true;
    let old = null as KubeObject | null;
    const run = (live: KubeObject | null): { object: KubeObject; changed: boolean } => {
      try {
        const out = fm.apply(live, config, manager, force);
        options.afterMerge?.();
        return out;
      } catch (err) {
        if (err instanceof ConflictsError) {
          // Through /scale, managers and paths are seen as the Scale's (autoscaling/v1 spec.replicas), as upstream's scale handler shows them.
          const conflicts =
            subresource !== 'scale'
              ? err.conflicts
              : err.conflicts.map((c) => ({
                  manager: managerKey({ ...parseManagerKey(c.manager), apiVersion: 'autoscaling/v1' }),
                  path: samePath(c.path, this.scaleReplicasPath().map(fieldElement)) ? SCALE_REPLICAS_ELEMENTS : c.path,
                }));
          throw conflictsStatusError(conflicts);
        }
        if (err instanceof ApplySchemaError) {
          throw new StatusError(500, '', `failed to create typed patch object (${meta.namespace ?? ''}/${name}; ${this.gvkString()}): ${err.message}`);
        }
        throw err;
      }
    };
    const res = await this.storage.guaranteedUpdate(
      ns,
      name,
      async (current) => {
        old = current;
        if (current === null) {
          if (subresource !== '') throw this.notFound(name);
          if (wantedRV !== '') throw staleResourceVersion(this.gr, name);
          const { object } = run(null);
          object.metadata ??= {};
          this.checkTypeMeta(object);
          this.ensureNamespace(object, namespace);
          object.metadata.name = name;
          this.pruneBody(object, options, 'decode');
          return this.prepareCreateOnUpdate(object, options, manager, true);
        }
        if (wantedRV !== '' && wantedRV !== current.metadata.resourceVersion) throw staleResourceVersion(this.gr, name);
        const live = this.withTypeMeta(deepCopy(current));
        const { object } = run(live);
        object.metadata ??= {};
        this.checkTypeMeta(object);
        this.checkNameAndNamespace(object, namespace, name);
        this.pruneBody(object, options, 'decode');
        object.metadata.resourceVersion = current.metadata.resourceVersion;
        return this.prepareUpdate(object, current, subresource, options, {
          manager,
          warnings: options.warnings,
          tracked: true,
          trackedEntries: object.metadata.managedFields,
        });
      },
      { ...this.ttl(), dryRun },
    );
    if (!res.created && old !== null && !dryRun) {
      const deleted = await this.deleteIfFinalized(ns, name, res.object, old);
      if (deleted) return { object: this.withTypeMeta(deleted), created: false };
    }
    return { object: this.withTypeMeta(res.object), created: res.created };
  }

  // ---- the scale subresource ----------------------------------------------

  /** GET …/scale: the object's replicas as an autoscaling/v1 Scale. */
  async getScale(namespace: string, name: string): Promise<KubeObject> {
    this.checkSubresource('scale');
    return this.toScale(await this.get(namespace, name, {}));
  }

  /**
   * PUT/PATCH …/scale: `change` turns the current Scale into the wanted one
   * (the request body for PUT); its spec.replicas is written to the object
   * through the main strategy, as an Update entry with subresource "scale".
   */
  async updateScale(
    namespace: string,
    name: string,
    change: (current: KubeObject) => KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject> {
    this.checkSubresource('scale');
    const ns = this.ns(namespace);
    const dryRun = options.dryRun === true;
    const res = await this.storage.guaranteedUpdate(
      ns,
      name,
      async (current) => {
        if (current === null) throw this.notFound(name);
        const scale = change(this.toScale(this.withTypeMeta(current)));
        this.validateScale(scale, name, namespace);
        const wantedRV = scale.metadata?.resourceVersion ?? '';
        if (wantedRV !== '' && wantedRV !== current.metadata.resourceVersion) throw staleResourceVersion(this.gr, name);
        const next = this.withTypeMeta(deepCopy(current));
        (next['spec'] ??= {}) as Record<string, unknown>;
        (next['spec'] as Record<string, unknown>)['replicas'] = scaleReplicas(scale);
        this.trackUpdate(current, next, 'scale', options.fieldManager);
        return this.prepareUpdate(next, current, 'scale', options, {
          manager: options.fieldManager,
          warnings: options.warnings,
          tracked: true,
          trackedEntries: next.metadata.managedFields,
        });
      },
      { ...this.ttl(), dryRun },
    );
    return this.toScale(this.withTypeMeta(res.object));
  }

  /**
   * Apply of an autoscaling/v1 Scale: its spec.replicas applied to the object
   * by `fieldManager` at the kind's replicas path, as an Apply entry with
   * subresource "scale" (upstream's ScaleHandler.ToParent). Only the replicas
   * (and the name, namespace and resourceVersion) reach the object: the rest
   * of a Scale, its labels say, has nowhere to go.
   */
  async applyScale(namespace: string, name: string, config: Record<string, unknown>, options: ApplyOptions): Promise<KubeObject> {
    this.checkSubresource('scale');
    const meta = config['metadata'];
    const metadata: Record<string, unknown> = {};
    if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
      for (const k of ['name', 'namespace', 'resourceVersion']) if (k in meta) metadata[k] = (meta as Record<string, unknown>)[k];
    } else if (meta !== undefined && meta !== null) {
      metadata['name'] = meta;
    }
    const parent: Record<string, unknown> = { apiVersion: this.apiVersion, kind: this.type.kind, metadata };
    const spec = config['spec'] as Record<string, unknown> | undefined;
    if (spec !== undefined && spec !== null && typeof spec === 'object' && 'replicas' in spec) {
      this.checkScaleReplicas(spec['replicas'], name);
      setPath(parent, this.scaleReplicasPath(), spec['replicas']);
    }
    const { object } = await this.apply(namespace, name, parent, { ...options, subresource: 'scale' });
    return this.scaleView(object);
  }

  /** Where the kind keeps the replicas a Scale shows (spec.replicas for built-in kinds). */
  protected scaleReplicasPath(): readonly string[] {
    return BUILTIN_REPLICAS_PATH;
  }

  /** Whether the kind serves /scale. */
  protected servesScale(): boolean {
    return this.strategy.scale !== undefined;
  }

  /** The Scale an object shows on /scale. */
  protected scaleView(obj: KubeObject): KubeObject {
    return this.toScale(this.withTypeMeta(obj));
  }

  /** A Scale apply's replicas, checked before the merge (a built-in kind's validation words its own error on its field). */
  protected checkScaleReplicas(_replicas: unknown, _name: string): void {}

  private toScale(obj: KubeObject): KubeObject {
    const m = obj.metadata;
    const metadata: KubeObject['metadata'] = {};
    for (const key of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
      if (m[key] !== undefined) (metadata as Record<string, unknown>)[key] = m[key];
    }
    const replicas = ((obj['spec'] ?? {}) as { replicas?: number }).replicas ?? 0;
    const status: Record<string, unknown> = { replicas: ((obj['status'] ?? {}) as { replicas?: number }).replicas ?? 0 };
    const selector = this.strategy.scale!.selector(obj);
    if (selector !== '') status['selector'] = selector;
    const spec: Record<string, unknown> = {};
    if (replicas !== 0) spec['replicas'] = replicas;
    return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec, status };
  }

  private validateScale(scale: KubeObject, name: string, namespace: string): void {
    const objName = scale.metadata?.name ?? '';
    if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    const objNs = scale.metadata?.namespace ?? '';
    if (this.strategy.namespaced && objNs !== '' && objNs !== namespace) {
      throw badRequest(`the namespace of the object (${objNs}) does not match the namespace on the request (${namespace})`);
    }
    const replicas = scaleReplicas(scale);
    if (replicas < 0) {
      throw invalid('autoscaling', 'Scale', name, [fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
    }
  }

  private gvkString(): string {
    return `${this.type.group === '' ? '' : this.type.group}/${this.type.version}, Kind=${this.type.kind}`;
  }

  private async prepareCreateOnUpdate(obj: KubeObject, call: AdmissionCall, manager: string | undefined, tracked = false): Promise<KubeObject> {
    this.strategy.defaults?.(obj);
    this.fillZeroValues(obj);
    const meta = obj.metadata;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    meta.uid = this.newUid();
    meta.creationTimestamp = formatTimestamp(this.clock());
    if (!tracked) this.trackUpdate(null, obj, '', manager);
    this.strategy.prepareForCreate?.(obj);
    managedFieldsLast(obj);
    await this.admit('CREATE', obj, undefined, '', call);
    this.validateCreate(obj);
    await this.validateAdmission('CREATE', obj, undefined, '', call);
    this.fillZeroValues(obj, true);
    return obj;
  }

  /** rest.BeforeUpdate: system fields from the stored object, strategy, admission, validation. */
  private async prepareUpdate(
    obj: KubeObject,
    old: KubeObject,
    subresource: string,
    call: AdmissionCall,
    fields: { manager: string | undefined; tracked?: boolean; trackedEntries?: ManagedFieldsEntry[] | undefined; warnings?: string[] | undefined },
  ): Promise<KubeObject> {
    const meta = obj.metadata;
    const oldMeta = old.metadata;
    // An unconditional write (or a patch that dropped it) acts on the stored version.
    if (meta.resourceVersion === undefined || meta.resourceVersion === '') meta.resourceVersion = oldMeta.resourceVersion;
    // Defaults apply to every write, subresources too (upstream defaults on decode).
    this.strategy.defaults?.(obj);
    this.fillZeroValues(obj);
    meta.generation = oldMeta.generation;
    if (meta.generation === undefined) delete meta.generation;
    // Ownership follows what the client sent, before the strategy resets what
    // this (sub)resource may not change (upstream's order: a patch of a
    // namespace's spec.finalizers is recorded though only /finalize changes them).
    let entries = fields.tracked === true ? (fields.trackedEntries ?? obj.metadata.managedFields) : undefined;
    if (fields.tracked !== true && subresource === '') {
      this.trackUpdate(old, obj, subresource, fields.manager);
      entries = obj.metadata.managedFields;
    } else if (fields.tracked !== true) {
      // Upstream decodes (and so defaults) every body, a subresource's too: compare the defaulted body.
      const view = deepCopy(obj);
      this.strategy.defaults?.(view);
      this.trackUpdate(old, view, subresource, fields.manager);
      entries = view.metadata.managedFields;
    }
    if (subresource === '') this.strategy.prepareForUpdate?.(obj, old);
    else if (subresource !== 'scale') this.strategy.subresources![subresource]!.prepareForUpdate(obj, old);
    else this.strategy.prepareForUpdate?.(obj, old);
    // A subresource's strategy takes the stored metadata (managedFields included): put the new entries back.
    delete obj.metadata.managedFields;
    if (entries !== undefined) obj.metadata.managedFields = entries;
    if (meta.uid === undefined || meta.uid === '') meta.uid = oldMeta.uid;
    if (oldMeta.creationTimestamp !== undefined) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp !== undefined) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    delete meta.selfLink;
    obj.apiVersion = this.apiVersion;
    obj.kind = this.type.kind;
    managedFieldsLast(obj);

    await this.admit('UPDATE', obj, old, subresource, call);
    const errors: FieldError[] = validateObjectMetaUpdate(meta, oldMeta, 'metadata');
    if (oldMeta.deletionTimestamp !== undefined) {
      // Upstream runs the generic ObjectMeta update checks twice (the registry's
      // common ones, then the kind's own): a new finalizer on an object being
      // deleted is reported twice.
      errors.push(...errors.filter((e) => e.field === 'metadata.finalizers' && e.type === 'Forbidden'));
    }
    errors.push(...this.kubeFinalizerNames(obj));
    const w = fields.warnings;
    if (subresource === '') errors.push(...(this.strategy.validateUpdate?.(obj, old, w) ?? []));
    else if (subresource === 'scale') errors.push(...(this.strategy.validateUpdate?.(obj, old, w) ?? []));
    else errors.push(...(this.strategy.subresources![subresource]!.validateUpdate?.(obj, old, w) ?? []));
    if (errors.length > 0) throw invalid(this.strategy.invalidGroup ?? this.type.group, this.type.kind, meta.name ?? '', errors);
    await this.validateAdmission('UPDATE', obj, old, subresource, call);
    this.fillZeroValues(obj, true);
    return obj;
  }

  /**
   * After a write: an object being deleted whose last finalizer just went
   * away is deleted now (guarded by the version just written).
   */
  private async deleteIfFinalized(ns: string, name: string, wrote: KubeObject, old: KubeObject): Promise<KubeObject | null> {
    if (wrote.metadata.deletionTimestamp === undefined) return null;
    if (this.hasFinalizers(wrote)) return null;
    const pendingGrace = (wrote.metadata.deletionGracePeriodSeconds ?? 0) > 0;
    if (pendingGrace) return null;
    if (!this.hasFinalizers(old)) return null;
    const rv = wrote.metadata.resourceVersion;
    try {
      return await this.storage.delete(ns, name, (current) => {
        if (current.metadata.resourceVersion !== rv) throw staleResourceVersion(this.gr, name);
      });
    } catch {
      // Someone else changed or deleted it first; the update itself succeeded.
      return null;
    }
  }

  // ---- delete --------------------------------------------------------------

  async delete(namespace: string, name: string, options: DeleteOptions, inCollection = false): Promise<{ result: KubeObject | Status; gone: boolean }> {
    // A kind's REST may refuse to delete some names (system priority classes); upstream's
    // deletecollection goes around that REST, so it does here too.
    if (!inCollection) {
      const refused = this.strategy.refuseDelete?.(name);
      if (refused !== undefined) throw refused;
    }
    const ns = this.ns(namespace);
    const dryRun = options.dryRun === true;
    for (let attempt = 0; ; attempt++) {
      const current = await this.storage.get(ns, name);
      this.checkPreconditions(current, options);
      const meta = current.metadata;

      // Already being deleted and held (a Terminating namespace): nothing changes, the answer is the object.
      if (meta.deletionTimestamp !== undefined && this.strategy.holdsDeletion?.(current) === true) {
        return { result: this.withTypeMeta(current), gone: false };
      }
      const grace = this.gracePeriod(current, options);
      // The GC finalizers this DELETE asks for (orphan / foregroundDeletion), or null to keep them.
      const gcFinalizers = deletionFinalizers(current, options, this.strategy);
      const mustWait = grace > 0 || this.hasFinalizers(current, gcFinalizers ?? undefined);
      // A graceful kind deleted at once (an unscheduled pod, a grace period cut to
      // 0) is first written with its deletion fields, then deleted, as upstream's
      // two-phase delete does: watchers see MODIFIED then DELETED, and the answer
      // carries deletionTimestamp and deletionGracePeriodSeconds 0. An object
      // already marked with no grace left is deleted directly.
      const pending = meta.deletionGracePeriodSeconds;
      const twoPhase =
        !mustWait && this.strategy.gracePeriodSeconds !== undefined && (meta.deletionTimestamp === undefined || (pending ?? 0) > 0);
      if (mustWait || twoPhase) {
        const marked = this.markDeleting(deepCopy(current), grace);
        if (gcFinalizers !== null) setFinalizers(marked, gcFinalizers);
        await this.admit('DELETE', undefined, current, '', options);
        await this.validateAdmission('DELETE', undefined, current, '', options);
        if (dryRun) return twoPhase ? { result: this.deleteResult(marked), gone: true } : { result: this.withTypeMeta(marked), gone: false };
        try {
          const res = await this.storage.guaranteedUpdate(ns, name, async (latest) => {
            if (latest === null) throw this.notFound(name);
            if (latest.metadata.resourceVersion !== current.metadata.resourceVersion) throw new RetryDelete();
            return marked;
          });
          if (!twoPhase) return { result: this.withTypeMeta(res.object), gone: false };
          const rv = res.object.metadata.resourceVersion;
          const deleted = await this.storage.delete(ns, name, (latest) => {
            if (latest.metadata.resourceVersion !== rv) throw new RetryDelete();
          });
          return { result: this.deleteResult(deleted), gone: true };
        } catch (err) {
          if (err instanceof RetryDelete && attempt < 16) continue;
          throw err;
        }
      }

      await this.admit('DELETE', undefined, current, '', options);
      await this.validateAdmission('DELETE', undefined, current, '', options);
      if (dryRun) return { result: this.deleteResult(current), gone: true };
      try {
        const deleted = await this.storage.delete(ns, name, (latest) => {
          if (latest.metadata.resourceVersion !== current.metadata.resourceVersion) throw new RetryDelete();
        });
        return { result: this.deleteResult(deleted), gone: true };
      } catch (err) {
        if (err instanceof RetryDelete && attempt < 16) continue;
        throw err;
      }
    }
  }

  /**
   * Deletes what the list selects and answers, as upstream's store does, with
   * the list as it was read: the items as they were before their deletion
   * (without kind and apiVersion, as in any typed list), including those
   * someone else deleted first.
   */
  async deleteCollection(namespace: string, listOptions: ListOptions, options: DeleteOptions): Promise<KubeList> {
    const { continue: _c, limit: _l, ...rest } = listOptions;
    const list = await this.list(namespace, rest);
    // Deletes run DELETE_COLLECTION_WORKERS at a time (kube-apiserver's
    // --delete-collection-workers): each waits for its durable write, and
    // concurrent writes share one commit in the storage backends.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < list.items.length) {
        const item = list.items[next++]!;
        try {
          await this.delete(item.metadata.namespace ?? '', item.metadata.name ?? '', options, true);
        } catch (err) {
          if (err instanceof StatusError && err.reason === 'NotFound') continue;
          throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_COLLECTION_WORKERS, list.items.length) }, worker));
    return { apiVersion: this.apiVersion, kind: this.type.listKind, metadata: { resourceVersion: list.metadata.resourceVersion ?? '' }, items: list.items };
  }

  /**
   * DELETE preconditions, checked before anything else as rest.BeforeDelete
   * does: a uid or resourceVersion that is set (even to "") and differs is a
   * 409 on the stored kind ("ConfigMap", "Deployment.apps"), unless the
   * strategy words it itself (namespaces).
   */
  private checkPreconditions(current: KubeObject, options: DeleteOptions): void {
    const pre = options.preconditions;
    if (pre === undefined) return;
    const name = current.metadata.name ?? '';
    const fail = (field: 'UID' | 'ResourceVersion', wanted: string, actual: string): StatusError => {
      const own = this.strategy.deletePreconditionMessage?.(field, wanted, actual);
      if (own !== undefined) return conflict(this.gr, name, own);
      const stored = this.type.storageVersion ?? this.type;
      const consequence = field === 'UID' ? 'The object might have been deleted and then recreated' : 'The object might have been modified';
      return conflict(
        { group: stored.group, resource: stored.kind },
        name,
        `the ${field} in the precondition (${wanted}) does not match the ${field} in record (${actual}). ${consequence}`,
      );
    };
    const uid = current.metadata.uid ?? '';
    if (pre.uid !== undefined && pre.uid !== uid) throw fail('UID', pre.uid, uid);
    const rv = current.metadata.resourceVersion ?? '';
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv) throw fail('ResourceVersion', pre.resourceVersion, rv);
  }

  /** The grace period this DELETE waits (0 = no waiting), for kinds with graceful deletion. */
  private gracePeriod(current: KubeObject, options: DeleteOptions): number {
    if (this.strategy.gracePeriodSeconds === undefined) return 0;
    const period = this.strategy.gracePeriodSeconds(current, options.gracePeriodSeconds);
    const pending = current.metadata.deletionGracePeriodSeconds;
    // An object already waiting only shortens its wait.
    if (current.metadata.deletionTimestamp !== undefined && pending !== undefined && period >= pending) {
      return pending > 0 ? pending : 0;
    }
    return period;
  }

  private markDeleting(obj: KubeObject, grace: number): KubeObject {
    const meta = obj.metadata;
    const now = this.clock();
    const first = meta.deletionTimestamp === undefined;
    if (first && (meta.generation ?? 0) > 0 && this.strategy.bumpGenerationOnDelete !== false) meta.generation = meta.generation! + 1;
    if (grace > 0) {
      meta.deletionTimestamp = formatTimestamp(new Date(now.getTime() + grace * 1000));
      meta.deletionGracePeriodSeconds = grace;
    } else {
      if (first || Date.parse(meta.deletionTimestamp!) > now.getTime()) meta.deletionTimestamp = formatTimestamp(now);
      if (this.strategy.zeroGracePeriodOnFinalize !== false) meta.deletionGracePeriodSeconds = 0;
    }
    if (first) this.strategy.startDeletion?.(obj);
    return obj;
  }

  /** Whether `obj` is held once deleted; `finalizers` stands for its metadata.finalizers when given. */
  private hasFinalizers(obj: KubeObject, finalizers = obj.metadata.finalizers): boolean {
    return (finalizers?.length ?? 0) > 0 || this.strategy.holdsDeletion?.(obj) === true;
  }

  private deleteResult(obj: KubeObject): KubeObject | Status {
    if (this.strategy.returnDeletedObject) return this.withTypeMeta(obj);
    const details: NonNullable<Status['details']> = { name: obj.metadata.name ?? '' };
    if (this.gr.group !== '') details.group = this.gr.group;
    details.kind = this.gr.resource;
    if (obj.metadata.uid !== undefined) details.uid = obj.metadata.uid;
    // No code, as upstream: the handler answers 200 (or 202) itself.
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  }

  // ---- shared checks -------------------------------------------------------

  /**
   * Drops unknown fields; fieldValidation=Strict turns them into a 400, as the
   * strict decoder does, Warn (the default) into options.warnings.
   */
  private pruneBody(obj: KubeObject, options: WriteOptions, mode: 'decode' | 'patch'): void {
    if (this.prune === undefined) return;
    const dropped = this.prune(obj);
    if (dropped.length === 0) return;
    const directive = options.fieldValidation ?? 'Warn';
    const messages = (this.unstructured ? [...dropped].sort() : dropped).map((p) => `unknown field ${JSON.stringify(p)}`);
    if (directive === 'Strict') {
      const strict = `strict decoding error: ${messages.join(', ')}`;
      if (mode === 'patch' || !this.pruneIsDecoding) throw badRequest(strict);
      throw badRequest(`${this.type.kind} in version ${JSON.stringify(this.type.version)} cannot be handled as a ${this.type.kind}: ${strict}`);
    }
    if (directive === 'Warn') options.warnings?.push(...messages);
  }

  private ns(namespace: string): string {
    return this.strategy.namespaced ? namespace : '';
  }

  private ttl(): { ttlSeconds?: number } {
    return this.strategy.ttlSeconds !== undefined ? { ttlSeconds: this.strategy.ttlSeconds } : {};
  }

  private async exists(ns: string, name: string): Promise<boolean> {
    try {
      await this.storage.get(ns, name);
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'NotFound') return false;
      throw err;
    }
  }

  private notFound(name: string): StatusError {
    return notFound(this.gr, name);
  }

  private alreadyExists(name: string): StatusError {
    return new StatusError(409, 'AlreadyExists', `${this.gr.group === '' ? this.gr.resource : `${this.gr.resource}.${this.gr.group}`} ${JSON.stringify(name)} already exists`, {
      name,
      ...(this.gr.group !== '' ? { group: this.gr.group } : {}),
      kind: this.gr.resource,
    });
  }

  /** An AlreadyExists about an object being deleted says so first, as upstream's store does. */
  private async whileDeleting(ns: string, name: string, err: StatusError): Promise<StatusError> {
    let existing: KubeObject;
    try {
      existing = await this.storage.get(ns, name);
    } catch {
      return err;
    }
    if (existing.metadata.deletionTimestamp === undefined) return err;
    const status = err.status;
    return new StatusError(status.code ?? 409, 'AlreadyExists', `object is being deleted: ${status.message ?? ''}`, status.details);
  }

  private checkSubresource(subresource: string): void {
    if (subresource === '') return;
    if (subresource === 'scale' && this.servesScale()) return;
    if (this.strategy.subresources?.[subresource] === undefined) {
      throw notFound({ group: this.gr.group, resource: `${this.gr.resource}/${subresource}` }, '');
    }
  }

  /** A body of another kind or group/version is a 400, as the decoder answers. */
  private checkTypeMeta(obj: KubeObject): void {
    const apiVersion = obj.apiVersion ?? '';
    const kind = obj.kind ?? '';
    const otherServed = this.unstructured && kind === this.type.kind && this.otherServedApiVersions.includes(apiVersion);
    if (this.unstructured && !otherServed && (apiVersion !== this.apiVersion || kind !== this.type.kind)) {
      const errors: FieldError[] = [];
      if (kind !== this.type.kind) errors.push(fieldErrors.invalid('kind', kind, `must be ${this.type.kind}`));
      if (apiVersion !== this.apiVersion) errors.push(fieldErrors.invalid('apiVersion', apiVersion, `must be ${this.apiVersion}`));
      throw invalid(this.type.group, kind === '' ? this.type.kind : kind, obj.metadata?.name ?? '', errors);
    }
    if (apiVersion !== '' && apiVersion !== this.apiVersion) {
      throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${this.apiVersion})`);
    }
    if (kind !== '' && kind !== this.type.kind) {
      const version = apiVersion === '' ? this.type.version : apiVersion.split('/').pop();
      throw badRequest(
        `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${this.type.kind}: the kind in the data (${kind}) does not match the expected kind (${this.type.kind})`,
      );
    }
    obj.apiVersion = this.apiVersion;
    obj.kind = this.type.kind;
  }

  /** rest.EnsureObjectNamespaceMatchesRequestNamespace. */
  private ensureNamespace(obj: KubeObject, namespace: string): void {
    const meta = obj.metadata;
    if (!this.strategy.namespaced) {
      delete meta.namespace;
      return;
    }
    const objNs = meta.namespace ?? '';
    if (objNs === namespace) return;
    if (objNs === '') meta.namespace = namespace;
    else if (namespace === '') return;
    else throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  /** The update handler's checkName: the body must name the object on the URL. */
  private checkNameAndNamespace(obj: KubeObject, namespace: string, name: string): void {
    const meta = obj.metadata;
    const objName = meta.name ?? '';
    if (objName !== name) {
      throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    }
    if (this.strategy.namespaced) {
      const objNs = meta.namespace ?? '';
      if (objNs !== '' && objNs !== namespace) {
        // Upstream's words (rest.EnsureObjectNamespaceMatchesRequestNamespace), as on create.
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
  }

  /** Built-in kinds (those the schema registry describes) validate ObjectMeta as upstream's core validation does. */
  private kubeFinalizerNames(obj: KubeObject): FieldError[] {
    if (definitionFor(this.type.group, this.type.version, this.type.kind) === undefined) return [];
    // apiextensions-apiserver validates metadata with the generic checks only (its own
    // customresourcecleanup finalizer is not qualified), unlike kube-apiserver's built-ins.
    if (this.type.group === 'apiextensions.k8s.io') return [];
    return validateKubeFinalizerNames(obj.metadata.finalizers, 'metadata.finalizers');
  }

  private validateCreate(obj: KubeObject): void {
    const errors: FieldError[] = [
      ...validateObjectMeta(obj.metadata, this.strategy.namespaced, this.strategy.nameValidator, 'metadata'),
      ...this.kubeFinalizerNames(obj),
      ...(this.strategy.validate?.(obj) ?? []),
    ];
    if (errors.length > 0) throw invalid(this.strategy.invalidGroup ?? this.type.group, this.type.kind, obj.metadata.name ?? '', errors);
  }

  private attributes(
    operation: AdmissionOperation,
    obj: KubeObject | undefined,
    old: KubeObject | undefined,
    subresource: string,
    call: AdmissionCall,
  ): AdmissionAttributes {
    const meta = (obj ?? old)!.metadata;
    const a: AdmissionAttributes = {
      operation,
      kind: { group: this.type.group, version: this.type.version, kind: this.type.kind },
      resource: { group: this.type.group, version: this.type.version, resource: this.type.resource },
      subresource,
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      dryRun: call.dryRun === true,
    };
    if (obj !== undefined) a.object = obj;
    if (old !== undefined) a.oldObject = old;
    const request = call.request;
    if (request !== undefined) {
      a.request = request;
      const user = request.user;
      if (user !== undefined) {
        a.userInfo = { username: user.name, groups: [...user.groups] };
        if (user.uid !== undefined) a.userInfo.uid = user.uid;
        if (user.extra !== undefined) a.userInfo.extra = user.extra;
      }
    }
    const defaults = this.strategy.defaults;
    if (defaults !== undefined) a.applyDefaults = (o) => defaults.call(this.strategy, o);
    return a;
  }

  private async admit(op: AdmissionOperation, obj: KubeObject | undefined, old: KubeObject | undefined, sub: string, call: AdmissionCall): Promise<void> {
    if (this.admission.length === 0) return;
    await runMutatingAdmission(this.admission, this.attributes(op, obj, old, sub, call));
  }

  private async validateAdmission(op: AdmissionOperation, obj: KubeObject | undefined, old: KubeObject | undefined, sub: string, call: AdmissionCall): Promise<void> {
    if (this.admission.length === 0) return;
    await runValidatingAdmission(this.admission, this.attributes(op, obj, old, sub, call));
  }

  /**
   * What is stored looks as upstream's typed encode prints it (zero-values.ts).
   * Once after defaulting, so that strategies compare objects as upstream's
   * decoded structs compare (a body without `creationTimestamp: null` in its
   * pod template is no spec change), and once more before the write for what
   * the strategy added (a reset status), leaving out then the omitempty
   * scalars Go's encode leaves out.
   */
  private fillZeroValues(obj: KubeObject, last = false): void {
    fillZeroValues(this.type.group, this.type.version, this.type.kind, obj as unknown as Record<string, unknown>, { dropZeroScalars: last });
  }

  private withTypeMeta(obj: KubeObject): KubeObject {
    const { apiVersion: _a, kind: _k, ...rest } = obj;
    return { apiVersion: this.apiVersion, kind: this.type.kind, ...rest } as KubeObject;
  }

  /** Label and field selectors as one predicate; unknown field labels are a 400. */
  private predicate(options: ListOptions): { predicate?: Predicate; everything: boolean } {
    const labelText = options.labelSelector ?? '';
    const fieldText = options.fieldSelector ?? '';
    if (labelText === '' && fieldText === '') return { everything: true };
    const labels = labelText === '' ? null : parseLabelSelector(labelText);
    const fields = fieldText === '' ? null : parseFieldSelector(fieldText);
    const getters = this.strategy.fields ?? {};
    if (fields !== null) {
      // The field label conversion, term by term in sorted order: the first label refused is the error.
      const accepted = this.strategy.fieldLabels;
      for (const r of fields.requirements) {
        if (accepted === undefined) {
          if (!DEFAULT_FIELD_LABELS.includes(r.field)) throw unknownFieldSelectorError(r.field);
          continue;
        }
        const renamed = this.strategy.fieldLabelAliases?.[r.field];
        if (renamed !== undefined) r.field = renamed;
        else if (!accepted.includes(r.field)) throw unsupportedFieldError(r.field);
      }
    }
    const predicate: Predicate = (obj) => {
      if (labels !== null && !labels.matches(obj.metadata.labels ?? {})) return false;
      if (fields !== null) {
        const set: Record<string, string> = {
          'metadata.name': obj.metadata.name ?? '',
          'metadata.namespace': obj.metadata.namespace ?? '',
        };
        for (const [field, get] of Object.entries(getters)) set[field] = get(obj);
        if (!fields.matches(set)) return false;
      }
      return true;
    };
    return { predicate, everything: false };
  }
}

const BUILTIN_REPLICAS_PATH: readonly string[] = ['spec', 'replicas'];
/** A Scale's spec.replicas as a field path. */
const SCALE_REPLICAS_ELEMENTS = BUILTIN_REPLICAS_PATH.map(fieldElement);

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

/** Sets obj[path[0]][path[1]]… = value, making the objects on the way. */
function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = obj;
  for (const p of path.slice(0, -1)) {
    const next = node[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[p] = {};
    node = node[p] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function scaleReplicas(scale: KubeObject): number {
  const replicas = ((scale['spec'] ?? {}) as { replicas?: unknown }).replicas;
  return typeof replicas === 'number' ? replicas : 0;
}

function setFinalizers(obj: KubeObject, finalizers: string[]): void {
  if (finalizers.length > 0) obj.metadata.finalizers = finalizers;
  else delete obj.metadata.finalizers;
}

/** Thrown inside a delete attempt when the object changed under it: read again. */
class RetryDelete extends Error {}

function pick(options: ListOptions): { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string } {
  const out: { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string } = {};
  if (options.resourceVersion !== undefined) out.resourceVersion = options.resourceVersion;
  if (options.resourceVersionMatch !== undefined) out.resourceVersionMatch = options.resourceVersionMatch;
  if (options.limit !== undefined) out.limit = options.limit;
  if (options.continue !== undefined) out.continue = options.continue;
  return out;
}
