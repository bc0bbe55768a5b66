// The services' storage with cluster IP allocation around every write
// (upstream's service REST: beginCreate/beginUpdate/afterDelete around the
// generic store, pkg/registry/core/service/storage).
//
// Contract: wraps the services' ObjectStore; reads and watches pass through.
// - create: the service's requested IPs are taken (or one is picked when it
//   asks for none) before the write, and given back if the write fails.
// - guaranteedUpdate: after the strategy built the new object from the
//   current one, IPs it holds that the current one did not are taken (an
//   ExternalName service turning into ClusterIP gets one); IPs the current one
//   held that the new one does not (turning into ExternalName) are freed once
//   the write succeeded. An attempt retried on conflict gives back what the
//   previous attempt took. Dry runs take nothing: requested IPs are only
//   checked against the range.
// - delete: the deleted service's IPs are freed.
// Failures to take an IP answer as upstream: a requested IP out of range or
// taken is a 422 on spec.clusterIPs ("failed to allocate IP …"), a full range
// a 500 ("failed to allocate a serviceIP: range is full"). Failures to free
// after a successful write are swallowed (the IP leaks, as upstream's would
// until its repair loop runs).

import type { GroupResource, KubeObject } from '../machinery/meta.js';
import { internalError, invalid } from '../machinery/errors.js';
import { fieldErrors } from '../machinery/field-errors.js';
import type { Service } from '../api/core/v1/types.js';
import type {
  ObjectStore,
  StoreListOptions,
  StoreListResult,
  StoreWatchHandle,
  StoreWatchHandlers,
  StoreWatchOptions,
  UpdateFunc,
} from '../storage/object-store.js';
import { IPAllocationError, type ServiceIPAllocator } from './service-ip-allocator.js';

/** What one write took: give it back on failure, free what the old object held on success. */
interface Allocation {
  commit(): Promise<void>;
  revert(): Promise<void>;
}

const NOTHING: Allocation = { commit: async () => {}, revert: async () => {} };

export class AllocatingServiceStore implements ObjectStore {
  readonly resource: GroupResource;

  constructor(
    private readonly inner: ObjectStore,
    private readonly ips: ServiceIPAllocator,
  ) {
    this.resource = inner.resource;
  }

  keyFor(namespace: string, name: string): string {
    return this.inner.keyFor(namespace, name);
  }

  currentResourceVersion(): Promise<string> {
    return this.inner.currentResourceVersion();
  }

  get(namespace: string, name: string, options?: { resourceVersion?: string }): Promise<KubeObject> {
    return this.inner.get(namespace, name, options);
  }

  list(namespace: string, options: StoreListOptions): Promise<StoreListResult> {
    return this.inner.list(namespace, options);
  }

  watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle> {
    return this.inner.watch(namespace, options, handlers);
  }

  async create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number }): Promise<KubeObject> {
    const spec = (obj as Service).spec ?? {};
    const asked = { clusterIP: spec.clusterIP, clusterIPs: spec.clusterIPs };
    const allocation = await this.allocate(obj as Service, null, false);
    try {
      return await this.inner.create(namespace, name, obj, options);
    } catch (err) {
      await allocation.revert();
      // A retried create (another generated name) asks for what the client asked for.
      restore(obj as Service, asked);
      throw err;
    }
  }

  async guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options?: { ttlSeconds?: number; dryRun?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const dryRun = options?.dryRun === true;
    let pending: Allocation = NOTHING;
    const allocating: UpdateFunc = async (current) => {
      // A conflict retries the update: give back what the last attempt took.
      await pending.revert();
      pending = NOTHING;
      const next = await update(current);
      pending = await this.allocate(next as Service, current as Service | null, dryRun);
      return next;
    };
    let res: { object: KubeObject; created: boolean };
    try {
      res = await this.inner.guaranteedUpdate(namespace, name, allocating, options);
    } catch (err) {
      await pending.revert();
      throw err;
    }
    await pending.commit();
    return res;
  }

  async delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    const deleted = await this.inner.delete(namespace, name, check);
    await this.ips.release(...heldIPs(deleted as Service)).catch(() => undefined);
    return deleted;
  }

  /** Takes what `next` needs beyond what `current` holds; fills spec.clusterIP(s) when it picks one. */
  private async allocate(next: Service, current: Service | null, dryRun: boolean): Promise<Allocation> {
    const held = heldIPs(current);
    const spec = (next.spec ??= {});
    const freeHeld = (keep: string[]): Allocation => {
      const unused = held.filter((ip) => !keep.includes(ip));
      if (dryRun || unused.length === 0) return NOTHING;
      return { commit: () => this.ips.release(...unused).catch(() => undefined), revert: async () => {} };
    };
    if (spec.type === 'ExternalName' || isHeadless(next)) return freeHeld([]);

    const requested = (spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])).filter((ip) => ip !== '');
    const taken: string[] = [];
    let trying = '';
    const giveBack = (): Promise<void> => (taken.length === 0 ? Promise.resolve() : this.ips.release(...taken).catch(() => undefined));
    try {
      if (requested.length === 0) {
        if (!dryRun) {
          const ip = await this.ips.allocateNext();
          taken.push(ip);
          spec.clusterIP = ip;
          spec.clusterIPs = [ip];
        }
      } else {
        for (const ip of requested) {
          if (held.includes(ip)) continue;
          trying = ip;
          if (dryRun) this.ips.checkInRange(ip);
          else {
            await this.ips.allocate(ip);
            taken.push(ip);
          }
        }
      }
    } catch (err) {
      await giveBack();
      throw allocationStatus(err, next, trying);
    }
    const freed = freeHeld([...requested, ...taken]);
    return { commit: freed.commit, revert: giveBack };
  }
}

/** An allocation failure as upstream answers it. */
function allocationStatus(err: unknown, svc: Service, ip: string): unknown {
  if (!(err instanceof IPAllocationError)) return err;
  if (err.code === 'Full') return internalError(new Error(`failed to allocate a serviceIP: ${err.message}`));
  return invalid('', 'Service', svc.metadata.name ?? '', [
    fieldErrors.invalid('spec.clusterIPs', svc.spec?.clusterIPs ?? [ip], `failed to allocate IP ${ip}: ${err.message}`),
  ]);
}

function isHeadless(svc: Service): boolean {
  const spec = svc.spec ?? {};
  return spec.clusterIP === 'None' || spec.clusterIPs?.[0] === 'None';
}

/** The cluster IPs a stored service holds (none for ExternalName and headless services). */
function heldIPs(svc: Service | null): string[] {
  if (svc === null) return [];
  const spec = svc.spec ?? {};
  if (spec.type === 'ExternalName' || isHeadless(svc)) return [];
  return (spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])).filter((ip) => ip !== '');
}

function restore(svc: Service, asked: { clusterIP: string | undefined; clusterIPs: string[] | undefined }): void {
  const spec = (svc.spec ??= {});
  if (asked.clusterIP === undefined) delete spec.clusterIP;
  else spec.clusterIP = asked.clusterIP;
  if (asked.clusterIPs === undefined) delete spec.clusterIPs;
  else spec.clusterIPs = asked.clusterIPs;
}
