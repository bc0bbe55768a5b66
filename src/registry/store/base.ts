// The generic store's base: its options and fields, the field managers, and
// the checks every verb shares (type meta, names and namespaces, pruning,
// admission attributes, field-selector predicates). The verbs build on it,
// one file each, like upstream's rest/create.go, update.go, delete.go:
// reads.ts → create.ts → delete.ts → update.ts → scale.ts, and
// ../generic-store.ts closes the chain as GenericStore.
//
// Contract: nothing here writes. The checks throw StatusErrors with
// upstream's codes and messages; admission runs only through admit() and
// validateAdmission(), with attributes() built the same way for every verb.

import { runStepsPaused } from '../../machinery/steps.js';
import { omitKeys } from '../../machinery/omit-keys.js';
import type { KubeObject, GroupResource } from '../../machinery/meta.js';
import { apiVersionOf } from '../../machinery/meta.js';
import { StatusError, badRequest, invalid, notFound } from '../../machinery/errors.js';
import { type FieldError, fieldErrors } from '../../machinery/field-errors.js';
import { parseLabelSelector } from '../../machinery/labels.js';
import {
  DEFAULT_FIELD_LABELS,
  parseFieldSelector,
  unknownFieldSelectorError,
  unsupportedFieldError,
} from '../../machinery/fields.js';
import { validateKubeFinalizerNames, validateObjectMeta } from '../../machinery/validation.js';
import { fillZeroValues, zeroValuesWouldChange } from '../../api/schema/zero-values.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import { definitionFor } from '../../api/schema/index.js';
import { type Clock, newUid, systemClock } from '../../machinery/names.js';
import type { ObjectStore, Predicate, StoreWatchEvent, StoredValueEncoder } from '../../storage/object-store.js';
import {
  type AdmissionAttributes,
  type AdmissionOperation,
  type AdmissionPlugin,
  runMutatingAdmission,
  runValidatingAdmission,
} from '../admission.js';
import type { DeleteOptions, ListOptions, RESTStore, ResourceType, WatchEvent, WriteOptions } from '../rest.js';
import type { Strategy } from '../strategy.js';
import { entryApiVersions, FieldManager, type FieldManagerJob } from '../../machinery/apply/field-manager.js';
import { fieldElement } from '../../machinery/apply/path.js';
import type { TypeNode } from '../../machinery/apply/schema.js';
import type { Printer } from '../../api/tables/printer.js';

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
  /**
   * Runs once the configuration merged without conflicts, before anything is
   * written (the strict decode of the body, upstream checks it there), with
   * the merged object, which it may normalise in place (upstream converts it
   * to its typed object there).
   */
  afterMerge?: (merged: KubeObject) => void;
}

/** What admission needs of a write's options (DeleteOptions carries the same two). */
export type AdmissionCall = Pick<WriteOptions, 'dryRun' | 'request' | 'pause' | 'offload'>;

export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;

export const GENERATE_NAME_ATTEMPTS = 8;

/** How many deletes one deletecollection keeps in flight. */
export const DELETE_COLLECTION_WORKERS = 32;

export abstract class StoreBase {
  readonly type: ResourceType;
  readonly printer?: Printer;
  readonly warning?: string;
  readonly unstructured: boolean;
  private readonly otherServedApiVersions: readonly string[];
  private readonly pruneIsDecoding: boolean;
  protected readonly strategy: Strategy;
  protected readonly storage: ObjectStore;
  protected readonly clock: Clock;
  protected readonly newUid: () => string;
  private readonly admission: readonly AdmissionPlugin[];
  private readonly prune: ((obj: KubeObject) => string[]) | undefined;
  protected readonly gr: GroupResource;
  protected readonly apiVersion: string;
  protected readonly bookmarkIntervalMs: number;
  protected readonly sharedEvents = new WeakMap<StoreWatchEvent, WatchEvent>();
  protected lastShared: [StoreWatchEvent, WatchEvent] | undefined;
  protected lastSharedBatch: [readonly StoreWatchEvent[], readonly WatchEvent[]] | undefined;
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
  protected fieldManager(subresource: string): FieldManager | undefined {
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
        unstructured: this.unstructured,
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
  protected trackUpdate(live: KubeObject | null, next: KubeObject, subresource: string, manager: string | undefined): void {
    const fm = this.fieldManager(subresource);
    if (fm === undefined) return;
    if (this.strategy.tracksManagedFields === false) {
      delete next.metadata.managedFields;
      return;
    }
    try {
      // The fields an update manager sets are those of the typed object: what Go's encode leaves
      // out (an omitempty 0, false or "") is not set, though the body held it (issue 34 item 3).
      // Copied only when that typed form differs (the field manager changes only managedFields).
      const typed = this.zeroValuesWouldChange(next, true) ? deepCopy(next) : next;
      if (typed !== next) this.fillZeroValues(typed, true);
      fm.update(live, typed, manager ?? '');
      if (typed.metadata.managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = typed.metadata.managedFields;
    } catch {
      // As upstream's UpdateNoErrors: a failure to track never fails the write; the entries go.
      delete next.metadata.managedFields;
    }
  }

  /**
   * trackUpdate of a create, with the walk of a plain create's field set
   * handed to options.offload when there is one (a large object: the walk
   * holds the loop for hundreds of milliseconds); the result is the same.
   */
  protected async trackCreate(next: KubeObject, options: WriteOptions): Promise<void> {
    const manager = options.fieldManager;
    const offload = options.offload;
    const fm = offload === undefined || this.unstructured || this.strategy.tracksManagedFields === false ? undefined : this.fieldManager('');
    const walk = fm?.createdFieldsOptions(next);
    if (fm === undefined || walk === undefined) {
      this.trackUpdate(null, next, '', manager);
      return;
    }
    try {
      // As trackUpdate: the fields of the typed object.
      const typed = this.zeroValuesWouldChange(next, true) ? deepCopy(next) : next;
      if (typed !== next) this.fillZeroValues(typed, true);
      if (options.pause !== undefined) await options.pause();
      const fieldsV1 = await offload!.createdFieldsV1(this.type, typed, walk);
      if (fieldsV1 === false) fm.update(null, typed, manager ?? '');
      else fm.recordCreated(typed, manager ?? '', fieldsV1);
      if (typed.metadata.managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = typed.metadata.managedFields;
    } catch {
      delete next.metadata.managedFields;
    }
  }

  /**
   * trackUpdate of a write whose options carry an offload (a large object):
   * the field manager's update (decoding, copying, comparing and encoding
   * field sets as large as the object: hundreds of milliseconds for 100,000
   * keys) runs on the worker thread; the entries are the same.
   */
  protected async trackUpdateOffloaded(live: KubeObject | null, next: KubeObject, subresource: string, manager: string | undefined, options: Pick<WriteOptions, 'offload' | 'pause'>): Promise<void> {
    const offload = options.offload;
    const fm = this.unstructured || this.strategy.tracksManagedFields === false ? undefined : this.fieldManager(subresource);
    if (offload?.managedFieldsOfUpdate === undefined || fm === undefined) {
      this.trackUpdate(live, next, subresource, manager);
      return;
    }
    let job: FieldManagerJob;
    try {
      job = this.fieldManagerJob(subresource, live, next);
    } catch {
      this.trackUpdate(live, next, subresource, manager);
      return;
    }
    try {
      // As trackUpdate: the fields of the typed object.
      const typed = this.zeroValuesWouldChange(next, true) ? deepCopy(next) : next;
      if (typed !== next) this.fillZeroValues(typed, true);
      if (options.pause !== undefined) await options.pause();
      const entries = await offload.managedFieldsOfUpdate(job, live, typed, manager ?? '');
      if (entries === false) fm.update(live, typed, manager ?? '');
      else if (entries === undefined) delete typed.metadata.managedFields;
      else typed.metadata.managedFields = entries;
      if (typed.metadata.managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = typed.metadata.managedFields;
    } catch {
      delete next.metadata.managedFields;
    }
  }

  /** The field manager of a (sub)resource as data, for one write of `objects` (see FieldManagerJob). */
  protected fieldManagerJob(subresource: string, ...objects: Array<KubeObject | null>): FieldManagerJob {
    const convertsFrom = [...entryApiVersions(...objects)].filter((v) => v === this.apiVersion || this.managedFieldsConvertFrom(v));
    return {
      kind: { group: this.type.group, version: this.type.version, kind: this.type.kind },
      apiVersion: this.apiVersion,
      subresource,
      resetFields: this.resetFields[subresource] ?? [],
      recordTimes: subresource !== 'scale',
      now: this.clock().getTime(),
      convertsFrom,
    };
  }

  // ---- shared checks -------------------------------------------------------

  /**
   * Drops unknown fields; fieldValidation=Strict turns them into a 400, as the
   * strict decoder does, Warn (the default) into options.warnings.
   */
  protected pruneBody(obj: KubeObject, options: WriteOptions, mode: 'decode' | 'patch'): void {
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

  protected ns(namespace: string): string {
    return this.strategy.namespaced ? namespace : '';
  }

  protected ttl(): { ttlSeconds?: number } {
    return this.strategy.ttlSeconds !== undefined ? { ttlSeconds: this.strategy.ttlSeconds } : {};
  }

  /** The storage write's options: the TTL, and the large write's off-thread encoder when it has one. */
  protected storageWrite(options: WriteOptions): { ttlSeconds?: number; encode?: StoredValueEncoder } {
    const storedValue = options.offload?.storedValue;
    if (storedValue === undefined) return this.ttl();
    return { ...this.ttl(), encode: (obj) => storedValue.call(options.offload, obj) };
  }

  protected async exists(ns: string, name: string): Promise<boolean> {
    try {
      await this.storage.get(ns, name);
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'NotFound') return false;
      throw err;
    }
  }

  protected notFound(name: string): StatusError {
    return notFound(this.gr, name);
  }

  protected alreadyExists(name: string): StatusError {
    return new StatusError(409, 'AlreadyExists', `${this.gr.group === '' ? this.gr.resource : `${this.gr.resource}.${this.gr.group}`} ${JSON.stringify(name)} already exists`, {
      name,
      ...(this.gr.group !== '' ? { group: this.gr.group } : {}),
      kind: this.gr.resource,
    });
  }

  /** An AlreadyExists about an object being deleted says so first, as upstream's store does. */
  protected async whileDeleting(ns: string, name: string, err: StatusError): Promise<StatusError> {
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

  protected checkSubresource(subresource: string): void {
    if (subresource === '') return;
    if (subresource === 'scale' && this.servesScale()) return;
    if (this.strategy.subresources?.[subresource] === undefined) {
      throw notFound({ group: this.gr.group, resource: `${this.gr.resource}/${subresource}` }, '');
    }
  }

  /** A body of another kind or group/version is a 400, as the decoder answers. */
  protected checkTypeMeta(obj: KubeObject): void {
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
  protected ensureNamespace(obj: KubeObject, namespace: string): void {
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
  protected checkNameAndNamespace(obj: KubeObject, namespace: string, name: string): void {
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
  protected kubeFinalizerNames(obj: KubeObject): FieldError[] {
    if (definitionFor(this.type.group, this.type.version, this.type.kind) === undefined) return [];
    // apiextensions-apiserver validates metadata with the generic checks only (its own
    // customresourcecleanup finalizer is not qualified), unlike kube-apiserver's built-ins.
    if (this.type.group === 'apiextensions.k8s.io') return [];
    // HNC's kinds are custom resources upstream: its anchors carry the unqualified `hnc.x-k8s.io` finalizer.
    if (this.type.group === 'hnc.x-k8s.io') return [];
    return validateKubeFinalizerNames(obj.metadata.finalizers, 'metadata.finalizers');
  }

  protected validateCreate(obj: KubeObject, kindErrors: FieldError[] = this.strategy.validate?.(obj) ?? []): void {
    const errors: FieldError[] = [
      ...validateObjectMeta(obj.metadata, this.strategy.namespaced, this.strategy.nameValidator, 'metadata'),
      ...this.kubeFinalizerNames(obj),
      ...kindErrors,
    ];
    if (errors.length > 0) throw invalid(this.strategy.invalidGroup ?? this.type.group, this.type.kind, obj.metadata.name ?? '', errors);
  }

  /**
   * validateCreate, the kind's checks in steps with `pause` between them when
   * the kind has steps and the write is large (a pause given); otherwise at
   * once, with nothing to await.
   */
  protected validateCreatePaused(obj: KubeObject, pause: (() => Promise<void>) | undefined): void | Promise<void> {
    const steps = this.strategy.validateSteps;
    if (pause === undefined || steps === undefined) return this.validateCreate(obj);
    return runStepsPaused(steps(obj), pause).then((kindErrors) => this.validateCreate(obj, kindErrors));
  }

  /** The kind's update checks (validateUpdate), in steps with `pause` between them when the kind has steps (a large write). */
  protected kindUpdateErrors(obj: KubeObject, old: KubeObject, warnings: string[] | undefined, pause: (() => Promise<void>) | undefined): FieldError[] | Promise<FieldError[]> {
    const steps = this.strategy.validateUpdateSteps;
    if (pause === undefined || steps === undefined) return this.strategy.validateUpdate?.(obj, old, warnings) ?? [];
    return runStepsPaused(steps(obj, old), pause);
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

  /** The mutating plugins; undefined when none had anything to wait for (a plugin's refusal is then thrown). */
  protected admit(op: AdmissionOperation, obj: KubeObject | undefined, old: KubeObject | undefined, sub: string, call: AdmissionCall): Promise<void> | undefined {
    if (this.admission.length === 0) return undefined;
    return runMutatingAdmission(this.admission, this.attributes(op, obj, old, sub, call));
  }

  /** The validating plugins; undefined as admit(). */
  protected validateAdmission(op: AdmissionOperation, obj: KubeObject | undefined, old: KubeObject | undefined, sub: string, call: AdmissionCall): Promise<void> | undefined {
    if (this.admission.length === 0) return undefined;
    return runValidatingAdmission(this.admission, this.attributes(op, obj, old, sub, call));
  }

  /**
   * What is stored looks as upstream's typed encode prints it (zero-values.ts).
   * Once after defaulting, so that strategies compare objects as upstream's
   * decoded structs compare (a body without `creationTimestamp: null` in its
   * pod template is no spec change), and once more before the write for what
   * the strategy added (a reset status), leaving out then the omitempty
   * scalars Go's encode leaves out.
   */
  protected fillZeroValues(obj: KubeObject, last = false): void {
    fillZeroValues(this.type.group, this.type.version, this.type.kind, obj as unknown as Record<string, unknown>, { dropZeroScalars: last });
  }

  /** Whether fillZeroValues(obj, last) would change obj (obj is left as it is). */
  protected zeroValuesWouldChange(obj: KubeObject, last = false): boolean {
    return zeroValuesWouldChange(this.type.group, this.type.version, this.type.kind, obj as unknown as Record<string, unknown>, { dropZeroScalars: last });
  }

  protected withTypeMeta(obj: KubeObject): KubeObject {
    return { apiVersion: this.apiVersion, kind: this.type.kind, ...omitKeys(obj, 'apiVersion', 'kind') } as KubeObject;
  }

  /** Label and field selectors as one predicate; unknown field labels are a 400. */
  protected predicate(options: ListOptions): { predicate?: Predicate; everything: boolean } {
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

  /** Where the kind keeps the replicas a Scale shows (spec.replicas for built-in kinds). */
  protected scaleReplicasPath(): readonly string[] {
    return BUILTIN_REPLICAS_PATH;
  }

  /** Whether the kind serves /scale. */
  protected servesScale(): boolean {
    return this.strategy.scale !== undefined;
  }

  protected gvkString(): string {
    return `${this.type.group === '' ? '' : this.type.group}/${this.type.version}, Kind=${this.type.kind}`;
  }
}

export const BUILTIN_REPLICAS_PATH: readonly string[] = ['spec', 'replicas'];
/** A Scale's spec.replicas as a field path. */
export const SCALE_REPLICAS_ELEMENTS = BUILTIN_REPLICAS_PATH.map(fieldElement);

export function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

/** Sets obj[path[0]][path[1]]… = value, making the objects on the way. */
export function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = obj;
  for (const p of path.slice(0, -1)) {
    const next = node[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[p] = {};
    node = node[p] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

export function scaleReplicas(scale: KubeObject): number {
  const replicas = ((scale['spec'] ?? {}) as { replicas?: unknown }).replicas;
  return typeof replicas === 'number' ? replicas : 0;
}

export function setFinalizers(obj: KubeObject, finalizers: string[]): void {
  if (finalizers.length > 0) obj.metadata.finalizers = finalizers;
  else delete obj.metadata.finalizers;
}

/** Thrown inside a delete attempt when the object changed under it: read again. */
export class RetryDelete extends Error {}

export function pick(options: ListOptions): { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string; sharedItems?: boolean } {
  const out: { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string; sharedItems?: boolean } = {};
  if (options.resourceVersion !== undefined) out.resourceVersion = options.resourceVersion;
  if (options.resourceVersionMatch !== undefined) out.resourceVersionMatch = options.resourceVersionMatch;
  if (options.limit !== undefined) out.limit = options.limit;
  if (options.continue !== undefined) out.continue = options.continue;
  if (options.sharedItems === true) out.sharedItems = true;
  return out;
}
