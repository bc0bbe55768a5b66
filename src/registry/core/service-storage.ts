// The services' storage with cluster IP and node port allocation around every write
// (upstream's service REST: beginCreate/beginUpdate/afterDelete around the
// generic store, pkg/registry/core/service/storage).
//
// Contract: wraps the services' ObjectStore (a WrappingObjectStore); reads and watches pass through.
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
// Node ports (NodePort and LoadBalancer services) follow the same pattern:
// requested ones are taken, missing ones picked, ones no longer used freed
// after the write. Failures answer as upstream: a requested IP out of range
// or taken is a 422 on spec.clusterIPs ("failed to allocate IP …"), a node
// port a 422 on spec.ports[i].nodePort; a full range is a 500 ("failed to
// allocate a serviceIP: range is full", "failed to allocate a nodePort: …").
// healthCheckNodePort is freed with the service but not allocated. Failures to free
// after a successful write are swallowed (the IP leaks, as upstream's would
// until its repair loop runs).

import type { KubeObject } from '../../machinery/meta.js';
import { internalError, invalid } from '../../machinery/errors.js';
import { fieldErrors } from '../../machinery/field-errors.js';
import { goStringSlice } from '../../machinery/go-syntax.js';
import type { Service } from '../../api/core/v1/types.js';
import type { ObjectStore, UpdateFunc } from '../../storage/object-store.js';
import { WrappingObjectStore } from '../store-wrapper.js';
import { IPAllocationError, type ServiceIPAllocator } from '../service-ip-allocator.js';
import { PortAllocationError, type ServiceNodePortAllocator } from '../service-node-port-allocator.js';

/** What one write took: give it back on failure, free what the old object held on success. */
interface Allocation {
  commit(): Promise<void>;
  revert(): Promise<void>;
}

const NOTHING: Allocation = { commit: async () => {}, revert: async () => {} };

export class AllocatingServiceStore extends WrappingObjectStore {
  constructor(
    inner: ObjectStore,
    private readonly ips: ServiceIPAllocator,
    private readonly nodePorts?: ServiceNodePortAllocator,
  ) {
    super(inner);
  }

  override async create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number }): Promise<KubeObject> {
    const spec = (obj as Service).spec ?? {};
    const asked = { clusterIP: spec.clusterIP, clusterIPs: spec.clusterIPs, nodePorts: (spec.ports ?? []).map((p) => p.nodePort) };
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

  /** A dry-run create: the cluster IP it would get is the range's network address; requested IPs and ports are checked. */
  override async previewCreate(obj: KubeObject): Promise<void> {
    await this.allocate(obj as Service, null, true);
  }

  override async guaranteedUpdate(
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

  override async delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    const deleted = await this.inner.delete(namespace, name, check);
    await this.ips.release(...heldIPs(deleted as Service)).catch(() => undefined);
    const ports = heldNodePorts(deleted as Service);
    if (this.nodePorts !== undefined && ports.length > 0) await this.nodePorts.release(...ports).catch(() => undefined);
    return deleted;
  }

  /** Cluster IPs, then node ports; a failure on ports gives the IPs back. */
  private async allocate(next: Service, current: Service | null, dryRun: boolean): Promise<Allocation> {
    const ips = await this.allocateIPs(next, current, dryRun);
    if (this.nodePorts === undefined) return ips;
    let ports: Allocation;
    try {
      ports = await this.allocateNodePorts(this.nodePorts, next, current, dryRun);
    } catch (err) {
      await ips.revert();
      throw err;
    }
    return {
      commit: async () => {
        await ips.commit();
        await ports.commit();
      },
      revert: async () => {
        await ips.revert();
        await ports.revert();
      },
    };
  }

  /**
   * Node ports as upstream's initNodePorts (create: ports with the same number
   * share one node port) and updateNodePorts (update: new values are taken,
   * values the service no longer uses are freed after the write).
   */
  private async allocateNodePorts(allocator: ServiceNodePortAllocator, next: Service, current: Service | null, dryRun: boolean): Promise<Allocation> {
    const spec = (next.spec ??= {});
    const held = heldNodePorts(current);
    const ports = spec.ports ?? [];
    const taken: number[] = [];
    const giveBack = (): Promise<void> => (taken.length === 0 ? Promise.resolve() : allocator.release(...taken).catch(() => undefined));
    let failing = { index: 0, port: 0 };
    const take = async (port: number, index: number): Promise<void> => {
      failing = { index, port };
      if (dryRun) allocator.checkInRange(port);
      else {
        await allocator.allocate(port);
        taken.push(port);
      }
    };
    const pick = async (index: number): Promise<number | undefined> => {
      failing = { index, port: 0 };
      if (dryRun) return undefined;
      const port = await allocator.allocateNext();
      taken.push(port);
      return port;
    };
    const wants = needsNodePort(next);
    const shouldAllocate = spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && (spec as { allocateLoadBalancerNodePorts?: boolean }).allocateLoadBalancerNodePorts !== false);
    try {
      if (wants && current === null) {
        const byPort = new Map<number, number>();
        for (const [i, p] of ports.entries()) {
          const own = p.nodePort ?? 0;
          if (own === 0 && !shouldAllocate) continue;
          const shared = byPort.get(p.port);
          if (shared === undefined) {
            const requested = ports.find((q) => q.port === p.port && (q.nodePort ?? 0) !== 0)?.nodePort ?? 0;
            const port = requested !== 0 ? (await take(requested, i), requested) : await pick(i);
            if (port === undefined) continue;
            p.nodePort = port;
            byPort.set(p.port, port);
          } else if (own !== shared) {
            if (own === 0) p.nodePort = shared;
            else await take(own, i);
          }
        }
      } else if (wants) {
        const mine = new Set<number>();
        for (const [i, p] of ports.entries()) {
          const own = p.nodePort ?? 0;
          if (own === 0 && !shouldAllocate) continue;
          if (own !== 0) {
            if (!held.includes(own) && !mine.has(own)) await take(own, i);
            mine.add(own);
          } else {
            const port = await pick(i);
            if (port !== undefined) p.nodePort = port;
          }
        }
      }
    } catch (err) {
      await giveBack();
      throw nodePortStatus(err, next, failing);
    }
    const keep = wants ? heldNodePorts(next) : [];
    const unused = held.filter((port) => !keep.includes(port));
    return {
      commit: async () => {
        if (!dryRun && unused.length > 0) await allocator.release(...unused).catch(() => undefined);
      },
      revert: giveBack,
    };
  }

  /** Takes what `next` needs beyond what `current` holds; fills spec.clusterIP(s) when it picks one. */
  private async allocateIPs(next: Service, current: Service | null, dryRun: boolean): Promise<Allocation> {
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
        // A dry run shows the range's network address, taking nothing (upstream's allocator does not look for a free one).
        const ip = dryRun ? this.ips.networkAddress() : await this.ips.allocateNext();
        if (!dryRun) taken.push(ip);
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
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
    fieldErrors.invalid('spec.clusterIPs', goStringSlice(svc.spec?.clusterIPs ?? [ip]), `failed to allocate IP ${ip}: ${err.message}`),
  ]);
}

function nodePortStatus(err: unknown, svc: Service, failing: { index: number; port: number }): unknown {
  if (!(err instanceof PortAllocationError)) return err;
  if (err.code === 'Full') return internalError(new Error(`failed to allocate a nodePort: ${err.message}`));
  return invalid('', 'Service', svc.metadata.name ?? '', [fieldErrors.invalid(`spec.ports[${failing.index}].nodePort`, failing.port, err.message)]);
}

function needsNodePort(svc: Service): boolean {
  return svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';
}

/** The node ports a stored service holds (its ports' and its health check's). */
function heldNodePorts(svc: Service | null): number[] {
  if (svc === null) return [];
  const spec = svc.spec ?? {};
  const health = (spec as { healthCheckNodePort?: number }).healthCheckNodePort ?? 0;
  const all = [...(spec.ports ?? []).map((p) => p.nodePort ?? 0), health].filter((p) => p !== 0);
  return [...new Set(all)];
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

function restore(svc: Service, asked: { clusterIP: string | undefined; clusterIPs: string[] | undefined; nodePorts: (number | undefined)[] }): void {
  const spec = (svc.spec ??= {});
  (spec.ports ?? []).forEach((p, i) => {
    const port = asked.nodePorts[i];
    if (port === undefined) delete p.nodePort;
    else p.nodePort = port;
  });
  if (asked.clusterIP === undefined) delete spec.clusterIP;
  else spec.clusterIP = asked.clusterIP;
  if (asked.clusterIPs === undefined) delete spec.clusterIPs;
  else spec.clusterIPs = asked.clusterIPs;
}
