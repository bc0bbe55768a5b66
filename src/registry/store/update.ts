// Update, patch and server-side apply (upstream's rest.BeforeUpdate,
// Store.Update and the field manager's Apply): each builds the new object from
// the current one inside one guarded update, so a conflicting write retries
// with fresh state; PUT may create where the strategy allows.
//
// Contract: main-resource writes keep what the strategy says they cannot
// change (status), subresource writes (status, finalize, scale) everything
// else; metadata.managedFields is kept for kinds with an apply schema; an
// update that removes the last finalizer of a deleting object deletes it.

import type { KubeObject, ManagedFieldsEntry } from '../../machinery/meta.js';
import { StatusError, badRequest, conflict, invalid, staleResourceVersion } from '../../machinery/errors.js';
import { type FieldError, fieldErrors, GoValue } from '../../machinery/field-errors.js';
import { validateObjectMetaUpdate } from '../../machinery/validation.js';
import { formatTimestamp } from '../../machinery/names.js';
import type { WriteOptions } from '../rest.js';
import { managedFieldsLast, managerKey, parseManagerKey } from '../../machinery/apply/field-manager.js';
import { ConflictsError } from '../../machinery/apply/updater.js';
import { conflictsStatusError } from '../../machinery/apply/conflicts.js';
import { ApplySchemaError } from '../../machinery/apply/typed.js';
import { fieldElement } from '../../machinery/apply/path.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import { type ApplyOptions, type AdmissionCall, SCALE_REPLICAS_ELEMENTS, samePath } from './base.js';
import { DeleteStore } from './delete.js';

export abstract class UpdateStore extends DeleteStore {
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
    if (options.pause !== undefined) await options.pause();
    const ns = this.ns(namespace);
    const wantedRV = body.metadata.resourceVersion ?? '';
    const dryRun = options.dryRun === true;
    let old = null as KubeObject | null;

    const res = await this.storage.guaranteedUpdate(
      ns,
      name,
      async (current) => {
        old = current;
        // A large write's stages are paused between (server/large-requests.ts): the storage read and copy of `current` came first.
        if (options.pause !== undefined) await options.pause();
        const next = deepCopy(body);
        if (options.pause !== undefined) await options.pause();
        if (current === null) {
          if (subresource !== '' || !this.strategy.allowCreateOnUpdate || wantedRV !== '') throw this.notFound(name);
          return this.prepareCreateOnUpdate(next, options, options.fieldManager);
        }
        // The body's uid is a storage precondition, checked before anything else (upstream's
        // defaultUpdatedObjectInfo.Preconditions); its failure is a storage error turned Conflict.
        const wantedUID = body.metadata.uid ?? '';
        if (wantedUID !== '' && wantedUID !== current.metadata.uid) {
          const key = this.storage.keyFor(ns, name);
          throw conflict(
            this.gr,
            name,
            `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${wantedUID}, UID in object meta: ${current.metadata.uid ?? ''}`,
          );
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
      { ...this.storageWrite(options), dryRun },
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
    patch: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    // trackAs (a custom resource's /scale write, on the main resource), by the stored object: 'none'
    // keeps its managedFields as they are; 'scale' records the write as the scale subresource's.
    options: WriteOptions & { subresource?: string; readsCurrent?: boolean; trackAs?: (current: KubeObject) => 'none' | 'scale' },
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
        if (options.pause !== undefined) await options.pause();
        const next = await patch(this.withTypeMeta(options.readsCurrent === true ? current : deepCopy(current)));
        if (options.pause !== undefined) await options.pause();
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
      { ...this.storageWrite(options), dryRun },
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
    // A large apply's merge and field sets (hundreds of milliseconds to a second for 100,000 keys) run on the
    // worker thread when the write has an offload; the result, or the error, is the same.
    const offloaded = options.offload?.applied === undefined || this.unstructured ? undefined : options.offload;
    const merge = async (live: KubeObject | null): Promise<{ object: KubeObject; changed: boolean }> => {
      if (offloaded !== undefined) {
        if (options.pause !== undefined) await options.pause();
        const out = await offloaded.applied!(this.fieldManagerJob(subresource, live), live, config, manager, force);
        if (out !== false) return out;
        // Done here after all: on a copy, as below (the merge may share the live object's parts).
        return fm.apply(live === null ? null : deepCopy(live), config, manager, force);
      }
      return fm.apply(live, config, manager, force);
    };
    const run = async (live: KubeObject | null): Promise<{ object: KubeObject; changed: boolean }> => {
      try {
        const out = await merge(live);
        options.afterMerge?.(out.object);
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
          const { object } = await run(null);
          if (options.pause !== undefined) await options.pause();
          object.metadata ??= {};
          this.checkTypeMeta(object);
          this.ensureNamespace(object, namespace);
          object.metadata.name = name;
          this.pruneBody(object, options, 'decode');
          return this.prepareCreateOnUpdate(object, options, manager, true, true);
        }
        if (wantedRV !== '' && wantedRV !== current.metadata.resourceVersion) throw staleResourceVersion(this.gr, name);
        if (options.pause !== undefined) await options.pause();
        // Sent to the worker as JSON, the live object needs no copy here (its answer is a new object).
        const live = this.withTypeMeta(offloaded === undefined ? deepCopy(current) : current);
        if (options.pause !== undefined) await options.pause();
        const { object } = await run(live);
        if (options.pause !== undefined) await options.pause();
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
          applied: true,
        });
      },
      { ...this.storageWrite(options), dryRun },
    );
    if (!res.created && old !== null && !dryRun) {
      const deleted = await this.deleteIfFinalized(ns, name, res.object, old);
      if (deleted) return { object: this.withTypeMeta(deleted), created: false };
    }
    return { object: this.withTypeMeta(res.object), created: res.created };
  }

  private async prepareCreateOnUpdate(obj: KubeObject, call: AdmissionCall, manager: string | undefined, tracked = false, applied = false): Promise<KubeObject> {
    await call.pause?.();
    this.strategy.defaults?.(obj, { applied });
    this.fillZeroValues(obj);
    await call.pause?.();
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
    await call.pause?.();
    const admitted = this.admit('CREATE', obj, undefined, '', call);
    if (admitted !== undefined) await admitted;
    await call.pause?.();
    const checked = this.validateCreatePaused(obj, call.pause);
    if (checked !== undefined) await checked;
    await call.pause?.();
    const validated = this.validateAdmission('CREATE', obj, undefined, '', call);
    if (validated !== undefined) await validated;
    this.fillZeroValues(obj, true);
    await call.pause?.();
    return obj;
  }

  /** rest.BeforeUpdate: system fields from the stored object, strategy, admission, validation. */
  protected async prepareUpdate(
    obj: KubeObject,
    old: KubeObject,
    subresource: string,
    call: AdmissionCall,
    fields: {
      manager: string | undefined;
      tracked?: boolean;
      trackedEntries?: ManagedFieldsEntry[] | undefined;
      warnings?: string[] | undefined;
      /** The object is server-side apply's merge (see Strategy.defaults). */
      applied?: boolean;
    },
  ): Promise<KubeObject> {
    await call.pause?.();
    const meta = obj.metadata;
    const oldMeta = old.metadata;
    // An unconditional write (or a patch that dropped it) acts on the stored version.
    if (meta.resourceVersion === undefined || meta.resourceVersion === '') meta.resourceVersion = oldMeta.resourceVersion;
    // Defaults apply to every write, subresources too (upstream defaults on decode).
    this.strategy.defaults?.(obj, { applied: fields.applied === true });
    // An omitempty scalar set to its zero value is no change for upstream's decoded struct: drop
    // it now, so that the strategy's spec comparison (generation) sees none (issue 34 item 3).
    this.fillZeroValues(obj, true);
    await call.pause?.();
    meta.generation = oldMeta.generation;
    if (meta.generation === undefined) delete meta.generation;
    // Ownership follows what the client sent, before the strategy resets what
    // this (sub)resource may not change (upstream's order: a patch of a
    // namespace's spec.finalizers is recorded though only /finalize changes them).
    let entries = fields.tracked === true ? (fields.trackedEntries ?? obj.metadata.managedFields) : undefined;
    if (fields.tracked !== true && subresource === '') {
      await this.trackUpdateOffloaded(old, obj, subresource, fields.manager, call);
      entries = obj.metadata.managedFields;
    } else if (fields.tracked !== true) {
      // Upstream decodes (and so defaults) every body, a subresource's too: compare the defaulted body.
      const view = deepCopy(obj);
      this.strategy.defaults?.(view);
      await this.trackUpdateOffloaded(old, view, subresource, fields.manager, call);
      entries = view.metadata.managedFields;
    }
    await call.pause?.();
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
    await call.pause?.();

    const admitted = this.admit('UPDATE', obj, old, subresource, call);
    if (admitted !== undefined) await admitted;
    await call.pause?.();
    const errors: FieldError[] = validateObjectMetaUpdate(meta, oldMeta, 'metadata');
    if (oldMeta.deletionTimestamp !== undefined) {
      // Upstream runs the generic ObjectMeta update checks twice (the registry's
      // common ones, then the kind's own): a new finalizer on an object being
      // deleted is reported twice.
      errors.push(...errors.filter((e) => e.field === 'metadata.finalizers' && e.type === 'Forbidden'));
    }
    errors.push(...this.kubeFinalizerNames(obj));
    const w = fields.warnings;
    if (subresource === '') {
      // A large write's ConfigMap or Secret is validated in steps (server/large-requests.ts); any other in one go.
      const kindErrors = this.kindUpdateErrors(obj, old, w, call.pause);
      errors.push(...(Array.isArray(kindErrors) ? kindErrors : await kindErrors));
    }
    else if (subresource === 'scale') errors.push(...(this.strategy.validateUpdate?.(obj, old, w) ?? []));
    else errors.push(...(this.strategy.subresources![subresource]!.validateUpdate?.(obj, old, w) ?? []));
    if (errors.length > 0) throw invalid(this.strategy.invalidGroup ?? this.type.group, this.type.kind, meta.name ?? '', errors);
    // A scale write updates the main object through its own strategy, warnings included.
    if (subresource === '' || subresource === 'scale') w?.push(...(this.strategy.warningsOnUpdate?.(obj, old) ?? []));
    await call.pause?.();
    const validated = this.validateAdmission('UPDATE', obj, old, subresource, call);
    if (validated !== undefined) await validated;
    this.fillZeroValues(obj, true);
    await call.pause?.();
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
}
