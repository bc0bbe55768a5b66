// Create (upstream's rest.BeforeCreate and Store.Create): type and namespace
// checks → prune → defaults → system fields (uid, creationTimestamp,
// generateName) → strategy prepareForCreate → mutating admission →
// validation → validating admission → the write.
//
// Contract: a rejected create writes nothing; a generateName collision is
// retried with a new name a few times; an existing name is 409 AlreadyExists
// (or, while the old object is being deleted, says so).

import type { KubeObject } from '../../machinery/meta.js';
import { StatusError, isAlreadyExists, unknownError } from '../../machinery/errors.js';
import { formatTimestamp, generateName } from '../../machinery/names.js';
import type { WriteOptions } from '../rest.js';
import { managedFieldsLast } from '../../machinery/apply/field-manager.js';
import { GENERATE_NAME_ATTEMPTS } from './base.js';
import { ReadStore } from './reads.js';

export abstract class CreateStore extends ReadStore {
  async create(namespace: string, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    // The object is ours (RESTStore.create): the handler decoded it for this request alone.
    obj.metadata ??= {};
    this.checkTypeMeta(obj);
    this.ensureNamespace(obj, namespace);
    // As upstream, a resourceVersion is refused by the storage write itself: after
    // validation (an invalid object is a 422 first), and never on a dry run.
    const sentResourceVersion = obj.metadata.resourceVersion;
    delete obj.metadata.resourceVersion;
    this.pruneBody(obj, options, 'decode');
    // Each walk of a large object is a stage of its own (server/large-requests.ts).
    if (options.pause !== undefined) await options.pause();
    this.strategy.defaults?.(obj);
    this.fillZeroValues(obj);
    if (options.pause !== undefined) await options.pause();
    const meta = obj.metadata;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    meta.uid = this.newUid();
    meta.creationTimestamp = formatTimestamp(this.clock());
    const generated = (meta.name === undefined || meta.name === '') && (meta.generateName ?? '') !== '';
    if (generated) meta.name = generateName(meta.generateName!);
    if (options.offload === undefined) this.trackUpdate(null, obj, '', options.fieldManager);
    else await this.trackCreate(obj, options);
    this.strategy.prepareForCreate?.(obj, options.user);
    managedFieldsLast(obj);
    if (options.pause !== undefined) await options.pause();

    const admitted = this.admit('CREATE', obj, undefined, '', options);
    if (admitted !== undefined) await admitted;
    if (options.pause !== undefined) await options.pause();
    // A large write's ConfigMap or Secret is validated in steps (server/large-requests.ts); any other in one go.
    const checked = this.validateCreatePaused(obj, options.pause);
    if (checked !== undefined) await checked;
    options.warnings?.push(...(this.strategy.warningsOnCreate?.(obj) ?? []));
    if (options.pause !== undefined) await options.pause();
    const validated = this.validateAdmission('CREATE', obj, undefined, '', options);
    if (validated !== undefined) await validated;
    this.fillZeroValues(obj, true);
    if (options.pause !== undefined) await options.pause();

    const ns = this.ns(meta.namespace ?? '');
    for (let attempt = 1; ; attempt++) {
      if (options.dryRun === true) {
        // Existence still answers AlreadyExists, as the real write would.
        const exists = await this.exists(ns, meta.name!);
        if (exists) throw await this.whileDeleting(ns, meta.name!, this.alreadyExists(meta.name!));
        await this.storage.previewCreate?.(obj);
        if (sentResourceVersion !== undefined && sentResourceVersion !== '') meta.resourceVersion = sentResourceVersion;
        return obj;
      }
      if (sentResourceVersion !== undefined && sentResourceVersion !== '') {
        throw unknownError('resourceVersion should not be set on objects to be created');
      }
      try {
        const created = await this.storage.create(ns, meta.name!, obj, this.storageWrite(options));
        return this.typedCreated(created);
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

  /**
   * withTypeMeta of the object storage created (this request's alone): the
   * object itself when its type fields already come first with these values,
   * so that the answer is the JSON storage kept of it (object-store.ts createdJSON).
   */
  private typedCreated(obj: KubeObject): KubeObject {
    let i = 0;
    for (const key in obj) {
      if (key !== (i === 0 ? 'apiVersion' : 'kind')) break;
      if (++i === 2) break;
    }
    return i === 2 && obj.apiVersion === this.apiVersion && obj.kind === this.type.kind ? obj : this.withTypeMeta(obj);
  }
}
