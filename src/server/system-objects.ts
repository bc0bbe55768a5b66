// The objects a kube-apiserver keeps in place itself (its post-start hooks
// and in-process controllers), each re-created when deleted:
//
// - the system priority classes system-node-critical and system-cluster-critical
//   (upstream's scheduling/bootstrap-system-priority-classes hook);
// - with the lease endpoint reconciler (--endpoint-reconciler-type=lease):
//   the `kubernetes` Service in `default` (cluster IP = the first address of
//   the service CIDR, port 443 `https` → this server's secure port), and its
//   Endpoints and EndpointSlice listing every running server's address.
//
// The reconciler is upstream's lease reconciler on our storage: each server
// writes `{prefix}/masterleases/{ip}:{port}` with a TTL (15 s) every interval
// (10 s), reads every lease under that prefix and writes the Endpoints and
// EndpointSlice from them. A server that stops deletes its lease and writes
// the lists without itself; one that dies drops out when its lease expires
// (etcd's lease, or the local backends' TTL sweep; a lease whose renew time is
// older than the TTL is ignored meanwhile). All servers agree on the same
// sorted list, so concurrent writers converge instead of fighting.
// - with `identity` (kube-apiserver's APIServerIdentity, on by default in 1.32): the
//   identity Lease `apiserver-<hash of the host name>` in kube-system, renewed every
//   interval (duration 3600 s), and the collection of such leases expired for an hour
//   (checked hourly, as upstream's lease GC); and the legacy service-account token
//   tracking ConfigMap `kube-apiserver-legacy-service-account-token-tracking` with the
//   date tracking started. Both wait for kube-system to exist (the system namespaces
//   controller makes it), as upstream's controllers retry.
// Objects are written through the registry (validation, admission) as the
// system, in-process.

import crypto from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from '../registry/index.js';
import type { Backend } from '../storage/interface.js';
import type { KubeObject } from '../machinery/meta.js';
import { isStatusError } from '../machinery/errors.js';
import { formatIPv4, parseIPv4CIDR } from '../registry/service-ip-allocator.js';
import { SYSTEM_PRIORITY_CLASSES } from '../api/scheduling/v1/priority-classes.js';
import { sameJSON } from '../api/core/v1/validation.js';
import { deepCopy } from '../machinery/deep-copy.js';

export const DEFAULT_ENDPOINT_RECONCILE_INTERVAL_MS = 10_000;
export const DEFAULT_MASTER_LEASE_TTL_SECONDS = 15;
const SERVICE_NAME = 'kubernetes';
const NAMESPACE = 'default';
const SYSTEM_USER = { name: 'system:apiserver', groups: ['system:masters'] };
/** The field manager upstream's loopback client records (its user agent's program name). */
const WRITE = { user: SYSTEM_USER, fieldManager: 'kube-apiserver' };

export interface EndpointReconcilerOptions {
  /** The address other clients reach this server at (--advertise-address). */
  advertiseAddress: string;
  /** The secure port the Service's targetPort and the endpoints name. */
  port: number;
  /** --service-cluster-ip-range; the Service takes its first address. */
  serviceClusterIpRange: string;
  leaseTtlSeconds?: number;
}

export interface SystemObjectsOptions {
  registry: Registry;
  /** Raw storage for the master leases (TTL keys outside any resource). */
  backend: Backend;
  prefix: string;
  logger: Logger;
  /** Keep the identity lease and the legacy token tracking ConfigMap in kube-system. */
  identity?: boolean;
  /** The host name the identity is derived from (default os.hostname()). */
  hostname?: string;
  /** Absent: no kubernetes Service or endpoints (--endpoint-reconciler-type=none). */
  endpoints?: EndpointReconcilerOptions;
  intervalMs?: number;
  now?: () => number;
}

interface MasterLease {
  ip: string;
  port: number;
  renewTime: number;
}

function isNotFound(err: unknown): boolean {
  return isStatusError(err) && err.code === 404;
}

function isAlreadyExists(err: unknown): boolean {
  return isStatusError(err) && err.reason === 'AlreadyExists';
}

export const IDENTITY_LEASE_DURATION_SECONDS = 3600;
const IDENTITY_LEASE_GC_PERIOD_MS = 3600_000;
const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
const TOKEN_TRACKING_CONFIGMAP = 'kube-apiserver-legacy-service-account-token-tracking';

/**
 * The server's identity as upstream derives it: "apiserver-" and the lower-case, unpadded
 * base32 of the first 16 bytes of SHA-256 over the host name and "kube-apiserver", each
 * with a two-byte length prefix (cryptobyte's AddUint16LengthPrefixed).
 */
export function apiserverIdentity(hostname: string): string {
  const part = (text: string): Buffer => {
    const bytes = Buffer.from(text);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(bytes.length);
    return Buffer.concat([len, bytes]);
  };
  const hash = crypto.createHash('sha256').update(Buffer.concat([part(hostname), part('kube-apiserver')])).digest().subarray(0, 16);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of hash) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return `apiserver-${out}`;
}

/** A MicroTime as the API prints it: RFC 3339 with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_m, millis: string) => `.${millis}000Z`);
}

export class SystemObjects {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly hostname: string;
  private readonly identity: string;
  private readonly holderIdentity: string;
  private lastLeaseGC = 0;

  constructor(private readonly options: SystemObjectsOptions) {
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? DEFAULT_ENDPOINT_RECONCILE_INTERVAL_MS;
    this.hostname = options.hostname ?? os.hostname();
    this.identity = apiserverIdentity(this.hostname);
    this.holderIdentity = `${this.identity}_${crypto.randomUUID()}`;
  }

  /** Runs one pass now (errors logged, not thrown), then one every interval. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the loop; with the reconciler, removes this server's lease and address. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.running;
    const ep = this.options.endpoints;
    if (ep === undefined) return;
    try {
      await this.options.backend.delete(this.leaseKey(ep.advertiseAddress, ep.port));
    } catch {
      // already gone (expired)
    }
    try {
      await this.reconcileEndpoints(ep, false);
    } catch (err) {
      this.options.logger.warn({ err }, 'removing this server from the kubernetes endpoints failed');
    }
  }

  /** One pass over everything this keeps in place. */
  tick(): Promise<void> {
    if (this.running !== undefined || this.stopped) return this.running ?? Promise.resolve();
    this.running = (async () => {
      try {
        await this.ensurePriorityClasses();
        if (this.options.identity === true) await this.kubeSystemObjects();
        const ep = this.options.endpoints;
        if (ep !== undefined) {
          await this.renewLease(ep);
          // The Service's namespace, as upstream's controller makes sure of (createNamespaceIfNeeded).
          await this.ensure('', 'namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
          await this.ensureService(ep);
          await this.reconcileEndpoints(ep, true);
        }
      } catch (err) {
        this.options.logger.warn({ err }, 'reconciling the system objects failed; retrying');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private store(group: string, resource: string) {
    const store = this.options.registry.storeFor(group, resource);
    if (store === undefined) throw new Error(`no store for ${resource}.${group}`);
    return store;
  }

  private async ensure(group: string, resource: string, namespace: string, object: KubeObject): Promise<KubeObject> {
    const store = this.store(group, resource);
    try {
      return await store.get(namespace, object.metadata.name!, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      const created = await store.create(namespace, deepCopy(object), WRITE);
      this.options.logger.info({ resource, namespace, name: object.metadata.name }, 'created system object');
      return created;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      return store.get(namespace, object.metadata.name!, {});
    }
  }

  async ensurePriorityClasses(): Promise<void> {
    for (const pc of SYSTEM_PRIORITY_CLASSES) {
      await this.ensure('scheduling.k8s.io', 'priorityclasses', '', {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: pc.name },
        value: pc.value,
        description: pc.description,
      });
    }
  }

  // ---- kube-system: identity lease, token tracking ----------------------------

  private async kubeSystemObjects(): Promise<void> {
    try {
      await this.store('', 'namespaces').get('', 'kube-system', {});
    } catch (err) {
      if (isNotFound(err)) return; // not made yet: the next pass tries again
      throw err;
    }
    await this.renewIdentityLease();
    await this.ensure('', 'configmaps', 'kube-system', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: TOKEN_TRACKING_CONFIGMAP, namespace: 'kube-system' },
      data: { since: new Date(this.now()).toISOString().slice(0, 10) },
    });
    if (this.now() - this.lastLeaseGC >= IDENTITY_LEASE_GC_PERIOD_MS) {
      this.lastLeaseGC = this.now();
      await this.collectExpiredIdentityLeases();
    }
  }

  private async renewIdentityLease(): Promise<void> {
    const store = this.store('coordination.k8s.io', 'leases');
    const spec = { holderIdentity: this.holderIdentity, leaseDurationSeconds: IDENTITY_LEASE_DURATION_SECONDS, renewTime: microTime(this.now()) };
    const labels = { [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': this.hostname };
    let current: KubeObject | undefined;
    try {
      current = await store.get('kube-system', this.identity, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current === undefined) {
      await store.create('kube-system', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.identity, namespace: 'kube-system', labels }, spec }, WRITE);
      return;
    }
    const next = deepCopy(current);
    next.metadata.labels = { ...(next.metadata.labels ?? {}), ...labels };
    next['spec'] = { ...((next['spec'] ?? {}) as Record<string, unknown>), ...spec };
    await store.update('kube-system', this.identity, next, WRITE);
  }

  /** Deletes identity leases not renewed within their duration (another server that is gone). */
  private async collectExpiredIdentityLeases(): Promise<void> {
    const store = this.store('coordination.k8s.io', 'leases');
    const list = await store.list('kube-system', { labelSelector: `${IDENTITY_LABEL}=kube-apiserver` });
    for (const lease of list.items) {
      const spec = (lease['spec'] ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
      const renewed = Date.parse(spec.renewTime ?? '');
      const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
      if (Number.isNaN(renewed) || renewed + duration < this.now()) {
        await store.delete('kube-system', lease.metadata.name ?? '', { preconditions: { resourceVersion: lease.metadata.resourceVersion ?? '' } }).catch(() => undefined);
      }
    }
  }

  // ---- the kubernetes service -------------------------------------------------

  private leaseKey(ip: string, port: number): string {
    return `${this.options.prefix}/masterleases/${ip}:${port}`;
  }

  private async renewLease(ep: EndpointReconcilerOptions): Promise<void> {
    const key = this.leaseKey(ep.advertiseAddress, ep.port);
    const value = JSON.stringify({ ip: ep.advertiseAddress, port: ep.port, renewTime: this.now() } satisfies MasterLease);
    const ttlSeconds = ep.leaseTtlSeconds ?? DEFAULT_MASTER_LEASE_TTL_SECONDS;
    const { backend } = this.options;
    const current = await backend.get(key);
    if (current.kv === null) {
      try {
        await backend.create(key, value, { ttlSeconds });
        return;
      } catch {
        // created meanwhile (expired and renewed concurrently): update below
      }
    }
    await backend.update(key, value, undefined, { ttlSeconds });
  }

  private async liveLeases(ep: EndpointReconcilerOptions): Promise<MasterLease[]> {
    const start = `${this.options.prefix}/masterleases/`;
    const { kvs } = await this.options.backend.range(start, `${this.options.prefix}/masterleases0`);
    const ttlMs = (ep.leaseTtlSeconds ?? DEFAULT_MASTER_LEASE_TTL_SECONDS) * 1000;
    const out: MasterLease[] = [];
    for (const kv of kvs) {
      try {
        const lease = JSON.parse(kv.value) as MasterLease;
        if (typeof lease.ip === 'string' && typeof lease.port === 'number' && this.now() - lease.renewTime <= ttlMs) out.push(lease);
      } catch {
        // not ours
      }
    }
    return out;
  }

  private async ensureService(ep: EndpointReconcilerOptions): Promise<void> {
    const range = parseIPv4CIDR(ep.serviceClusterIpRange);
    const ports = [{ name: 'https', protocol: 'TCP', port: 443, targetPort: ep.port }];
    const svc = await this.ensure('', 'services', NAMESPACE, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: SERVICE_NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: formatIPv4(range.network + 1), sessionAffinity: 'None', ports },
    });
    // Only ports and type are reconciled (getMasterServiceUpdateIfNeeded).
    const spec = (svc['spec'] ?? {}) as Record<string, unknown>;
    const current = ((spec['ports'] ?? []) as Record<string, unknown>[]).map((p) => ({ name: p['name'], protocol: p['protocol'], port: p['port'], targetPort: p['targetPort'] }));
    if (!sameJSON(current, ports) || spec['type'] !== 'ClusterIP') {
      const next = deepCopy(svc);
      next['spec'] = { ...spec, type: 'ClusterIP', ports };
      await this.store('', 'services').update(NAMESPACE, SERVICE_NAME, next, WRITE);
    }
  }

  /** Writes the Endpoints and EndpointSlices from the live leases (with or without this server). */
  private async reconcileEndpoints(ep: EndpointReconcilerOptions, includeSelf: boolean): Promise<void> {
    let leases = await this.liveLeases(ep);
    const self = (l: MasterLease): boolean => l.ip === ep.advertiseAddress && l.port === ep.port;
    leases = leases.filter((l) => !self(l));
    if (includeSelf) leases.push({ ip: ep.advertiseAddress, port: ep.port, renewTime: this.now() });
    // One group of addresses per port (normally every server has the same secure port).
    const byPort = new Map<number, string[]>();
    for (const l of leases) byPort.set(l.port, [...(byPort.get(l.port) ?? []), l.ip]);
    const groups = [...byPort].sort(([a], [b]) => a - b).map(([port, ips]) => ({ port, ips: [...new Set(ips)].sort() }));
    const portOf = (port: number) => ({ name: 'https', port, protocol: 'TCP' });

    await this.write('', 'endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: SERVICE_NAME, namespace: NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: groups.map((g) => ({ addresses: g.ips.map((ip) => ({ ip })), ports: [portOf(g.port)] })),
    }, (o) => ({ labels: o.metadata.labels ?? {}, subsets: o['subsets'] ?? [] }));

    // The first port's slice is `kubernetes`, as upstream's; other ports get their own.
    const wanted = new Set<string>();
    for (const [i, g] of (groups.length > 0 ? groups : [{ port: ep.port, ips: [] as string[] }]).entries()) {
      const name = i === 0 ? SERVICE_NAME : `${SERVICE_NAME}-${g.port}`;
      wanted.add(name);
      const v6 = g.ips.some((ip) => ip.includes(':'));
      await this.write('discovery.k8s.io', 'endpointslices', {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': SERVICE_NAME } },
        addressType: v6 ? 'IPv6' : 'IPv4',
        endpoints: g.ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports: [portOf(g.port)],
      }, (o) => ({ labels: o.metadata.labels ?? {}, endpoints: o['endpoints'] ?? [], ports: o['ports'] ?? [], addressType: o['addressType'] }));
    }
    const slices = this.store('discovery.k8s.io', 'endpointslices');
    const listed = await slices.list(NAMESPACE, { labelSelector: `kubernetes.io/service-name=${SERVICE_NAME}` });
    for (const s of listed.items) {
      const name = s.metadata.name ?? '';
      if (name.startsWith(`${SERVICE_NAME}-`) && /^\d+$/.test(name.slice(SERVICE_NAME.length + 1)) && !wanted.has(name)) {
        await slices.delete(NAMESPACE, name, {}).catch(() => undefined);
      }
    }
  }

  /** Creates `desired`, or updates the stored object when `view` of it differs. */
  private async write(group: string, resource: string, desired: KubeObject, view: (o: KubeObject) => unknown): Promise<void> {
    const store = this.store(group, resource);
    const name = desired.metadata.name!;
    let current: KubeObject | undefined;
    try {
      current = await store.get(NAMESPACE, name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current === undefined) {
      try {
        await store.create(NAMESPACE, deepCopy(desired), WRITE);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      return;
    }
    if (sameJSON(view(current), view(desired))) return;
    const next: KubeObject = { ...deepCopy(desired), metadata: { ...current.metadata, labels: desired.metadata.labels ?? {} } };
    await store.update(NAMESPACE, name, next, WRITE);
  }
}
