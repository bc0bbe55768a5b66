// CustomResourceServing: what the apiextensions-apiserver does in-process for
// every CRD, on every apiary server (several servers on one etcd each run it
// and converge through guarded status writes):
//
// - naming (upstream's NamingConditionController): accepts the requested
//   names unless another CRD of the group holds them, writing
//   status.acceptedNames and the NamesAccepted condition (PluralConflict,
//   KindConflict, … as upstream), Established=False "Installing" until
// - establishing (EstablishingController): Established=True
//   "InitialNamesAccepted";
// - serving (the crdHandler): while NamesAccepted or Established is true, one
//   GenericStore per served version, with the schema-driven strategy, over
//   one watch cache of /registry/<group>/<plural>, installed in the registry
//   (discovery and OpenAPI follow the registry's generation). A CRD change
//   rebuilds the stores (new schema for the next write); its deletion removes them.
//
// It watches the CRD store itself (in-process, like upstream's informer).

import type { Logger } from 'pino';
import type { KubeObject } from '../machinery/meta.js';
import { formatTimestamp, systemClock, type Clock } from '../machinery/names.js';
import { methodNotSupported, StatusError } from '../machinery/errors.js';
import type { Registry } from '../registry/index.js';
import { GenericStore, type GenericStoreOptions } from '../registry/generic-store.js';
import { customResourceApplySchema } from './apply-schema.js';
import type { RESTStore, WatchEvent, WriteOptions } from '../registry/rest.js';
import { ConvertingObjectStore } from '../registry/converting-store.js';
import { BackendObjectStore, type ObjectStore } from '../storage/object-store.js';
import { CachedObjectStore } from '../storage/cacher/cacher.js';
import { celCompiler, type ValidationRuleCompiler } from './cel.js';
import { customResourcePrinter, customResourceStrategy, customResourceType, schemaOf } from './custom-resource.js';
import { applyDefaults, pruneValue } from './schema/values.js';
import { CustomResourceTypeCheck } from './stored-type.js';
import { isObject, schemaHas } from './schema/structural.js';
import {
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceDefinitionVersion,
  type JSONSchemaProps,
  type CustomResourceDefinitionNames,
  conditionOf,
  isConditionTrue,
  setCondition,
  storageVersionOf,
} from './types.js';
import { compareKubeAwareVersions } from './versions.js';
import { ScalableStore } from './scale.js';
import { type ConversionWebhookCaller, type CustomResourceConverter, type NoneConverter, converterFor } from './conversion/converter.js';
import { AsyncConvertingObjectStore } from './conversion/store.js';
import { deepCopy } from '../machinery/deep-copy.js';

export interface CustomResourceServingOptions {
  registry: Registry;
  /** The CustomResourceDefinition store (read, watched and status-written). */
  crdStore: RESTStore;
  compiler?: ValidationRuleCompiler | undefined;
  clock?: Clock;
  logger?: Logger;
  /** Calls a CRD's conversion webhook (the server wires the admission webhook client); without it webhook conversions fail. */
  callConversionWebhook?: ConversionWebhookCaller | undefined;
}

interface Served {
  fingerprint: string;
  storageKey: string;
  storage: ObjectStore;
  release: () => void;
  /** What the storage takes as this CRD's objects (updated with the CRD). */
  typeCheck: CustomResourceTypeCheck;
}

export class CustomResourceServing {
  private readonly registry: Registry;
  private readonly crdStore: RESTStore;
  private readonly compiler: ValidationRuleCompiler;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly callConversionWebhook: ConversionWebhookCaller | undefined;
  private readonly crds = new Map<string, CustomResourceDefinition>();
  private readonly served = new Map<string, Served>();
  private readonly queue = new Set<string>();
  private working = false;
  private stopped = false;
  /** Failed syncs in a row, by CRD, and their retries' timers (as a controller's rate-limited requeue). */
  private readonly failures = new Map<string, number>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private watcher: { stop(): void } | undefined;
  private idleWaiters: (() => void)[] = [];
  /** The CRD being synced and since when (diagnostics: describe()). */
  private syncing: { name: string; since: number } | undefined;
  /** Watch events received (diagnostics). */
  private events = 0;

  constructor(options: CustomResourceServingOptions) {
    this.registry = options.registry;
    this.crdStore = options.crdStore;
    this.compiler = options.compiler ?? celCompiler;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger;
    this.callConversionWebhook = options.callConversionWebhook;
  }

  /** Lists the CRDs, serves the established ones, then follows changes. */
  async start(): Promise<void> {
    const list = await this.crdStore.list('', {});
    for (const item of list.items) this.crds.set(item.metadata.name ?? '', item as CustomResourceDefinition);
    for (const name of this.crds.keys()) this.enqueue(name);
    await this.idle();
    this.watch(list.metadata.resourceVersion ?? '');
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.stop();
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  /** For diagnostics: what the controller holds, serves and is doing. */
  describe(): Record<string, unknown> {
    return {
      watching: this.watcher !== undefined,
      events: this.events,
      crds: [...this.crds.entries()].map(([name, crd]) => `${name}@${crd.metadata.resourceVersion ?? ''}`),
      served: [...this.served.keys()],
      queued: [...this.queue],
      working: this.working,
      syncing: this.syncing === undefined ? undefined : { name: this.syncing.name, forMs: Math.round(performance.now() - this.syncing.since) },
      retrying: [...this.retries.keys()],
    };
  }

  /** Resolves when every queued CRD has been handled (tests, start-up). */
  idle(): Promise<void> {
    if (!this.working && this.queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private watch(resourceVersion: string): void {
    if (this.stopped) return;
    let lastRV = resourceVersion;
    const options = resourceVersion === '' ? {} : { resourceVersion };
    this.crdStore
      .watch('', options, {
        event: (e: WatchEvent) => {
          if (e.type === 'BOOKMARK') return;
          if (e.type === 'ERROR') return;
          this.events++;
          const crd = e.object as CustomResourceDefinition;
          const name = crd.metadata.name ?? '';
          lastRV = crd.metadata.resourceVersion ?? lastRV;
          if (e.type === 'DELETED') this.crds.delete(name);
          else this.crds.set(name, crd);
          this.enqueue(name);
          // A deleted CRD frees its names: the group's others may now be accepted.
          if (e.type === 'DELETED') for (const other of this.crds.values()) if (other.spec.group === crd.spec.group) this.enqueue(other.metadata.name ?? '');
        },
        done: () => {
          this.watcher = undefined;
          if (this.stopped) return;
          // The watch ended (expired or closed): list again and resume.
          setTimeout(() => void this.relist(lastRV), 100).unref();
        },
      })
      .then((w) => {
        this.watcher = w;
        if (this.stopped) w.stop();
      })
      .catch((err: unknown) => {
        this.logger?.warn({ err }, 'watching customresourcedefinitions failed');
        if (!this.stopped) setTimeout(() => void this.relist(''), 1000).unref();
      });
  }

  private async relist(_lastRV: string): Promise<void> {
    if (this.stopped) return;
    try {
      const list = await this.crdStore.list('', {});
      const names = new Set<string>();
      for (const item of list.items) {
        const name = item.metadata.name ?? '';
        names.add(name);
        this.crds.set(name, item as CustomResourceDefinition);
        this.enqueue(name);
      }
      for (const name of [...this.crds.keys()]) {
        if (!names.has(name)) {
          this.crds.delete(name);
          this.enqueue(name);
        }
      }
      this.watch(list.metadata.resourceVersion ?? '');
    } catch (err) {
      this.logger?.warn({ err }, 'listing customresourcedefinitions failed');
      setTimeout(() => void this.relist(''), 1000).unref();
    }
  }

  private enqueue(name: string): void {
    this.queue.add(name);
    if (!this.working) void this.work();
  }

  private async work(): Promise<void> {
    this.working = true;
    try {
      while (this.queue.size > 0 && !this.stopped) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          this.syncing = { name, since: performance.now() };
          await this.sync(name);
          this.failures.delete(name);
        } catch (err) {
          this.logger?.warn({ err, name }, 'customresourcedefinition sync failed');
          this.retryLater(name);
        }
      }
    } finally {
      this.syncing = undefined;
      this.working = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Syncs a CRD again after a failure (a status write that timed out, storage
   * away): no event may come to bring it back, and a CRD left unnamed is never
   * served. The delay doubles from 5 ms up to 5 s, as upstream's workqueues back off.
   */
  private retryLater(name: string): void {
    if (this.stopped || this.retries.has(name)) return;
    const failures = (this.failures.get(name) ?? 0) + 1;
    this.failures.set(name, failures);
    const timer = setTimeout(() => {
      this.retries.delete(name);
      if (!this.stopped) this.enqueue(name);
    }, Math.min(5 * 2 ** (failures - 1), 5000));
    timer.unref();
    this.retries.set(name, timer);
  }

  private async sync(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (crd === undefined) {
      this.unserve(name);
      return;
    }
    const next = this.withNamingStatus(crd);
    if (next !== undefined) {
      // Served before the status says so: a client that waits for Established (as the
      // differential runner and kubectl wait do) must find its resource routed at once.
      if (isConditionTrue(next, 'NamesAccepted') || isConditionTrue(next, 'Established')) this.serve(next);
      // The write's own event brings us back here.
      await this.writeStatus(next);
      return;
    }
    if (isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) this.serve(crd);
    else this.unserve(name);
  }

  /** The CRD with the status naming and establishing want, or undefined when it already has it. */
  private withNamingStatus(crd: CustomResourceDefinition): CustomResourceDefinition | undefined {
    const { names, namesAccepted, established } = this.namesAndConditions(crd);
    const updated = deepCopy(crd);
    const now = formatTimestamp(this.clock());
    updated.status ??= {};
    updated.status.acceptedNames = names;
    setCondition(updated, namesAccepted, now);
    setCondition(updated, established, now);
    // The establishing controller: accepted names make the CRD established.
    if (namesAccepted.status === 'True' && !isConditionTrue(updated, 'Established') && !isConditionTrue(updated, 'Terminating')) {
      setCondition(updated, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
    }
    if (JSON.stringify(updated.status) === JSON.stringify(crd.status)) return undefined;
    return updated;
  }

  private namesAndConditions(crd: CustomResourceDefinition): {
    names: CustomResourceDefinitionNames;
    namesAccepted: CustomResourceDefinitionCondition;
    established: CustomResourceDefinitionCondition;
  } {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const other of this.crds.values()) {
      if (other.spec.group !== crd.spec.group) continue;
      const accepted = other.status?.acceptedNames ?? {};
      for (const n of [accepted.plural, accepted.singular, ...(accepted.shortNames ?? [])]) if (n) resources.add(n);
      for (const n of [accepted.kind, accepted.listKind]) if (n) kinds.add(n);
    }
    const requested = crd.spec.names ?? {};
    const accepted = crd.status?.acceptedNames ?? {};
    const names: CustomResourceDefinitionNames = { ...accepted };
    const namesAccepted: CustomResourceDefinitionCondition = { type: 'NamesAccepted', status: 'Unknown' };
    const conflict = (reason: string, message: string): void => {
      namesAccepted.status = 'False';
      namesAccepted.reason = reason;
      namesAccepted.message = message;
    };
    const fresh = (want: string | undefined, have: string | undefined, used: Set<string>): string | undefined =>
      want === have || !used.has(want ?? '') ? undefined : `${JSON.stringify(want ?? '')} is already in use`;
    let err = fresh(requested.plural, accepted.plural, resources);
    if (err !== undefined) conflict('PluralConflict', err);
    else names.plural = requested.plural ?? '';
    err = fresh(requested.singular, accepted.singular, resources);
    if (err !== undefined) conflict('SingularConflict', err);
    else if (requested.singular !== undefined) names.singular = requested.singular;
    if (JSON.stringify(requested.shortNames ?? []) !== JSON.stringify(accepted.shortNames ?? [])) {
      const mine = new Set(accepted.shortNames ?? []);
      const errs = (requested.shortNames ?? []).filter((s) => !mine.has(s) && resources.has(s)).map((s) => `${JSON.stringify(s)} is already in use`);
      if (errs.length > 0) conflict('ShortNamesConflict', errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
      else if (requested.shortNames !== undefined) names.shortNames = requested.shortNames;
      else delete names.shortNames;
    }
    err = fresh(requested.kind, accepted.kind, kinds);
    if (err !== undefined) conflict('KindConflict', err);
    else names.kind = requested.kind ?? '';
    err = fresh(requested.listKind, accepted.listKind, kinds);
    if (err !== undefined) conflict('ListKindConflict', err);
    else if (requested.listKind !== undefined) names.listKind = requested.listKind;
    if (requested.categories !== undefined) names.categories = requested.categories;
    else delete names.categories;
    if (namesAccepted.status === 'Unknown') {
      namesAccepted.status = 'True';
      namesAccepted.reason = 'NoConflicts';
      namesAccepted.message = 'no conflicts found';
    }
    let established: CustomResourceDefinitionCondition = conditionOf(crd, 'Established') ?? {
      type: 'Established',
      status: 'False',
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    };
    if (established.status !== 'True' && namesAccepted.status === 'True') {
      established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
    }
    return { names: orderNames(names), namesAccepted, established: { ...established } };
  }

  private async writeStatus(crd: CustomResourceDefinition): Promise<void> {
    try {
      // Upstream's naming and establishing controllers write as "kube-apiserver" (their client's user agent).
      await this.crdStore.update('', crd.metadata.name ?? '', deepCopy(crd) as KubeObject, {
        subresource: 'status',
        fieldManager: 'kube-apiserver',
      });
    } catch (err) {
      // A newer version exists (another server wrote first, or a client did): its event brings us back.
      if (err instanceof StatusError && (err.reason === 'Conflict' || err.reason === 'NotFound')) return;
      throw err;
    }
  }

  // ---- serving -------------------------------------------------------------

  private serve(crd: CustomResourceDefinition): void {
    const name = crd.metadata.name ?? '';
    const fingerprint = JSON.stringify([crd.spec, crd.status?.acceptedNames, isConditionTrue(crd, 'Terminating')]);
    const current = this.served.get(name);
    if (current?.fingerprint === fingerprint) return;
    const group = crd.spec.group ?? '';
    const plural = crd.status?.acceptedNames?.plural || crd.spec.names?.plural || '';
    const namespaced = crd.spec.scope === 'Namespaced';
    const storageKey = `${group}/${plural}/${namespaced}`;
    let storage: ObjectStore;
    let release: () => void;
    let typeCheck: CustomResourceTypeCheck;
    if (current !== undefined && current.storageKey === storageKey) {
      storage = current.storage;
      release = current.release;
      typeCheck = current.typeCheck;
      typeCheck.update(crd);
    } else {
      typeCheck = new CustomResourceTypeCheck(crd);
      ({ storage, release } = this.openStorage(group, plural, namespaced, typeCheck));
    }
    const stores = this.buildStores(crd, storage);
    this.served.set(name, { fingerprint, storageKey, storage, release, typeCheck });
    this.registry.install(`crd:${name}`, stores, release);
    this.logger?.info({ name, versions: stores.map((s) => s.type.version) }, 'serving custom resources');
  }

  private unserve(name: string): void {
    if (!this.served.has(name)) return;
    this.served.delete(name);
    this.registry.uninstall(`crd:${name}`);
    this.logger?.info({ name }, 'stopped serving custom resources');
  }

  private openStorage(group: string, plural: string, namespaced: boolean, typeCheck: CustomResourceTypeCheck): { storage: ObjectStore; release: () => void } {
    const options = this.registry.options;
    const storageOptions: ConstructorParameters<typeof BackendObjectStore>[0] = {
      backend: options.backend,
      resource: { group, resource: plural },
      namespaced,
      keyResource: `${group}/${plural}`,
      decoders: { typeCheck: typeCheck.check },
    };
    if (options.prefix !== undefined) storageOptions.prefix = options.prefix;
    if (options.watchCache === false) return { storage: new BackendObjectStore(storageOptions), release: () => {} };
    const cached = new CachedObjectStore({ ...storageOptions, cache: options.watchCache ?? {} });
    cached.start().catch(() => cached.restartLater());
    return { storage: cached, release: () => cached.stop() };
  }

  private buildStores(crd: CustomResourceDefinition, storage: ObjectStore): RESTStore[] {
    const options = this.registry.options;
    const group = crd.spec.group ?? '';
    const terminating = isConditionTrue(crd, 'Terminating');
    const stores: RESTStore[] = [];
    const crdApiVersions = new Set((crd.spec.versions ?? []).map((v) => `${group}/${v.name ?? ''}`));
    const converter = converterFor(crd, { callWebhook: this.callConversionWebhook, ...(options.uid !== undefined ? { uid: options.uid } : {}) });
    for (const version of crd.spec.versions ?? []) {
      if (version.served !== true) continue;
      const type = customResourceType(crd, version);
      const schema = schemaOf(version);
      const rules = this.compiler(schema, 'openAPIV3Schema').rules;
      const versionStorage = this.versionStorage(crd, version, storage, converter);
      const storeOptions: GenericStoreOptions = {
        type,
        strategy: customResourceStrategy(crd, version, rules),
        storage: versionStorage,
        prune: (obj) => pruneValue(schema, obj as unknown as Record<string, unknown>),
        printer: customResourcePrinter(version),
        unstructured: true,
        otherServedApiVersions: (crd.spec.versions ?? []).filter((v) => v.served === true && v.name !== version.name).map((v) => `${group}/${v.name ?? ''}`),
        // Every write records managedFields and apply merges by the structural schema, as upstream.
        applySchema: customResourceApplySchema(schema),
        // Upstream's reset fields: status on the main resource when /status is served; spec on /status.
        resetFields: version.subresources?.status !== undefined ? { '': [['status']], status: [['spec']] } : {},
        // Entries of any of the CRD's versions keep their paths, whatever the conversion strategy (upstream's
        // converter knows every version listed, served or not); those of a version no longer listed go on the next write.
        managedFieldsConvertFrom: (apiVersion) => crdApiVersions.has(apiVersion),
      };
      if (version.deprecated === true) storeOptions.warning = version.deprecationWarning ?? defaultDeprecationWarning(crd, version.name ?? '');
      if (options.clock !== undefined) storeOptions.clock = options.clock;
      if (options.uid !== undefined) storeOptions.uid = options.uid;
      if (options.admission !== undefined) storeOptions.admission = options.admission;
      if (options.bookmarkIntervalMs !== undefined) storeOptions.bookmarkIntervalMs = options.bookmarkIntervalMs;
      const scale = version.subresources?.scale;
      if (terminating) stores.push(new TerminatingStore(storeOptions));
      else if (scale !== undefined) stores.push(new ScalableStore(storeOptions, scale));
      else stores.push(new GenericStore(storeOptions));
    }
    // Discovery lists a group's versions newest first (kube-aware order), the first being preferred, as upstream.
    return stores.sort((a, b) => compareKubeAwareVersions(b.type.version, a.type.version));
  }

  /**
   * The storage one served version sees: objects are stored at the storage version and served at
   * this one, converted by the CRD's converter (None: apiVersion rewritten, synchronously; Webhook:
   * the conversion webhook, pruned by the target version's schema after it as upstream's
   * schemaCoercingConverter does). Defaults apply on read too (upstream's storage decoder): a
   * default added to the schema shows on old objects.
   */
  private versionStorage(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion, storage: ObjectStore, converter: CustomResourceConverter): ObjectStore {
    const group = crd.spec.group ?? '';
    const storageVersion = storageVersionOf(crd) ?? '';
    const storageApiVersion = `${group}/${storageVersion}`;
    const apiVersion = `${group}/${version.name ?? ''}`;
    const schema = schemaOf(version);
    const defaults = schemaHas(schema, (n) => isObject(n['properties']) && Object.values(n['properties']).some((p) => isObject(p) && p['default'] !== undefined));
    const withDefaults = (o: KubeObject): KubeObject => {
      if (!defaults) return o;
      const copy = deepCopy(o);
      applyDefaults(schema, copy);
      return copy;
    };
    if (converter.strategy === 'None') {
      const none = converter as NoneConverter;
      const rewrite = apiVersion !== storageApiVersion;
      if (!rewrite && !defaults) return storage;
      return new ConvertingObjectStore(storage.resource, storage, {
        toStored: (o) => none.convertSync(o, storageApiVersion),
        fromStored: withDefaults,
      });
    }
    // Always wrapped: objects stored before the storage version changed are at another version.
    const storageSchema = schemaOf((crd.spec.versions ?? []).find((v) => v.name === storageVersion) ?? version);
    // The converter hands back a fresh object when it converted: pruning it in place is safe.
    const convert = async (o: KubeObject, to: string, toSchema: JSONSchemaProps): Promise<KubeObject> => {
      const out = await converter.convert(o, to);
      if (out !== o) pruneValue(toSchema, out as unknown as Record<string, unknown>);
      return out;
    };
    return new AsyncConvertingObjectStore(storage, {
      toStored: (o) => convert(o, storageApiVersion, storageSchema),
      fromStored: async (o) => withDefaults(await convert(o, apiVersion, schema)),
    }, { namespaced: crd.spec.scope === 'Namespaced' });
  }
}

/** A custom resource store while its CRD is being deleted: no creates (upstream answers 405). */
class TerminatingStore extends GenericStore {
  override async create(namespace: string, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const err = methodNotSupported({ group: this.type.group, resource: this.type.resource }, 'create');
    throw new StatusError(err.code, err.reason, 'create not allowed while custom resource definition is terminating', err.status.details);
  }
}

function defaultDeprecationWarning(crd: CustomResourceDefinition, deprecated: string): string {
  const group = crd.spec.group ?? '';
  const kind = crd.spec.names?.kind ?? '';
  let msg = `${group}/${deprecated} ${kind} is deprecated`;
  const newer = (crd.spec.versions ?? [])
    .filter((v) => v.served === true && v.deprecated !== true && compareKubeAwareVersions(deprecated, v.name ?? '') < 0)
    .map((v) => v.name ?? '')
    .sort((a, b) => compareKubeAwareVersions(b, a));
  if (newer.length > 0) msg += `; use ${group}/${newer[0]} ${kind}`;
  return msg;
}

/** acceptedNames in the field order of the v1 type (plural, singular, shortNames, kind, listKind, categories). */
function orderNames(n: CustomResourceDefinitionNames): CustomResourceDefinitionNames {
  const out: CustomResourceDefinitionNames = { plural: n.plural ?? '' };
  if (n.singular) out.singular = n.singular;
  if (n.shortNames !== undefined && n.shortNames.length > 0) out.shortNames = n.shortNames;
  out.kind = n.kind ?? '';
  if (n.listKind) out.listKind = n.listKind;
  if (n.categories !== undefined && n.categories.length > 0) out.categories = n.categories;
  return out;
}
