// Delete and deletecollection (upstream's rest.BeforeDelete, Store.Delete and
// DeleteCollection): preconditions, graceful deletion, finalizers (the GC
// ones by propagation policy) and strategy holds.
//
// Contract: an object with finalizers, a hold or a grace period gets its
// deletionTimestamp and stays; otherwise it goes in one guarded delete, retried
// when the object changed under it. deletecollection lists once and deletes
// each item as a DELETE would (admission included), a bounded number at a time.

import type { KubeList, KubeObject } from '../../machinery/meta.js';
import { StatusError, conflict, type Status } from '../../machinery/errors.js';
import { formatTimestamp } from '../../machinery/names.js';
import type { DeleteOptions, ListOptions } from '../rest.js';
import { deletionFinalizers } from '../gc-finalizers.js';
import { deleteCorruptObject } from '../corrupt-object-deleter.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import { DELETE_COLLECTION_WORKERS, setFinalizers, RetryDelete } from './base.js';
import { CreateStore } from './create.js';

export abstract class DeleteStore extends CreateStore {
  async delete(namespace: string, name: string, options: DeleteOptions, inCollection = false): Promise<{ result: KubeObject | Status; gone: boolean }> {
    // A kind's REST may refuse to delete some names (system priority classes); upstream's
    // deletecollection goes around that REST, so it does here too.
    if (!inCollection) {
      const refused = this.strategy.refuseDelete?.(name);
      if (refused !== undefined) throw refused;
    }
    const ns = this.ns(namespace);
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
      // Admission sees an empty object of the kind, as upstream's (the stored one cannot be read),
      // named so that the attributes name the object as the request does.
      const unread = { apiVersion: this.apiVersion, kind: this.type.kind, metadata: ns === '' ? { name } : { name, namespace: ns } } as KubeObject;
      const admit = async (): Promise<void> => {
        const admitted = this.admit('DELETE', undefined, unread, '', options);
        if (admitted !== undefined) await admitted;
        const validated = this.validateAdmission('DELETE', undefined, unread, '', options);
        if (validated !== undefined) await validated;
      };
      return { result: await deleteCorruptObject(this.storage, this.gr, this.type.kind, ns, name, admit), gone: true };
    }
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
        const admitted = this.admit('DELETE', undefined, current, '', options);
        if (admitted !== undefined) await admitted;
        const validated = this.validateAdmission('DELETE', undefined, current, '', options);
        if (validated !== undefined) await validated;
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

      const admitted = this.admit('DELETE', undefined, current, '', options);
      if (admitted !== undefined) await admitted;
      const validated = this.validateAdmission('DELETE', undefined, current, '', options);
      if (validated !== undefined) await validated;
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
  protected hasFinalizers(obj: KubeObject, finalizers = obj.metadata.finalizers): boolean {
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
}
